"""Finishing a receipt: sign what the protocol says is signed, or say nothing was signed."""

from dataclasses import dataclass
from typing import Any

from accord.core.jsonio import JSON
from accord.trust.jws import sign_detached
from accord.trust.keys import SigningKey


@dataclass(frozen=True)
class ReceiptBody:
    """What a protocol makes of its log: every member but the signature's; `signed_payload`
    is None when nothing was agreed."""

    members: dict[str, Any]
    signed_payload: dict[str, Any] | None


def signed_receipt(
    members: dict[str, Any], signed_payload: dict[str, JSON], key: SigningKey
) -> dict[str, Any]:
    """Signed once, when the agreement is made; stored, so a key rotation never changes it."""
    return {
        **members,
        "mode": key.mode,
        "artifact": sign_detached(signed_payload, key),
        "signed_payload": signed_payload,
        "jwks": {"keys": [key.public_jwk()]},
        "signature": {"status": "valid", "reason": f"signed with {key.kid} when agreed"},
    }


def unsigned_receipt(members: dict[str, Any]) -> dict[str, Any]:
    return {
        **members,
        "artifact": None,
        "signed_payload": None,
        "jwks": {"keys": []},
        "signature": {"status": "unsigned", "reason": "nothing was agreed, so nothing is signed"},
    }

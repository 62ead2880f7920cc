"""Finishing a receipt: sign what the protocol says is signed, or say nothing was signed; and
the two bindings every signed payload carries, so that the signature covers the whole log and
everything the receipt reports beside the signed terms (docs/receipts.md, What is signed)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from accord.core.commit import Hash, commit
from accord.core.jsonio import JSON
from accord.trust.jws import sign_detached
from accord.trust.keys import SigningKey

# Members outside the report: the signature's own, and the signed payload's unsigned copies
# (the terms check compares those with what was signed).
NOT_REPORTED: Final = frozenset(
    {"artifact", "signed_payload", "jwks", "signature", "final_terms", "session_id", "reveals"}
)
# OANP's I3 (a reveal must open its commitment) is judged on the reveals, which come after the
# signature: the report keeps its name and leaves its value to be recomputed from the reveals.
JUDGED_ON_REVEALS: Final = "I3_commitments_unchanged"


@dataclass(frozen=True)
class ReceiptBody:
    """What a protocol makes of its log: every member but the signature's; `signed_payload`
    is None when nothing was agreed."""

    members: dict[str, Any]
    signed_payload: dict[str, Any] | None


def log_binding(log: Sequence[JSON]) -> dict[str, Hash]:
    """What a signed session says of the log its agreement ends: OANP's `chain_head`, the
    envelope before the agreement, and `agreement_hash`, the agreement envelope itself.
    `chain_head` alone leaves the last envelope, the one that holds the agreed terms, outside
    the signature, free to be rewritten."""
    return {"chain_head": commit(log[-2]), "agreement_hash": commit(log[-1])}


def report_of(receipt: Mapping[str, Any]) -> dict[str, Any]:
    """The receipt's report: state, protocol, chain, verdicts, invariants, mode and every
    other member the server states beside the signed payload, as they stand when signed."""
    report = {name: value for name, value in receipt.items() if name not in NOT_REPORTED}
    invariants = report.get("invariants")
    if isinstance(invariants, dict) and JUDGED_ON_REVEALS in invariants:
        report["invariants"] = {**invariants, JUDGED_ON_REVEALS: None}
    return report


def report_hash(receipt: Mapping[str, Any]) -> Hash:
    """`commit(report_of(receipt))`: signed as `session.report_hash`. Raises JSONError for
    members that JCS cannot write."""
    return commit(report_of(receipt))


def signed_receipt(
    members: dict[str, Any], signed_payload: dict[str, JSON], key: SigningKey
) -> dict[str, Any]:
    """Signed once, when the agreement is made; stored, so a key rotation never changes it.
    The members are the ones the payload's report_hash was made from: a key of another mode
    than the receipt's would contradict the signed report, and is refused."""
    if members.get("mode", key.mode) != key.mode:
        raise ValueError(f"a {members.get('mode')} receipt cannot be signed with a {key.mode} key")
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

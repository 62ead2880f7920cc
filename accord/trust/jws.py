"""Detached JWS with unencoded payload (RFC 7797, `b64: false`) over JCS bytes, Ed25519.

Signing input: ASCII(base64url(protected)) + "." + JCS(payload) (receipts.md, Signature).
"""

from typing import Any, Final

from accord.core.jsonio import JSON, canonical
from accord.trust.encoding import b64url
from accord.trust.keys import SigningKey

TYP: Final = "oanp-agreement+jws"


def protected_header(kid: str) -> bytes:
    """The header, exactly: {"alg":"EdDSA","b64":false,"crit":["b64"],"kid":…,"typ":…}."""
    return canonical({"alg": "EdDSA", "b64": False, "crit": ["b64"], "kid": kid, "typ": TYP})


def signing_input(protected_b64: str, payload: JSON) -> bytes:
    return protected_b64.encode("ascii") + b"." + canonical(payload)


def sign_detached(payload: JSON, key: SigningKey) -> dict[str, Any]:
    """The artifact `{protected, signature}`; the payload travels beside it, unencoded."""
    protected = b64url(protected_header(key.kid))
    signature = key.private.sign(signing_input(protected, payload))
    return {"protected": protected, "signature": b64url(signature)}

"""Standard Webhooks signatures as a receiver checks them: `v1` (HMAC-SHA256 with the endpoint's
secret) and `v1a` (Ed25519 with the server's webhook key, never a receipt key), both over
`<webhook-id>.<webhook-timestamp>.<body>`. Offline and pure, so the SDK's `verify_webhook` checks
exactly what the server signs (`accord.webhooks.signatures`) without importing the server."""

import base64
import hashlib
import hmac
from collections.abc import Iterable
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

SECRET_PREFIX: Final = "whsec_"
PUBLIC_KEY_PREFIX: Final = "whpk_"


def secret_bytes(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def public_key_bytes(text: str) -> bytes:
    return base64.b64decode(text.removeprefix(PUBLIC_KEY_PREFIX))


def signed_content(webhook_id: str, timestamp: int, body: bytes) -> bytes:
    return f"{webhook_id}.{timestamp}.".encode() + body


def matches(
    header: str,
    webhook_id: str,
    timestamp: int,
    body: bytes,
    *,
    secrets_: Iterable[str] = (),
    public_keys: Iterable[str] = (),
) -> bool:
    """Whether one signature of the `webhook-signature` header is by one of `secrets_` (`v1`)
    or `public_keys` (`v1a`)."""
    content = signed_content(webhook_id, timestamp, body)
    secrets_, public_keys = list(secrets_), list(public_keys)
    for item in header.split(" "):
        version, _, encoded = item.partition(",")
        try:
            given = base64.b64decode(encoded, validate=True)
        except ValueError:
            continue
        if version == "v1":
            for secret in secrets_:
                expected = hmac.new(secret_bytes(secret), content, hashlib.sha256).digest()
                if hmac.compare_digest(expected, given):
                    return True
        elif version == "v1a":
            for key in public_keys:
                try:
                    Ed25519PublicKey.from_public_bytes(public_key_bytes(key)).verify(given, content)
                except (InvalidSignature, ValueError):
                    continue
                return True
    return False

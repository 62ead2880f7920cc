"""Standard Webhooks signatures: `v1` (HMAC-SHA256 with the endpoint's secret) and `v1a`
(Ed25519 with the server's webhook key, never a receipt key), both over
`<webhook-id>.<webhook-timestamp>.<body>`; and checking them, for a receiver."""

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

SECRET_PREFIX = "whsec_"
PUBLIC_KEY_PREFIX = "whpk_"


def new_secret() -> str:
    """`whsec_` and 32 random bytes in base64, as Standard Webhooks writes a secret."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def secret_bytes(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def public_key_text(public: bytes) -> str:
    return PUBLIC_KEY_PREFIX + base64.b64encode(public).decode()


def public_key_bytes(text: str) -> bytes:
    return base64.b64decode(text.removeprefix(PUBLIC_KEY_PREFIX))


def signed_content(webhook_id: str, timestamp: int, body: bytes) -> bytes:
    return f"{webhook_id}.{timestamp}.".encode() + body


def sign_v1(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(
        secret_bytes(secret), signed_content(webhook_id, timestamp, body), hashlib.sha256
    ).digest()
    return "v1," + base64.b64encode(digest).decode()


def sign_v1a(key: Ed25519PrivateKey, webhook_id: str, timestamp: int, body: bytes) -> str:
    signature = key.sign(signed_content(webhook_id, timestamp, body))
    return "v1a," + base64.b64encode(signature).decode()


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

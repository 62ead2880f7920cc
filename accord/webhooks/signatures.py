"""Standard Webhooks signatures as the server makes them: a `v1` secret, the `v1a` public key
as receivers are given it, and both signatures over `<webhook-id>.<webhook-timestamp>.<body>`.
Their check is `accord.trust.webhook_signatures`, shared with the SDK's receivers."""

import base64
import hashlib
import hmac
import secrets

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from accord.trust.webhook_signatures import (
    PUBLIC_KEY_PREFIX,
    SECRET_PREFIX,
    secret_bytes,
    signed_content,
)


def new_secret() -> str:
    """`whsec_` and 32 random bytes in base64, as Standard Webhooks writes a secret."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def public_key_text(public: bytes) -> str:
    return PUBLIC_KEY_PREFIX + base64.b64encode(public).decode()


def sign_v1(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(
        secret_bytes(secret), signed_content(webhook_id, timestamp, body), hashlib.sha256
    ).digest()
    return "v1," + base64.b64encode(digest).decode()


def sign_v1a(key: Ed25519PrivateKey, webhook_id: str, timestamp: int, body: bytes) -> str:
    signature = key.sign(signed_content(webhook_id, timestamp, body))
    return "v1a," + base64.b64encode(signature).decode()

"""Credentials: random 256-bit tokens, stored only as SHA-256 hashes (they are not
passwords, so no slow hash is needed)."""

import hashlib
import secrets


def new_token(prefix: str) -> str:
    return f"{prefix}_{secrets.token_urlsafe(32)}"


def hash_token(token: str) -> str:
    return "sha256:" + hashlib.sha256(token.encode()).hexdigest()


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(10)}"


def new_nonce() -> str:
    """128+ random bits, base64url, for commitments to private sets (receipts.md)."""
    return secrets.token_urlsafe(24)

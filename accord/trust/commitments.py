"""Commitments to private sets (receipts.md): a JSON object with a random nonce, committed
with `commit`, revealed later and checked in constant time."""

import base64
from collections.abc import Mapping
from typing import Any, Final

from accord.core.commit import Hash, commit, is_opening
from accord.core.jsonio import JSON

MIN_NONCE_BYTES = 16
NONCE_BYTES: Final = 24


def nonce_of(entropy: bytes) -> str:
    """A commitment nonce from the kernel's entropy: 192 bits, base64url (receipts.md)."""
    assert len(entropy) >= NONCE_BYTES, "the kernel draws at least 24 bytes"
    return base64.urlsafe_b64encode(entropy[:NONCE_BYTES]).rstrip(b"=").decode()


def private_set(values: Mapping[str, Any], *, nonce: str) -> dict[str, JSON]:
    """The set to commit to: the values with a nonce of at least 128 random bits, because a
    bare small set (a reservation price) could be found from its hash by trying values."""
    if "nonce" in values:
        raise ValueError("the values already carry a nonce")
    if len(nonce) * 6 < MIN_NONCE_BYTES * 8:
        raise ValueError("a nonce needs at least 128 bits (22 base64url characters)")
    return {"nonce": nonce, **values}


def commit_set(private: Mapping[str, Any]) -> Hash:
    return commit(dict(private))


def verify_reveal(commitment: str, revealed: JSON) -> bool:
    """Whether `revealed` opens `commitment` (compared in constant time)."""
    return is_opening(commitment, revealed)

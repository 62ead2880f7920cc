"""Commitments: `commit(x) = "sha256:" + hex(sha256(JCS(x)))` (receipts.md)."""

import hashlib
import hmac
from typing import NewType

from accord.core.jsonio import JSON, canonical

Hash = NewType("Hash", str)
"""A commitment: `sha256:` and 64 lowercase hex digits."""


def commit_bytes(data: bytes) -> Hash:
    return Hash("sha256:" + hashlib.sha256(data).hexdigest())


def commit(value: JSON) -> Hash:
    return commit_bytes(canonical(value))


def is_opening(commitment: str, revealed: JSON) -> bool:
    """Whether `revealed` opens `commitment`, compared in constant time."""
    return hmac.compare_digest(commit(revealed).encode(), commitment.encode())

"""The trust layer: keys, JWKS, receipts, verification and commitments (receipts.md).

What outsiders import to check Accord's receipts, and any OANP arbiter's, offline."""

from accord.trust.commitments import commit_set, private_set, verify_reveal
from accord.trust.verify import (
    TrustedKey,
    Verification,
    VerificationError,
    load_trusted,
    verify_receipt,
)

__all__ = [
    "TrustedKey",
    "Verification",
    "VerificationError",
    "commit_set",
    "load_trusted",
    "private_set",
    "verify_receipt",
    "verify_reveal",
]

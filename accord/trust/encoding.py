"""base64url without padding (RFC 7515 §2), strict on the way in."""

import base64
import binascii
import re
from typing import Final

_ALPHABET: Final = re.compile(r"[A-Za-z0-9_-]*")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: object) -> bytes:
    """Refuses anything but a string, padding, other alphabets and non-canonical trailing
    bits (a receipt is hostile input: a number where a string belongs is a refusal)."""
    if not isinstance(text, str) or not _ALPHABET.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not base64url without padding")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except binascii.Error as exc:
        raise ValueError(f"not base64url: {exc}") from None
    if b64url(data) != text:
        raise ValueError("base64url with non-zero trailing bits")
    return data

"""Strict JSON in, canonical JSON out (RFC 8785).

Inputs with duplicate object keys, NaN or infinities are refused when parsed, and integers
outside the interoperable range are refused before they can reach a hash.
"""

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import rfc8785

JSON = Any
"""A parsed JSON value: dict, list, str, int, float, bool or None."""

MAX_SAFE_INTEGER: Final = 2**53 - 1


class JSONError(ValueError):
    """The input is not strict JSON; `reason` says why in a sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _no_duplicates(pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JSONError(f"duplicate key {key!r} in a JSON object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise JSONError(f"{name} is not a JSON number")


def _checked_int(text: str) -> int:
    value = int(text)
    if abs(value) > MAX_SAFE_INTEGER:
        raise JSONError(f"integer {text} is outside ±(2^53−1)")
    return value


def _checked_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JSONError(f"number {text} is too large for JSON")
    if 2**53 <= abs(value) < 1e21:
        # JCS writes these as integer literals, which would then read back as unsafe integers.
        raise JSONError(f"number {text} is outside the range JSON integers keep exactly")
    return value


def parse(data: bytes | str) -> JSON:
    """Parse strict JSON: no duplicate keys, no NaN or infinities, no unsafe integers."""
    try:
        return json.loads(
            data,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constant,
            parse_int=_checked_int,
            parse_float=_checked_float,
        )
    except JSONError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:
        raise JSONError(f"malformed JSON: {exc}") from None


def canonical(value: JSON) -> bytes:
    """RFC 8785 canonical UTF-8 bytes; refuses what JCS cannot represent."""
    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as exc:
        raise JSONError(f"cannot canonicalize: {exc}") from None


def parse_canonical(data: bytes) -> JSON:
    """Read back stored canonical bytes, refusing any that are not exactly canonical."""
    value = parse(data)
    if canonical(value) != data:
        raise JSONError("stored bytes are not in canonical form")
    return value


def thaw(value: Any) -> JSON:
    """Plain dicts and lists from any nested mappings and sequences (for hashing)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [thaw(v) for v in value]
    return value

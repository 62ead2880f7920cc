"""Strict JSON in, canonical JSON out (RFC 8785).

Inputs with duplicate object keys, NaN or infinities are refused when parsed, and integers
outside the interoperable range are refused before they can reach a hash.
"""

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson
import rfc8785

JSON = Any
"""A parsed JSON value: dict, list, str, int, float, bool or None."""

MAX_SAFE_INTEGER: Final = 2**53 - 1


class JSONError(ValueError):
    """The input is not strict JSON; `reason` says why in a sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Bounds:
    """How large a parsed document may grow: nesting depth, members of one object, items of
    one array. A request body is parsed within bounds, so that what the parser builds stays
    proportional to what the rules can use."""

    depth: int
    members: int
    items: int


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


def _bounded_object(members: int) -> Callable[[Sequence[tuple[str, Any]]], dict[str, Any]]:
    def hook(pairs: Sequence[tuple[str, Any]]) -> dict[str, Any]:
        if len(pairs) > members:
            raise JSONError(f"an object has more than {members} members")
        return _no_duplicates(pairs)

    return hook


def _check_bounds(value: JSON, bounds: Bounds) -> None:
    """Depth and array sizes, walked without recursion (members are checked while parsing)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if type(item) is dict else item
        if depth > bounds.depth:
            raise JSONError(f"the document is nested deeper than {bounds.depth} levels")
        if type(item) is list and len(item) > bounds.items:
            raise JSONError(f"an array has more than {bounds.items} items")
        stack.extend((child, depth + 1) for child in children if type(child) in (dict, list))


def parse(data: bytes | str, bounds: Bounds | None = None) -> JSON:
    """Parse strict JSON: no duplicate keys, no NaN or infinities, no unsafe integers, and
    within `bounds` when given."""
    try:
        value = json.loads(
            data,
            object_pairs_hook=_no_duplicates if bounds is None else _bounded_object(bounds.members),
            parse_constant=_no_constant,
            parse_int=_checked_int,
            parse_float=_checked_float,
        )
    except JSONError:
        raise
    except RecursionError:
        raise JSONError("the document is nested too deeply to read") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise JSONError(f"malformed JSON: {exc}") from None
    if bounds is not None and type(value) in (dict, list):
        _check_bounds(value, bounds)
    return value


def _is_plain(value: Any) -> bool:
    """Whether orjson writes `value` exactly as RFC 8785 does: only exact dicts, lists,
    strings, booleans, None and integers in the safe range (ES6 number formatting differs for
    floats), and no key outside the Basic Multilingual Plane (JCS sorts keys by UTF-16 code
    units, orjson by code points; they agree on the BMP). String escaping already agrees: both
    escape only the quote, the backslash and control characters, with the same short forms and
    lowercase \\u00xx otherwise."""
    stack = [value]
    push, pop = stack.append, stack.pop
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is dict:
            for key, member in item.items():
                if type(key) is not str or (not key.isascii() and max(key) > "\uffff"):
                    return False
                if type(member) is not str:
                    push(member)
        elif kind is list:
            stack.extend(item)
        elif kind is int:
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                return False
        else:
            return False
    return True


def same_json(a: JSON, b: JSON) -> bool:
    """JSON equality: like `==`, but `true` is not `1` and `1` is not `1.0`."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def canonical(value: JSON) -> bytes:
    """RFC 8785 canonical UTF-8 bytes; refuses what JCS cannot represent.

    Values without floats take orjson, which writes the same bytes forty times faster than
    `rfc8785` (tests/core/test_jcs_fast.py holds it to `rfc8785` on generated values); anything
    else, and anything orjson cannot encode, goes through `rfc8785` itself."""
    if _is_plain(value):
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            pass  # a lone surrogate: rfc8785 refuses it with its own error below
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, UnicodeEncodeError) as exc:
        # rfc8785 sorts keys by UTF-16 code units, so a lone surrogate in a key fails there
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

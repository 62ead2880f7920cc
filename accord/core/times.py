"""Time on the wire: UTC RFC 3339, written `YYYY-MM-DDTHH:MM:SSZ` (DESIGN principle 9)."""

import functools
import re
from datetime import UTC, datetime
from typing import Final

RFC3339: Final = re.compile(
    r"(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})"
)


@functools.lru_cache(maxsize=256)
def format_time(at: datetime) -> str:
    """Second precision in UTC; sub-seconds are dropped so equal instants hash equally.
    Cached: one move formats the same few instants a dozen times."""
    if at.tzinfo is None:
        raise ValueError("a naive datetime has no place on the wire")
    return at.astimezone(UTC).isoformat()[:19] + "Z"


@functools.lru_cache(maxsize=256)
def parse_time(text: str) -> datetime:
    """An RFC 3339 timestamp with an explicit offset; raises ValueError otherwise."""
    match = RFC3339.fullmatch(text)
    if match is None:
        raise ValueError("not an RFC 3339 timestamp like 2026-12-24T17:00:00Z")
    main, fraction, offset = match.groups()
    micro = f".{fraction[:6]:0<6}" if fraction else ""  # fromisoformat keeps six digits
    return datetime.fromisoformat(f"{main}{micro}{offset.upper()}").astimezone(UTC)

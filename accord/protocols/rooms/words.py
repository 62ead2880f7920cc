"""Terms in words for people, the same at a terminal and on a page: money as `90.00 EUR`, a
timerange as `start → end`, bools yes/no, a limit as `at least …`, `one of …`."""

import json
from collections.abc import Mapping
from typing import Any, Final

from accord.core.money import format_money

MOVE_WORDS: Final = {
    "offer": "offered",
    "counter": "countered",
    "need_more_detail": "asked for more detail",
    "approve": "approved",
    "reject": "rejected the terms",
    "cancel": "withdrew",
}
"""What a move did, as a person says it after the seat: `opener countered`."""


def format_value(spec: Mapping[str, Any] | None, value: Any) -> str:
    """A term for people: money as `90.00 EUR`, a timerange as `start → end`, bools yes/no."""
    kind = spec.get("type") if spec else None
    if value is None:
        return "—"
    if (
        kind == "money"
        and isinstance(value, dict)
        and isinstance(value.get("amount_minor"), int)
        and value["amount_minor"] >= 0
        and isinstance(value.get("currency"), str)
    ):
        return format_money(value["amount_minor"], value["currency"])
    if kind == "timerange" and isinstance(value, dict) and {"start", "end"} <= value.keys():
        return f"{value['start']} → {value['end']}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def format_limit(spec: Mapping[str, Any] | None, limit: Any) -> str:
    if not isinstance(limit, dict):
        return json.dumps(limit, ensure_ascii=False)
    if "one_of" in limit:
        return "one of " + ", ".join(str(v) for v in limit["one_of"])
    if "equals" in limit:
        return f"must be {format_value(spec, limit['equals'])}"
    bounds = []
    if "min" in limit:
        bounds.append(f"at least {format_value(spec, limit['min'])}")
    if "max" in limit:
        bounds.append(f"at most {format_value(spec, limit['max'])}")
    return ", ".join(bounds) or json.dumps(limit, ensure_ascii=False)

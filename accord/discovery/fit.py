"""`constraint_fit`: for every key both intents constrain, one value satisfies all of both's limits.

Values compare as JSON does: `true` is not `1`, `1` is `1.0`, a string equals only the same
string. `gte`, `lte` and `between` hold numbers only, so a boolean or a string never meets them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from accord.discovery.intents import Constraint, IntentDoc, Scalar


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_equal(x: Scalar, y: Scalar) -> bool:
    """Equality of two JSON scalars: booleans only with booleans, numbers as numbers."""
    if isinstance(x, bool) or isinstance(y, bool):
        return isinstance(x, bool) and isinstance(y, bool) and x == y
    if _is_number(x) and _is_number(y):
        return x == y
    return isinstance(x, str) and isinstance(y, str) and x == y


def _range(constraint: Constraint) -> tuple[float, float]:
    """The closed interval a numeric constraint allows (`gte`, `lte`, `between`)."""
    limit = constraint.value
    if constraint.op == "between" and isinstance(limit, tuple):
        low, high = limit
        return float(low), float(high)
    assert not isinstance(limit, tuple | str)
    if constraint.op == "gte":
        return float(limit), math.inf
    return -math.inf, float(limit)


def satisfies(value: Scalar, constraint: Constraint) -> bool:
    """Whether one value meets one constraint."""
    limit = constraint.value
    if constraint.op == "eq":
        return not isinstance(limit, tuple) and json_equal(value, limit)
    if constraint.op == "in":
        return isinstance(limit, tuple) and any(json_equal(value, item) for item in limit)
    if isinstance(value, str | bool):
        return False
    low, high = _range(constraint)
    return low <= value <= high


def key_fits(constraints: Iterable[Constraint]) -> bool:
    """Some value meets every constraint: one of the listed values, or a number in the ranges."""
    constraints = list(constraints)
    listed = [c for c in constraints if c.op in ("eq", "in")]
    if listed:
        first = listed[0].value
        values = first if isinstance(first, tuple) else (first,)
        return any(all(satisfies(v, c) for c in constraints) for v in values)
    ranges = [_range(c) for c in constraints]
    return max(low for low, _ in ranges) <= min(high for _, high in ranges)


def constraint_fit(a: IntentDoc, b: IntentDoc) -> bool:
    """Every key that both constrain can be met by one value (a key only one side names is free)."""
    shared = {c.key for c in a.constraints} & {c.key for c in b.constraints}
    return all(
        key_fits(c for c in (*a.constraints, *b.constraints) if c.key == key) for key in shared
    )

"""constraint_fit, one row per op pair and per JSON-equality edge."""

import pytest

from accord.discovery import Constraint, IntentDoc, constraint_fit
from accord.discovery.fit import json_equal

C = Constraint


def doc(*constraints: Constraint) -> IntentDoc:
    return IntentDoc("x", "p", "s", constraints)


ROWS = [
    # (a's constraints, b's constraints, fits)
    ([C("k", "eq", "a")], [C("k", "eq", "a")], True),
    ([C("k", "eq", "a")], [C("k", "eq", "b")], False),
    ([C("k", "eq", 1)], [C("k", "eq", 1.0)], True),
    ([C("k", "eq", True)], [C("k", "eq", 1)], False),
    ([C("k", "eq", False)], [C("k", "eq", 0)], False),
    ([C("k", "eq", True)], [C("k", "eq", True)], True),
    ([C("k", "eq", "1")], [C("k", "eq", 1)], False),
    ([C("k", "eq", "a")], [C("k", "in", ("b", "a"))], True),
    ([C("k", "eq", "c")], [C("k", "in", ("b", "a"))], False),
    ([C("k", "eq", 1)], [C("k", "in", (True, "1"))], False),
    ([C("k", "in", (1, 2))], [C("k", "in", (2.0, 3))], True),
    ([C("k", "in", (1, 2))], [C("k", "in", (3, 4))], False),
    ([C("k", "in", (True,))], [C("k", "in", (1,))], False),
    ([C("k", "eq", 5)], [C("k", "gte", 5)], True),
    ([C("k", "eq", 4.99)], [C("k", "gte", 5)], False),
    ([C("k", "eq", 5)], [C("k", "lte", 5)], True),
    ([C("k", "eq", 6)], [C("k", "lte", 5)], False),
    ([C("k", "eq", True)], [C("k", "gte", 0)], False),
    ([C("k", "eq", "5")], [C("k", "gte", 0)], False),
    ([C("k", "eq", 3)], [C("k", "between", (3, 7))], True),
    ([C("k", "eq", 7)], [C("k", "between", (3, 7))], True),
    ([C("k", "eq", 7.5)], [C("k", "between", (3, 7))], False),
    ([C("k", "in", ("x", 2, 9))], [C("k", "between", (3, 7))], False),
    ([C("k", "in", ("x", 2, 5))], [C("k", "between", (3, 7))], True),
    ([C("k", "in", (5,))], [C("k", "gte", 1), C("k", "lte", 4)], False),
    ([C("k", "gte", 5)], [C("k", "lte", 5)], True),
    ([C("k", "gte", 5)], [C("k", "lte", 4.5)], False),
    ([C("k", "gte", 1)], [C("k", "gte", 100)], True),
    ([C("k", "lte", 1)], [C("k", "lte", -100)], True),
    ([C("k", "between", (1, 3))], [C("k", "between", (3, 5))], True),
    ([C("k", "between", (1, 3))], [C("k", "between", (3.5, 5))], False),
    ([C("k", "between", (2, 2))], [C("k", "gte", 2)], True),
    ([C("k", "between", (1, 10))], [C("k", "gte", 11)], False),
    ([C("k", "between", (1, 10))], [C("k", "lte", 0)], False),
    ([C("k", "gte", 1), C("k", "lte", 3)], [C("k", "gte", 3)], True),
    ([C("k", "eq", "a")], [C("other", "eq", "b")], True),
    ([], [C("k", "eq", "b")], True),
    ([C("k", "eq", "a"), C("m", "eq", 1)], [C("k", "eq", "a"), C("m", "eq", 2)], False),
]


@pytest.mark.parametrize(("a", "b", "fits"), ROWS)
def test_constraint_fit(a: list[Constraint], b: list[Constraint], fits: bool) -> None:
    assert constraint_fit(doc(*a), doc(*b)) is fits
    assert constraint_fit(doc(*b), doc(*a)) is fits


@pytest.mark.parametrize(
    ("x", "y", "equal"),
    [(1, 1.0, True), (True, 1, False), (0, False, False), ("a", "a", True), ("1", 1, False)],
)
def test_json_equality(x: object, y: object, equal: bool) -> None:
    assert json_equal(x, y) is equal  # type: ignore[arg-type]

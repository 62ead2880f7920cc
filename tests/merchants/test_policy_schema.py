"""The policy's JSON Schema documents the bounds `policy_problems` holds: every documented
bound is a row here, and the rules refuse a value just beyond the documented bound and not
one at it."""

from collections.abc import Callable
from typing import Any

import pytest

from accord.protocols.arbitrated.policy import Policy, policy_problems
from tests.merchants.conftest import policy_body

BOUNDED = ("minimum", "maximum", "minLength", "maxLength", "maxItems", "pattern")
URL = "https://shop.example/"


def _inclusions(n: int) -> list[dict[str, Any]]:
    return [{"kind": f"k{i}", "value_minor": 1, "included_by_default": False} for i in range(n)]


def _inclusion(**member: Any) -> dict[str, Any]:
    return {"inclusions": [{"kind": "k", "value_minor": 1, "included_by_default": False} | member]}


def _worth(value: int) -> dict[str, Any]:
    return _inclusion(value_minor=value)


def _set(name: str, **also: Any) -> Callable[[Any], dict[str, Any]]:
    return lambda value: {name: value, **also}


# documented bound → (the field refused, the changes for a value; None where a value at the
# bound breaks another rule, as a floor at the largest amount is above the list price)
ROWS: dict[str, tuple[str, Callable[[Any], dict[str, Any]] | None]] = {
    "description.minLength": ("description", lambda n: {"description": "x" * n}),
    "description.maxLength": ("description", lambda n: {"description": "x" * n}),
    "list_price_minor.minimum": (
        "list_price_minor", _set("list_price_minor", reference_price_minor=1, floor_minor=0)
    ),
    "list_price_minor.maximum": ("list_price_minor", _set("list_price_minor")),
    "reference_price_minor.minimum": (
        "reference_price_minor", _set("reference_price_minor", floor_minor=0)
    ),
    "reference_price_minor.maximum": (
        "reference_price_minor", _set("reference_price_minor", list_price_minor=2**53 - 1)
    ),
    "floor_minor.minimum": ("floor_minor", _set("floor_minor")),
    "floor_minor.maximum": ("floor_minor", None),
    "inclusions.maxItems": ("inclusions", lambda n: {"inclusions": _inclusions(n)}),
    "Inclusion.kind.minLength": ("inclusions.0.kind", lambda n: _inclusion(kind="k" * n)),
    "Inclusion.kind.maxLength": ("inclusions.0.kind", lambda n: _inclusion(kind="k" * n)),
    "Inclusion.value_minor.minimum": ("inclusions.0.value_minor", lambda v: _worth(v)),
    "Inclusion.value_minor.maximum": ("inclusions.0.value_minor", lambda v: _worth(v)),
    "max_rounds.minimum": ("max_rounds", _set("max_rounds")),
    "max_rounds.maximum": ("max_rounds", _set("max_rounds")),
    "round_timeout_seconds.minimum": ("round_timeout_seconds", _set("round_timeout_seconds")),
    "round_timeout_seconds.maximum": ("round_timeout_seconds", _set("round_timeout_seconds")),
    "Handoff.checkout_url.maxLength": (
        "handoff.checkout_url", lambda n: {"handoff__checkout_url": URL + "x" * (n - len(URL))}
    ),
    "Handoff.ttl_seconds.minimum": ("handoff.ttl_seconds", _set("handoff__ttl_seconds")),
    "Handoff.ttl_seconds.maximum": ("handoff.ttl_seconds", _set("handoff__ttl_seconds")),
}  # fmt: skip
# documented pattern → (the field refused, a value it admits, one it refuses)
PATTERNS = {
    "currency.pattern": ("currency", {"currency": "USD"}, {"currency": "usd"}),
    "fair_band.pattern": ("fair_band", {"fair_band": "0.000001"}, {"fair_band": "0.050"}),
}


def _documented() -> dict[str, Any]:
    schema = Policy.model_json_schema()
    found: dict[str, Any] = {}
    for owner, model in [("", schema), *((f"{n}.", d) for n, d in schema["$defs"].items())]:
        for name, member in model.get("properties", {}).items():
            found |= {f"{owner}{name}.{k}": member[k] for k in BOUNDED if k in member}
    return found


DOCUMENTED = _documented()


def _problems(changes: dict[str, Any]) -> dict[str, str]:
    return policy_problems(Policy.model_validate(policy_body(**changes)))


@pytest.mark.parametrize("bound", sorted(ROWS))
def test_a_documented_bound_is_the_rule(bound: str) -> None:
    field, make = ROWS[bound]
    value = DOCUMENTED[bound]
    beyond = value - 1 if bound.endswith(("minimum", "minLength")) else value + 1
    if make is None:
        make = _set(field)
    else:
        assert field not in _problems(make(value))
    assert field in _problems(make(beyond))


@pytest.mark.parametrize("bound", sorted(PATTERNS))
def test_a_documented_pattern_is_the_rule(bound: str) -> None:
    field, admitted, refused = PATTERNS[bound]
    assert field not in _problems(admitted)
    assert field in _problems(refused)


def test_every_documented_bound_has_a_row() -> None:
    assert set(DOCUMENTED) == set(ROWS) | set(PATTERNS)

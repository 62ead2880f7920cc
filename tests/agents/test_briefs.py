"""A seat's brief for a room: its grid, its utilities, its limits, and terms read never better
than they are."""

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.agents.briefs import BriefError, read_brief
from accord.protocols.rooms.schema import normalize_limits, normalize_terms, outside_limits

SCHEMA: dict[str, Any] = {
    "price": {"type": "money", "currency": "EUR"},
    "pickup": {"type": "date"},
    "lights": {"type": "bool"},
    "colour": {"type": "enum", "values": ["blue", "red", "green"]},
    "note": {"type": "string", "optional": True},
}
SELLER: dict[str, Any] = {
    "fields": {
        "price": {"weight": 3, "from": 40000, "to": 48000, "steps": 9},
        "pickup": {"weight": 1, "from": "2026-12-20", "to": "2026-12-12", "steps": 9},
        "lights": {"weight": 1, "utilities": {"false": 1, "true": 0.5}},
        "colour": {"weight": 1, "utilities": {"blue": 1, "red": 0.25}},
    },
    "reservation": 0.3,
}


def eur(amount: int) -> dict[str, Any]:
    return {"amount_minor": amount, "currency": "EUR"}


def test_the_grid_runs_from_worst_to_best_and_its_terms_fit_the_room() -> None:
    brief = read_brief(SCHEMA, SELLER)
    assert brief.domain.sizes == (9, 9, 2, 3)
    assert brief.grids[0] == tuple(range(40000, 48001, 1000))
    assert brief.grids[1][0] == "2026-12-20" and brief.grids[1][-1] == "2026-12-12"
    best = brief.preferences.best_outcome
    assert brief.terms(brief.domain.number_of(best)) == {
        "price": eur(48000),
        "pickup": "2026-12-12",
        "lights": False,
        "colour": "blue",
    }
    assert brief.preferences.reservation == 0.3
    for outcome in range(brief.domain.outcome_count):
        terms = brief.terms(outcome)
        assert normalize_terms(SCHEMA, terms)[1] == {}
        assert brief.outcome(terms) == outcome


def test_the_limits_are_the_worst_values_and_the_grid_keeps_inside_them() -> None:
    brief = read_brief(SCHEMA, SELLER)
    limits, problems = normalize_limits(SCHEMA, brief.limits())
    assert problems == {}
    assert limits == {"price": {"min": eur(40000)}, "pickup": {"max": "2026-12-20"}}
    assert all(
        outside_limits(SCHEMA, limits, brief.terms(n)) == []
        for n in range(brief.domain.outcome_count)
    )


@given(price=st.integers(30000, 60000), day=st.integers(5, 28))
def test_terms_off_the_grid_read_no_better_than_they_are(price: int, day: int) -> None:
    brief = read_brief(SCHEMA, SELLER)
    terms = {"price": eur(price), "pickup": f"2026-12-{day:02d}", "lights": True, "colour": "red"}
    outcome = brief.outcome(terms)
    if price < 40000 or day > 20:
        assert outcome is None  # past the seat's own limit: never to be accepted
        return
    assert outcome is not None
    exact = (
        3 * min((price - 40000) / 8000, 1) + min((20 - day) / 8, 1) + 0.5 + 0.25
    ) / 6  # weights 3, 1, 1, 1
    assert brief.preferences.utility_list[outcome] <= exact + 1e-12


def test_a_missing_or_unknown_value_reads_as_the_worst() -> None:
    brief = read_brief(SCHEMA, SELLER)
    terms = {"price": eur(48000), "pickup": "2026-12-12", "lights": False, "colour": "green"}
    outcome = brief.outcome(terms)
    assert outcome is not None
    assert brief.domain.values_of(brief.domain.outcome_at(outcome))[3] == "green"  # utility 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"price": {"weight": 1, "from": 1, "to": 2}}, "field pickup is required"),
        ({**SELLER["fields"], "size": {"weight": 1, "utilities": {}}}, "no field size"),
        ({**SELLER["fields"], "note": {"weight": 1, "utilities": {"a": 1}}}, "note is a string"),
        ({**SELLER["fields"], "lights": {"weight": 1, "from": 1, "to": 2}}, "give utilities"),
        ({**SELLER["fields"], "price": {"weight": 1, "utilities": {"a": 1}}}, "give from and to"),
        ({**SELLER["fields"], "colour": {"weight": 1, "utilities": {"pink": 1}}}, "no value pink"),
        ({**SELLER["fields"], "price": {"weight": 1, "from": 5, "to": 5}}, "must differ"),
        ({**SELLER["fields"], "price": {"weight": 0, "from": 1, "to": 5}}, "more than 0"),
        ({**SELLER["fields"], "lights": {"weight": 1, "utilities": {"true": 2}}}, "lie in"),
        (
            {**SELLER["fields"], "pickup": {"weight": 1, "from": "soon", "to": "2026-12-01"}},
            "not a date",
        ),
    ],
)
def test_a_brief_that_does_not_fit_is_refused_with_the_field(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(BriefError, match=message):
        read_brief(SCHEMA, {"fields": fields})

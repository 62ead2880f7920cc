"""Tournaments: the seats and counts of the spec, a document that does not depend on the number
of processes, summaries that are the means of the negotiations they summarise."""

import json
from dataclasses import replace
from statistics import mean
from typing import Any

import pytest

from accord.agents.scenarios import Scenario
from accord.agents.tournament import DEFAULT_ROUNDS, FORMAT, Settings, negotiation_count, run
from tests.agents.play_support import data_scenarios

SCENARIOS = data_scenarios()
NAMES = ("accord", "boulware", "micro")


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return run(SCENARIOS, Settings(NAMES, rounds=30, repetitions=2))


def test_every_ordered_pair_twice_per_scenario_and_repetition(document: dict[str, Any]) -> None:
    rows = document["negotiations"]
    assert document["format"] == FORMAT
    assert len(rows) == len(SCENARIOS) * 2 * len(NAMES) ** 2 * 2
    assert len(rows) == negotiation_count(Settings(NAMES, repetitions=2), len(SCENARIOS))
    for scenario in SCENARIOS:
        for repetition in (0, 1):
            seats = sorted(
                (tuple(r["strategies"]), r["first"])
                for r in rows
                if r["scenario"] == scenario.name and r["repetition"] == repetition
            )
            assert seats == sorted(((a, b), f) for a in NAMES for b in NAMES for f in (0, 1))


def test_the_document_is_strict_json_with_null_not_nan(document: dict[str, Any]) -> None:
    text = json.dumps(document, allow_nan=False)
    assert json.loads(text) == document


def test_agreements_are_the_scenarios_values(document: dict[str, Any]) -> None:
    by_name: dict[str, Scenario] = {s.name: s for s in SCENARIOS}
    for row in document["negotiations"]:
        scenario = by_name[row["scenario"]]
        if row["agreement"] is None:
            assert row["end"] in ("deadline", "walk_away")
            assert row["advantages"] == [0.0, 0.0]
            continue
        outcome = scenario.domain.outcome_of(row["agreement"])
        assert row["end"] == "agreement"
        assert row["utilities"] == [p.utility(outcome) for p in scenario.profiles]


def test_the_summary_is_the_mean_over_every_seat_held(document: dict[str, Any]) -> None:
    rows = document["negotiations"]
    for entry in document["summary"]:
        name = entry["strategy"]
        held = [(r, side) for r in rows for side in (0, 1) if r["strategies"][side] == name]
        assert entry["seats"] == len(held)
        assert entry["advantage"] == pytest.approx(mean(r["advantages"][s] for r, s in held))
        others = [(r, s) for r, s in held if r["strategies"][0] != r["strategies"][1]]
        assert entry["advantage_excluding_self_play"] == pytest.approx(
            mean(r["advantages"][s] for r, s in others)
        )
        agreed = [r for r, _ in held if r["agreement"] is not None]
        assert entry["agreement_rate"] == pytest.approx(len(agreed) / len(held))
        assert entry["nash_optimality"] == pytest.approx(mean(r["nash_optimality"] for r in agreed))
        assert entry["irrational_agreements"] == sum(1 for r in agreed if not r["rational"])
    advantages = [entry["advantage"] for entry in document["summary"]]
    assert advantages == sorted(advantages, reverse=True)


def test_processes_do_not_change_the_result(document: dict[str, Any]) -> None:
    assert run(SCENARIOS, Settings(NAMES, rounds=30, repetitions=2), jobs=2) == document


def test_without_self_play() -> None:
    doc = run(SCENARIOS[:1], Settings(NAMES, rounds=10, self_play=False))
    assert len(doc["negotiations"]) == len(NAMES) * (len(NAMES) - 1) * 2
    assert all(r["strategies"][0] != r["strategies"][1] for r in doc["negotiations"])


def test_honouring_the_discount_shrinks_what_a_late_agreement_is_worth() -> None:
    deal = next(s for s in SCENARIOS if s.name == "accord/deal.json")
    assert deal.profiles[0].discount == 0.95
    removed = run([deal], Settings(("linear",), rounds=10))["negotiations"]
    honoured = run([deal], Settings(("linear",), rounds=10, discounting="honour"))["negotiations"]
    for plain, discounted in zip(removed, honoured, strict=True):
        assert plain["agreement"] == discounted["agreement"]
        t = plain["rounds"] / 11
        assert discounted["utilities"][0] == pytest.approx(plain["utilities"][0] * 0.95**t)
        assert discounted["utilities"][1] == plain["utilities"][1]  # no discount of its own


@pytest.mark.parametrize(
    ("given", "own", "deadline"),
    [(None, 20, 20), (None, None, DEFAULT_ROUNDS), (7, 20, 7), (7, None, 7)],
)
def test_a_scenarios_own_rounds_hold_unless_the_settings_give_them(
    given: int | None, own: int | None, deadline: int
) -> None:
    deal = next(s for s in SCENARIOS if s.name == "accord/deal.json")
    # each side takes only its own best outcome, so every negotiation runs to its deadline
    first, second = (replace(p, reservation=p.best) for p in deal.profiles)
    scenario = replace(deal, profiles=(first, second), rounds=own)
    doc = run([scenario], Settings(("linear", "micro"), rounds=given))
    assert doc["settings"]["rounds"] == given
    assert doc["scenarios"][0]["rounds"] == deadline
    assert {(r["end"], r["rounds"]) for r in doc["negotiations"]} == {("deadline", deadline)}


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (dict(strategies=("accord", "nope")), "unknown strategy nope"),
        (dict(strategies=()), "at least one strategy"),
        (dict(strategies=("accord", "accord")), "named twice"),
        (dict(strategies=("accord",), rounds=0), "at least 1"),
        (dict(strategies=("accord",), self_play=False), "nothing to run"),
    ],
)
def test_settings_refuse_what_cannot_run(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings(**settings)

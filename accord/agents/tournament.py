"""Tournaments (spec/agents.md, Tournaments): every ordered pair of strategies, self-play
included, on every scenario and repetition, each pair twice (profile 1's seat moving first, then
profile 2's), scored by the spec's metrics into the `accord-tournament/1` document.

Negotiations are independent and seeded by their repetition, so a run gives the same document
whether it runs in one process or many (`jobs`)."""

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, Final, Literal

from accord.agents.engine import End, play
from accord.agents.metrics import ScenarioStats, scenario_stats, score
from accord.agents.preferences import Preferences
from accord.agents.scenarios import Scenario, Skipped, without_discount
from accord.agents.strategies import STRATEGIES

FORMAT: Final = "accord-tournament/1"
DEFAULT_ROUNDS: Final = 100
"""A scenario's rounds when neither the settings nor the scenario give them."""
Discounting = Literal["remove", "honour"]


@dataclass(frozen=True)
class Settings:
    strategies: tuple[str, ...]
    rounds: int | None = None
    """Every scenario's rounds; None: each scenario's own, else `DEFAULT_ROUNDS`."""
    repetitions: int = 1
    self_play: bool = True
    discounting: Discounting = "remove"
    seed: int = 0
    """Repetition `i` is seeded `seed + i`."""

    def __post_init__(self) -> None:
        unknown = [name for name in self.strategies if name not in STRATEGIES]
        if unknown:
            raise ValueError(
                f"unknown strategy {', '.join(unknown)}; the built-in ones are "
                f"{', '.join(STRATEGIES)}"
            )
        if not self.strategies:
            raise ValueError("name at least one strategy")
        if len(set(self.strategies)) != len(self.strategies):
            raise ValueError("a strategy is named twice")
        if (self.rounds is not None and self.rounds < 1) or self.repetitions < 1:
            raise ValueError("rounds and repetitions must be at least 1")
        if len(self.strategies) == 1 and not self.self_play:
            raise ValueError("one strategy without self-play leaves nothing to run")

    def rounds_of(self, scenario: Scenario) -> int:
        if self.rounds is not None:
            return self.rounds
        return DEFAULT_ROUNDS if scenario.rounds is None else scenario.rounds

    def to_json(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "repetitions": self.repetitions,
            "strategies": list(self.strategies),
            "self_play": self.self_play,
            "discounting": self.discounting,
            "seed": self.seed,
        }


def pairs(settings: Settings) -> list[tuple[str, str]]:
    """The ordered pairs: the first holds profile 1, the second profile 2."""
    names = settings.strategies
    return [(a, b) for a in names for b in names if settings.self_play or a != b]


def negotiation_count(settings: Settings, scenarios: int) -> int:
    return scenarios * settings.repetitions * len(pairs(settings)) * 2


def _prepared(scenario: Scenario, settings: Settings) -> Scenario:
    return without_discount(scenario) if settings.discounting == "remove" else scenario


def run_scenario(
    scenario: Scenario, settings: Settings
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One scenario's description and every negotiation of it, in document order: its
    statistics (the whole outcome space) are computed once, for both."""
    scenario = _prepared(scenario, settings)
    stats = scenario_stats(*scenario.profiles)
    rows: list[dict[str, Any]] = []
    for repetition in range(settings.repetitions):
        for a, b in pairs(settings):
            for first in (0, 1):
                rows.append(_negotiate(scenario, stats, settings, repetition, (a, b), first))
    return describe(scenario, stats, settings.rounds_of(scenario)), rows


def _negotiate(
    scenario: Scenario,
    stats: ScenarioStats,
    settings: Settings,
    repetition: int,
    holders: tuple[str, str],
    first: int,
) -> dict[str, Any]:
    profiles = scenario.profiles
    order = (0, 1) if first == 0 else (1, 0)
    deadline = settings.rounds_of(scenario)
    end: End | Literal["error"]
    try:
        played = play(
            [profiles[i] for i in order],
            [STRATEGIES[holders[i]] for i in order],
            rounds=deadline,
            seed=settings.seed + repetition,
        )
        agreement, end, rounds = played.agreement, played.end, played.rounds
    except Exception:  # a strategy's bug ends its negotiation, not the tournament
        agreement, end, rounds = None, "error", 0
    outcome = None if agreement is None else scenario.domain.outcome_at(agreement)
    scores = score(stats, outcome, *profiles)
    if settings.discounting == "honour":
        _discount(scores, profiles, min(rounds, deadline) / (deadline + 1))
    return {
        "scenario": scenario.name,
        "repetition": repetition,
        "strategies": list(holders),
        "first": first,
        "agreement": None if outcome is None else scenario.domain.values_of(outcome),
        "rounds": rounds,
        "end": end,
        **{key: _finite(value) for key, value in scores.items() if key != "surpluses"},
    }


def _discount(scores: dict[str, Any], profiles: Sequence[Preferences], t: float) -> None:
    """Genius's `u·d^t` and `r·d^t`: both sides' gains shrink by `d^t`, positions do not."""
    factors = [1.0 if p.discount is None else p.discount**t for p in profiles]
    for key in ("utilities", "advantages"):
        scores[key] = [value * f for value, f in zip(scores[key], factors, strict=True)]
    scores["welfare"] = sum(scores["utilities"])


def _finite(value: Any) -> Any:
    """Undefined numbers are null in the document, never NaN."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value


def describe(scenario: Scenario, stats: ScenarioStats, rounds: int) -> dict[str, Any]:
    return {
        "name": scenario.name,
        "rounds": rounds,
        "issues": [{"name": i.name, "values": list(i.values)} for i in scenario.domain.issues],
        "reservation": [p.reservation for p in scenario.profiles],
        "outcome_count": scenario.domain.outcome_count,
        "zoa": stats.has_zoa,
    }


def run(
    scenarios: Sequence[Scenario],
    settings: Settings,
    *,
    skipped: Sequence[Skipped] = (),
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The whole tournament as its result document; `progress(n)` after each `n` negotiations."""
    described: list[dict[str, Any]] = []
    negotiations: list[dict[str, Any]] = []
    for description, rows in _scenario_rows(scenarios, settings, jobs):
        described.append(description)
        negotiations += rows
        if progress is not None:
            progress(len(rows))
    return {
        "format": FORMAT,
        "settings": settings.to_json(),
        "scenarios": described,
        "skipped": [{"path": s.path, "reason": s.reason} for s in skipped],
        "negotiations": negotiations,
        "summary": summary(
            negotiations, settings.strategies, {d["name"]: d["zoa"] for d in described}
        ),
    }


def _scenario_rows(
    scenarios: Sequence[Scenario], settings: Settings, jobs: int
) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    if jobs <= 1 or len(scenarios) <= 1:
        for scenario in scenarios:
            yield run_scenario(scenario, settings)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(run_scenario, scenarios, [settings] * len(scenarios))


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def summary(
    negotiations: Sequence[dict[str, Any]], strategies: Sequence[str], zoa: Mapping[str, bool]
) -> list[dict[str, Any]]:
    """Per strategy, over every seat it held (a self-play negotiation counts two seats), best
    mean advantage first; `zoa` says which scenarios have a zone of agreement."""
    seats: dict[str, list[tuple[dict[str, Any], int]]] = {name: [] for name in strategies}
    for row in negotiations:
        for side, name in enumerate(row["strategies"]):
            seats[name].append((row, side))
    rows = []
    for name, held in seats.items():
        agreed = [(row, side) for row, side in held if row["agreement"] is not None]
        in_zoa = [(row, side) for row, side in held if zoa[row["scenario"]]]
        others = [(row, side) for row, side in held if row["strategies"][0] != row["strategies"][1]]
        rows.append(
            {
                "strategy": name,
                "seats": len(held),
                "advantage": _mean([row["advantages"][side] for row, side in held]),
                "advantage_excluding_self_play": _mean(
                    [row["advantages"][side] for row, side in others]
                ),
                "utility": _mean([row["utilities"][side] for row, side in held]),
                "agreement_rate": _rate(len(agreed), len(held)),
                "agreement_rate_zoa": _rate(
                    sum(1 for row, _ in in_zoa if row["agreement"] is not None), len(in_zoa)
                ),
                "nash_optimality": _mean([row["nash_optimality"] for row, _ in agreed]),
                "pareto_optimality": _mean([row["pareto_optimality"] for row, _ in agreed]),
                "nash_optimality_all": _mean([row["nash_optimality"] for row, _ in held]),
                "pareto_optimality_all": _mean([row["pareto_optimality"] for row, _ in held]),
                "irrational_agreements": sum(1 for row, _ in agreed if not row["rational"]),
            }
        )
    return sorted(rows, key=lambda r: -(r["advantage"] if r["advantage"] is not None else -1))


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None

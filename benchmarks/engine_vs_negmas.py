"""Negotiations per second of Accord's in-process engine (`accord.agents.engine.play`) beside
NegMAS 0.16's SAO mechanism, on the same scenarios with the same-named strategies, in one
process. The team's aim is at least 50 times NegMAS; this script prints what it measures and
asserts nothing about speed.

    .venv/bin/python benchmarks/engine_vs_negmas.py [--scenarios PATH]

NegMAS is AGPL, so nothing under `accord/` imports it and it is no dependency of the project:
on its first run the script makes a virtual environment of its own (`benchmarks/.venv-negmas`,
git-ignored), installs `negmas==0.16.0` and this checkout (editable) into it, and runs itself
again with that environment's Python. Both sides then negotiate in the same process.

Both sides are built from the same `Scenario` objects (NegMAS's outcome space and linear
additive utility functions are made from Accord's issues, weights and evaluations, not read
from the XML again), and before any timing the script checks that NegMAS's utility equals
Accord's on every outcome (a sample of them past 10,000). Discounting is removed. Only the
negotiation loop is timed, each negotiation's strategies and mechanism made inside it on both
sides; the two sides are timed in alternating slices so that load on the machine weighs on
both alike.
"""

import argparse
import importlib
import importlib.metadata
import json
import math
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from negmas_env import DEFAULT_VENV, ROOT, ensure_negmas, negmas_side, shown

from accord.agents.domain import Domain
from accord.agents.engine import play
from accord.agents.preferences import Preferences
from accord.agents.scenarios import Scenario, Skipped, find_scenarios, without_discount
from accord.agents.strategies import STRATEGIES, Factory

DEFAULT_SCENARIOS = ROOT / "tests" / "agents" / "data" / "scenarios"

COUNTERPARTS: dict[str, str] = {
    "boulware": "BoulwareTBNegotiator",
    "linear": "LinearTBNegotiator",
    "conceder": "ConcederTBNegotiator",
    "tit_for_tat": "NaiveTitForTatNegotiator",
    "micro": "MiCRONegotiator",
    "accord": "AspirationNegotiator",
}
"""Accord's strategy -> the `negmas.sao` class timed beside it."""
REFERENCE_ONLY = frozenset({"accord"})
"""Rows whose NegMAS side is a different strategy: a reference, left out of the summary's
like-for-like line."""

MECHANISM_SETTINGS: dict[str, Any] = {
    "check_offers": False,
    "enforce_issue_types": False,
    "cast_offers": False,
    "sync_calls": True,
}
"""NegMAS options that check or guard rather than negotiate (`check_offers`, `cast_offers` and
`enforce_issue_types` are off by default in 0.16 and stay off; `sync_calls` skips the timeout
thread, which with no time limit is never used anyway). `extra_callbacks` stays at its default
(on), though it costs NegMAS time: MiCRO learns the other side's offers only through
`on_partner_proposal`, and without it a MiCRO pair never concedes and runs to the deadline."""

EXACT_CHECK = 10_000
"""Outcome spaces up to this size have their utilities checked on every outcome."""
SAMPLE = 2_000
"""Outcomes checked in larger spaces."""
TOLERANCE = 1e-9
SLICES = 2
"""Each side is timed in this many slices, alternating with the other side's."""
MIN_NEGOTIATIONS = 3


# -- the NegMAS side of a scenario -----------------------------------------------------------


@dataclass(frozen=True)
class NegmasScenario:
    """NegMAS's outcome space and one utility function per profile, in move order."""

    outcome_space: Any
    ufuns: tuple[Any, Any]


def negmas_scenario(scenario: Scenario) -> NegmasScenario:
    """Built from Accord's own issues, weights and evaluations, so that both sides negotiate
    over the same utilities (values are the issues' strings on both sides)."""
    space, ufuns = negmas_side(scenario, name=scenario.name)
    return NegmasScenario(space, (ufuns[0], ufuns[1]))


def check_utilities(scenario: Scenario, side: NegmasScenario) -> int:
    """Raise unless NegMAS's utility equals Accord's on every outcome (or a sample of them in
    a large space) and the reserved values agree; the number of outcomes checked."""
    domain = scenario.domain
    count = domain.outcome_count
    if count <= EXACT_CHECK:
        numbers: Sequence[int] = range(count)
    else:
        numbers = sorted({0, count - 1, *random.Random(0).sample(range(count), SAMPLE)})
    for profile, ufun in zip(scenario.profiles, side.ufuns, strict=True):
        if abs(float(ufun.reserved_value) - profile.reservation) > TOLERANCE:
            raise AssertionError(f"{scenario.name}: reserved values differ")
        for number in numbers:
            outcome = domain.outcome_at(number)
            ours, theirs = profile.utility(outcome), float(ufun(tuple(domain.values_of(outcome))))
            if not abs(ours - theirs) <= TOLERANCE:
                raise AssertionError(
                    f"{scenario.name}: outcome {domain.values_of(outcome)} is worth {ours} to "
                    f"{profile.name or 'a profile'} in Accord and {theirs} in NegMAS"
                )
    return len(numbers)


# -- timing ------------------------------------------------------------------------------------

Run = Callable[[int], tuple[int, bool]]
"""One negotiation for a seed: the rounds begun and whether it ended in an agreement."""


def accord_run(profiles: tuple[Preferences, Preferences], factory: Factory, rounds: int) -> Run:
    """Accord's side: `play` makes both seats' strategies for every negotiation itself."""
    strategies = (factory, factory)

    def run(seed: int) -> tuple[int, bool]:
        played = play(profiles, strategies, rounds=rounds, seed=seed)
        return played.rounds, played.agreement is not None

    return run


def negmas_run(side: NegmasScenario, negotiator: str, rounds: int) -> Run:
    """NegMAS's side, made the way its documentation does: a mechanism and two negotiators
    for every negotiation, then `run()`. `state.step` counts the rounds begun, as Accord's
    `Played.rounds` does."""
    sao = importlib.import_module("negmas.sao")
    mechanism, kind = sao.SAOMechanism, getattr(sao, negotiator)
    space, (first, second) = side.outcome_space, side.ufuns

    def run(seed: int) -> tuple[int, bool]:
        random.seed(seed)  # NegMAS's stochastic choices (MiCRO's repeats) use `random`
        m = mechanism(outcome_space=space, n_steps=rounds, **MECHANISM_SETTINGS)
        m.add(kind(name="first", ufun=first))
        m.add(kind(name="second", ufun=second))
        m.run()
        state = m.state
        return int(state.step), state.agreement is not None

    return run


def uncached(scenario: Scenario) -> tuple[Preferences, Preferences]:
    """The profiles copied over a copy of the domain: none of the caches Accord keeps on them
    (utilities, ranking, outcome table, time-based schedules) is filled yet."""
    domain = Domain(scenario.domain.issues)
    first, second = (replace(profile, domain=domain) for profile in scenario.profiles)
    return first, second


def once(run: Run) -> float:
    """Milliseconds of one negotiation (seed 0)."""
    start = time.perf_counter()
    run(0)
    return (time.perf_counter() - start) * 1000


@dataclass
class Tally:
    """One side of one row, summed over its slices."""

    negotiations: int = 0
    seconds: float = 0.0
    rounds: int = 0
    agreements: int = 0
    cold_ms: float = math.nan
    """One negotiation on objects made for it, nothing cached yet."""

    def burst(self, run: Run, budget: float, at_least: int) -> None:
        """Negotiations for `budget` seconds and at least `at_least` of them; only the loop is
        timed, what it returned is counted afterwards."""
        results: list[tuple[int, bool]] = []
        seed = self.negotiations
        start = time.perf_counter()
        while True:
            results.append(run(seed))
            seed += 1
            elapsed = time.perf_counter() - start
            if elapsed >= budget and len(results) >= at_least:
                break
        self.seconds += elapsed
        self.negotiations += len(results)
        self.rounds += sum(r for r, _ in results)
        self.agreements += sum(a for _, a in results)

    @property
    def per_second(self) -> float:
        return self.negotiations / self.seconds

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds

    @property
    def mean_rounds(self) -> float:
        return self.rounds / self.negotiations

    @property
    def agreement_rate(self) -> float:
        return self.agreements / self.negotiations


def warm_up(scenario: Scenario, strategies: Sequence[str], rounds: int) -> None:
    """One untimed negotiation per strategy on each side, on objects made for it: a process's
    first negotiations pay for lazy imports and first calls, a cost of neither engine's
    negotiations, which would otherwise land on the first row's cold runs."""
    for strategy in strategies:
        once(accord_run(uncached(scenario), STRATEGIES[strategy], rounds))
        once(negmas_run(negmas_scenario(scenario), COUNTERPARTS[strategy], rounds))


def measure(
    scenario: Scenario, side: NegmasScenario, strategy: str, rounds: int, seconds: float
) -> tuple[Tally, Tally]:
    """One row: first a cold negotiation on each side (fresh profiles or ufuns), then both
    sides on the scenario's own objects in alternating slices, each at least `seconds` in all
    and at least MIN_NEGOTIATIONS negotiations."""
    factory, negotiator = STRATEGIES[strategy], COUNTERPARTS[strategy]
    ours, theirs = Tally(), Tally()
    ours.cold_ms = once(accord_run(uncached(scenario), factory, rounds))
    theirs.cold_ms = once(negmas_run(negmas_scenario(scenario), negotiator, rounds))
    accord = accord_run(scenario.profiles, factory, rounds)
    negmas = negmas_run(side, negotiator, rounds)
    for index in range(SLICES):
        for tally, run in ((ours, accord), (theirs, negmas)):
            at_least = 1 if index < SLICES - 1 else max(1, MIN_NEGOTIATIONS - tally.negotiations)
            tally.burst(run, seconds / SLICES, at_least)
    return ours, theirs


# -- the run -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One scenario and strategy, both sides."""

    scenario: str
    issues: int
    outcomes: int
    strategy: str
    negmas: str
    accord_side: Tally
    negmas_side: Tally

    @property
    def ratio(self) -> float:
        """What the team's aim (at least 50) is about."""
        return self.accord_side.per_second / self.negmas_side.per_second

    @property
    def ratio_per_round(self) -> float:
        """The ratio with the rounds played evened out: the same-named strategies do not
        always end at the same round."""
        return self.accord_side.rounds_per_second / self.negmas_side.rounds_per_second

    @property
    def cold_ratio(self) -> float:
        return self.negmas_side.cold_ms / self.accord_side.cold_ms

    def as_json(self) -> dict[str, Any]:
        def side(tally: Tally) -> dict[str, Any]:
            return {
                "negotiations": tally.negotiations,
                "seconds": round(tally.seconds, 4),
                "negotiations_per_second": round(tally.per_second, 2),
                "mean_rounds": round(tally.mean_rounds, 2),
                "agreement_rate": round(tally.agreement_rate, 4),
                "cold_ms": round(tally.cold_ms, 3),
            }

        return {
            "scenario": self.scenario,
            "issues": self.issues,
            "outcomes": self.outcomes,
            "strategy": self.strategy,
            "negmas_negotiator": self.negmas,
            "same_strategy": self.strategy not in REFERENCE_ONLY,
            "accord": side(self.accord_side),
            "negmas": side(self.negmas_side),
            "ratio": round(self.ratio, 3),
            "ratio_per_round": round(self.ratio_per_round, 3),
            "cold_ratio": round(self.cold_ratio, 3),
        }


def geometric_mean(values: Sequence[float]) -> float | None:
    """The mean that suits ratios (the mean of their logarithms); None for no values."""
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


@dataclass
class Summary:
    """Geometric means of a set of rows' ratios: a ratio's mean is its logs' mean."""

    label: str
    all: list[float] = field(default_factory=list)
    one_issue: list[float] = field(default_factory=list)
    multi_issue: list[float] = field(default_factory=list)
    cold: list[float] = field(default_factory=list)

    def add(self, row: Row) -> None:
        self.all.append(row.ratio)
        (self.one_issue if row.issues == 1 else self.multi_issue).append(row.ratio)
        self.cold.append(row.cold_ratio)

    def parts(self) -> dict[str, list[float]]:
        return {
            "all": self.all,
            "one_issue": self.one_issue,
            "multi_issue": self.multi_issue,
            "cold_all": self.cold,
        }

    def as_json(self) -> dict[str, Any]:
        def part(ratios: list[float]) -> dict[str, Any]:
            mean = geometric_mean(ratios)
            return {"rows": len(ratios), "geomean_ratio": None if mean is None else round(mean, 3)}

        return {"label": self.label} | {name: part(r) for name, r in self.parts().items()}


def load(paths: Sequence[Path], max_outcomes: int) -> tuple[list[Scenario], list[Skipped]]:
    """Every scenario under the paths, discounting removed; the too large ones skipped. With
    more than one path each name starts with its path's folder name (a path that is itself a
    scenario is named by it already)."""
    scenarios: list[Scenario] = []
    skipped: list[Skipped] = []
    for path in paths:
        found, passed = find_scenarios(path)
        prefix = f"{path.name}/" if len(paths) > 1 else ""
        skipped += [Skipped(prefix + s.path, s.reason) for s in passed]
        for scenario in found:
            count = scenario.domain.outcome_count
            if count > max_outcomes:
                reason = f"{count:,} outcomes, more than --max-outcomes {max_outcomes:,}"
                skipped.append(Skipped(prefix + scenario.name, reason))
            else:
                name = scenario.name if scenario.name == path.name else prefix + scenario.name
                scenarios.append(without_discount(replace(scenario, name=name)))
    return scenarios, skipped


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Negotiations per second: Accord's engine beside NegMAS 0.16's SAO "
        "mechanism, same scenarios, same-named strategies, one process."
    )
    parser.add_argument(
        "--scenarios",
        type=Path,
        action="append",
        help=f"a scenario folder tree or file; repeatable (default: {shown(DEFAULT_SCENARIOS)})",
    )
    parser.add_argument(
        "--strategies",
        default=",".join(COUNTERPARTS),
        help=f"comma separated, among {','.join(COUNTERPARTS)} (default: all)",
    )
    parser.add_argument("--rounds", type=int, default=100, help="R, rounds per negotiation")
    parser.add_argument(
        "--seconds", type=float, default=1.0, help="wall time per side, per scenario and strategy"
    )
    parser.add_argument("--max-outcomes", type=int, default=200_000, help="skip larger spaces")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.add_argument(
        "--negmas-venv",
        type=Path,
        default=DEFAULT_VENV,
        help=f"where NegMAS is installed when missing (default: {shown(DEFAULT_VENV)})",
    )
    args = parser.parse_args(argv)
    args.strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    unknown = [s for s in args.strategies if s not in COUNTERPARTS or s not in STRATEGIES]
    if unknown or not args.strategies:
        parser.error(f"unknown strategies {unknown}; choose among {','.join(COUNTERPARTS)}")
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds and --seconds must be positive")
    return args


COLUMNS = (
    ("scenario", "<", 8),
    ("iss", ">", 3),
    ("outcomes", ">", 8),
    ("strategy", "<", 8),
    ("accord n/s", ">", 10),
    ("negmas n/s", ">", 10),
    ("ratio", ">", 9),
    ("ratio/rnd", ">", 9),
    ("rounds A", ">", 8),
    ("rounds N", ">", 8),
    ("agree A", ">", 7),
    ("agree N", ">", 7),
    ("A cold ms", ">", 9),
    ("N cold ms", ">", 9),
    ("cold ratio", ">", 10),
)
"""Name, alignment and least width: rows are printed as they are measured."""


def cells(row: Row) -> list[str]:
    a, n = row.accord_side, row.negmas_side
    return [
        row.scenario,
        str(row.issues),
        f"{row.outcomes:,}",
        row.strategy + ("*" if row.strategy in REFERENCE_ONLY else ""),
        f"{a.per_second:,.1f}",
        f"{n.per_second:,.1f}",
        f"{row.ratio:,.1f}",
        f"{row.ratio_per_round:,.1f}",
        f"{a.mean_rounds:.1f}",
        f"{n.mean_rounds:.1f}",
        f"{a.agreement_rate:.2f}",
        f"{n.agreement_rate:.2f}",
        f"{a.cold_ms:,.2f}",
        f"{n.cold_ms:,.1f}",
        f"{row.cold_ratio:,.1f}",
    ]


def line(values: Sequence[str], widths: Sequence[int]) -> str:
    return "  ".join(
        f"{value:{align}{width}}"
        for value, width, (_, align, _) in zip(values, widths, COLUMNS, strict=True)
    ).rstrip()


def header(args: argparse.Namespace, checked: dict[str, int], version: str) -> list[str]:
    """What was measured and how, above the table: a number is only as good as its settings."""
    options = ", ".join(f"{k}={v}" for k, v in MECHANISM_SETTINGS.items())
    tolerance = f"{TOLERANCE:.0e}".replace("e-0", "e-")
    return [
        f"Accord engine vs NegMAS {version} SAO, R = {args.rounds}, one process "
        f"(Python {platform.python_version()}, {platform.machine()}).",
        f"NegMAS: SAOMechanism(n_steps={args.rounds}, {options}); extra_callbacks and the "
        "other options at their defaults, no time limit.",
        f"Timing: per row each side ≥ {args.seconds:g} s and ≥ {MIN_NEGOTIATIONS} negotiations, "
        f"in {SLICES} alternating slices; seed i for repetition i.",
        f"Utilities equal (within {tolerance}) in all {len(checked)} scenarios: "
        f"{sum(checked.values()):,} outcomes checked (all of each space up to "
        f"{EXACT_CHECK:,} outcomes, a sample above).",
        "Strategies: "
        + ", ".join(f"{s} = {COUNTERPARTS[s]}" for s in args.strategies)
        + "."
        + (
            " * accord's row is timed beside NegMAS's AspirationNegotiator, a DIFFERENT "
            "strategy: a reference, not a like-for-like ratio."
            if REFERENCE_ONLY & set(args.strategies)
            else ""
        ),
        "ratio = accord n/s ÷ negmas n/s; ratio/rnd = the same per round played (the sides "
        "may end at different rounds); A = Accord, N = NegMAS.",
        "The rates reuse each scenario's objects: Accord's profiles keep their caches "
        "(utilities, ranking, schedules), NegMAS's ufuns their cached inverse (its time-based "
        "negotiators still invert theirs in every negotiation). cold ms = one negotiation on "
        "objects made for it, nothing cached; cold ratio = N cold ms ÷ A cold ms.",
    ]


def summary_text(summaries: Sequence[Summary]) -> list[str]:
    def part(ratios: list[float]) -> str:
        mean = geometric_mean(ratios)
        return "—" if mean is None else f"{mean:,.1f}× ({len(ratios)})"

    width = max(len("geometric means"), *(len(s.label) for s in summaries))
    titles = ("ratio, all", "ratio, 1 issue", "ratio, >1 issue", "cold ratio, all")
    out = ["  ".join([f"{'geometric means':{width}}", *(f"{t:>16}" for t in titles)])]
    for s in summaries:
        parts = (part(r) for r in s.parts().values())
        out.append("  ".join([f"{s.label:{width}}", *(f"{p:>16}" for p in parts)]))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    ensure_negmas(args.negmas_venv, Path(__file__))
    began = time.perf_counter()
    paths: list[Path] = args.scenarios or [DEFAULT_SCENARIOS]
    scenarios, skipped = load(paths, args.max_outcomes)
    if not scenarios:
        sys.exit("no scenarios found")
    sides = {scenario.name: negmas_scenario(scenario) for scenario in scenarios}
    checked = {s.name: check_utilities(s, sides[s.name]) for s in scenarios}
    version = importlib.metadata.version("negmas")
    warm_up(min(scenarios, key=lambda s: s.domain.outcome_count), args.strategies, args.rounds)

    widths = [least for _, _, least in COLUMNS]
    widths[0] = max(widths[0], *(len(s.name) for s in scenarios))
    widths[3] = max(widths[3], *(len(s) + 1 for s in args.strategies))
    if not args.json:
        print("\n".join(header(args, checked, version)), end="\n\n")
        print(line([name for name, _, _ in COLUMNS], widths))
        print(line(["-" * w for w in widths], widths), flush=True)

    rows: list[Row] = []
    summaries = {s: Summary(s + ("*" if s in REFERENCE_ONLY else "")) for s in args.strategies}
    same = Summary("all same-named")
    while scenarios:  # popped, so that a finished scenario's caches can go
        scenario = scenarios.pop(0)
        side = sides.pop(scenario.name)
        for strategy in args.strategies:
            if args.json:
                print(f"{scenario.name}: {strategy}…", file=sys.stderr, flush=True)
            ours, theirs = measure(scenario, side, strategy, args.rounds, args.seconds)
            domain = scenario.domain
            row = Row(
                scenario.name,
                len(domain.issues),
                domain.outcome_count,
                strategy,
                COUNTERPARTS[strategy],
                ours,
                theirs,
            )
            rows.append(row)
            summaries[strategy].add(row)
            if strategy not in REFERENCE_ONLY:
                same.add(row)
            if not args.json:
                print(line(cells(row), widths), flush=True)
    total = time.perf_counter() - began
    several = len([s for s in args.strategies if s not in REFERENCE_ONLY]) > 1
    ordered = [*summaries.values(), *([same] if several else [])]

    if args.json:
        document = {
            "negmas_version": version,
            "python": platform.python_version(),
            "rounds": args.rounds,
            "seconds_per_side": args.seconds,
            "mechanism": {"n_steps": args.rounds, **MECHANISM_SETTINGS},
            "strategies": {s: COUNTERPARTS[s] for s in args.strategies},
            "reference_only": sorted(REFERENCE_ONLY & set(args.strategies)),
            "utilities_checked": checked,
            "rows": [row.as_json() for row in rows],
            "summary": [s.as_json() for s in ordered],
            "skipped": [{"path": s.path, "reason": s.reason} for s in skipped],
            "total_seconds": round(total, 1),
        }
        print(json.dumps(document, indent=2))
        return
    print()
    print("\n".join(summary_text(ordered)))
    if skipped:
        print(f"\nskipped {len(skipped)}:")
        for s in skipped:
            print(f"  {s.path}: {s.reason}")
    print(f"\n{len(rows)} rows in {total:.1f} s (loading, utility checks and cold runs included).")


if __name__ == "__main__":
    main()

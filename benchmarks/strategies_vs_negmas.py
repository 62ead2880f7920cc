"""Accord's strategies in NegMAS's own tournament, against NegMAS's negotiators and the ANAC
agents ported to it, on the bilateral ANAC domains: where the strategies rank in a field they
were not written for, scored by a tournament they did not write. The same numbers are set beside
Accord's own tournament (`accord bench tournament`'s `accord.agents.tournament.run`) on the same
domains, for the Accord-only negotiations: the two must agree within noise.

    .venv/bin/python benchmarks/strategies_vs_negmas.py --scenarios PATH [--jobs 2] [--json]
    .venv/bin/python benchmarks/strategies_vs_negmas.py --scenarios PATH --quick   # smoke test
    .venv/bin/python benchmarks/strategies_vs_negmas.py --scenarios PATH --versus accord:accord
    .venv/bin/python benchmarks/strategies_vs_negmas.py --scenarios PATH --end-bound

NegMAS and `negmas-genius-agents` are AGPL, so nothing under `accord/` imports them: on its
first run the script installs `negmas==0.16.0`, `negmas-genius-agents==0.3.0` and this checkout
(editable) into `benchmarks/.venv-negmas` and runs itself again with that environment's Python
(`negmas_env.py`, shared with `engine_vs_negmas.py`).

Each Accord strategy plays as `AccordNegotiator`, an `SAONegotiator` defined here whose view of
the negotiation is built from NegMAS's state alone: `state.step` and `state.relative_time`, the
offers it received, the deadline `nmi.n_steps`, and its own utility function, converted once to
Accord `Preferences`; never `private_info`, never the other side's utility function. NegMAS's
outcome space and utility functions are built from Accord's `Scenario` objects (the Genius rule,
not normalised again: `normalize_ufuns=False`) and checked equal to Accord's on every outcome;
each negotiation's agreement is then scored again by `accord.agents.metrics` and checked against
what NegMAS reports, and the field is ranked by Accord's metrics.
"""

import argparse
import contextlib
import importlib
import importlib.metadata
import importlib.util
import json
import math
import os
import platform
import sys
import time
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from negmas_env import DEFAULT_VENV, ensure_negmas, negmas_side, pip_install, shown

from accord.agents.domain import Domain, Issue
from accord.agents.engine import Randomness
from accord.agents.metrics import ScenarioStats, scenario_stats, score
from accord.agents.preferences import Preferences
from accord.agents.scenarios import Scenario, Skipped, find_scenarios, without_discount
from accord.agents.strategies import STRATEGIES, SeatView, Strategy
from accord.agents.strategies.accord import FINAL_ROUNDS
from accord.agents.strategies.base import EPSILON
from accord.agents.tournament import Discounting, Settings, summary
from accord.agents.tournament import run as accord_tournament

GENIUS_AGENTS = "negmas-genius-agents==0.3.0"
ANL_AGENTS = "anl-agents"
PREFIX = "accord:"
BOUND = "bound:accord"
"""`--end-bound`'s entrant (`EndBound`)."""
NEGMAS_FIELD = (
    "AspirationNegotiator",
    "BoulwareTBNegotiator",
    "LinearTBNegotiator",
    "ConcederTBNegotiator",
    "NaiveTitForTatNegotiator",
    "MiCRONegotiator",
)
"""NegMAS's own negotiators in the field (`negmas.sao`)."""
NAMED_ANAC = (
    "AgreeableAgent2018",
    "Seto",
    "MetaAgent2013",
    "TheFawkes",
    "Atlas3",
    "DoNA",
    "CUHKAgent",
    "HardHeaded",
    "AgentK",
    "AgentGG",
    "Caduceus",
    "PonPokoAgent",
)
"""ANAC winners and finalists the spec names; `--anac named` plays only these."""
QUICK_ANAC = ("HardHeaded", "AgentK", "Atlas3", "CUHKAgent")
QUICK_NEGMAS = ("AspirationNegotiator", "BoulwareTBNegotiator", "MiCRONegotiator")
QUICK_DOMAINS = 3
UTILITY_TOLERANCE = 1e-9
METRIC_TOLERANCE = 1e-6
TIE = 1e-12
"""NegMAS's `eps` in its bargaining solutions."""
SCREEN_MAX_OUTCOMES = 10_000
"""Screening plays on the two smallest multi-issue domains and the largest up to this size."""

if TYPE_CHECKING:
    _NegmasBase: Any
elif importlib.util.find_spec("negmas") is not None:
    _NegmasBase = importlib.import_module("negmas.sao").SAONegotiator
else:  # the project's own environment: the bridge is defined but never made
    _NegmasBase = object


# -- the bridge: an Accord strategy as a NegMAS negotiator ---------------------------------------


@dataclass(frozen=True)
class _Profile:
    """A NegMAS utility function as Accord sees it, with the map from NegMAS outcomes (tuples of
    values) to Accord outcome numbers and back."""

    preferences: Preferences
    indices: tuple[dict[Any, int], ...]
    """Per issue, value -> its index."""
    strides: tuple[int, ...]
    values: tuple[tuple[Any, ...], ...]
    """Per issue, the NegMAS values in order (an outcome is offered as the same objects)."""

    def number(self, outcome: Sequence[Any]) -> int:
        return sum(
            index[value] * stride
            for index, value, stride in zip(self.indices, outcome, self.strides, strict=True)
        )

    def outcome(self, number: int) -> tuple[Any, ...]:
        picked = self.preferences.domain.outcome_at(number)
        return tuple(values[i] for values, i in zip(self.values, picked, strict=True))


_PROFILES: dict[tuple[Any, ...], _Profile] = {}
"""Converted utility functions by content, kept for the process's life: a tournament gives
every negotiation a fresh copy of the same function, and a profile's caches (utilities, ladder,
schedules) are what makes a strategy's move cheap."""


def profile_of(ufun: Any) -> _Profile:
    """A linear additive utility function (possibly discounted) as Accord `Preferences`, made
    once per distinct function in a process. Nothing but the function itself is read."""
    preferences = importlib.import_module("negmas.preferences")
    base, discount = ufun, None
    if isinstance(ufun, preferences.ExpDiscountedUFun):
        base, discount = ufun.extract_base_ufun(deep=True), ufun.discount
    if not isinstance(base, preferences.LinearAdditiveUtilityFunction):
        raise TypeError(f"the bridge reads linear additive utility functions, not {type(base)}")
    issues = base.outcome_space.issues
    values = tuple(tuple(issue.values) for issue in issues)
    evaluations = tuple(
        tuple(float(fun(value)) for value in issue_values)
        for fun, issue_values in zip(base.values, values, strict=True)
    )
    weights = tuple(float(w) for w in base.weights)
    reservation = float(ufun.reserved_value)
    key = (
        tuple(issue.name for issue in issues),
        values,
        weights,
        evaluations,
        reservation,
        discount,
    )
    known = _PROFILES.get(key)
    if known is not None:
        return known
    domain = Domain(
        tuple(
            Issue(issue.name, tuple(str(v) for v in issue_values))
            for issue, issue_values in zip(issues, values, strict=True)
        )
    )
    sizes = domain.sizes
    strides = tuple(math.prod(sizes[i + 1 :]) for i in range(len(sizes)))
    profile = _Profile(
        Preferences(domain, weights, evaluations, reservation, discount, name=str(ufun.name)),
        tuple({value: i for i, value in enumerate(v)} for v in values),
        strides,
        values,
    )
    _PROFILES[key] = profile
    return profile


class _Seat:
    """One negotiation's Accord side: the strategy, its view, and the engine's turn rule
    (answer the offer on the table, then offer; offering the table's terms accepts them; a seat
    that no outcome brings up to its reservation walks away at its first turn)."""

    def __init__(self, ufun: Any, strategy: str, rounds: int, seed: int) -> None:
        self.profile = profile_of(ufun)
        prefs = self.profile.preferences
        self.view = SeatView(prefs, rounds)
        self.strategy: Strategy = STRATEGIES[strategy](prefs, rounds, Randomness(seed))
        self.hopeless = prefs.best < prefs.reservation

    def move(self, step: int, relative_time: float, offer: Sequence[Any] | None) -> Any:
        """('accept' | 'end' | 'offer', outcome or None)."""
        if self.hopeless:
            return "end", None
        view = self.view
        view.round, view.t = step, relative_time
        table = -1
        if offer is not None:
            table = self.profile.number(offer)
            view.received.append(table)
            answer = self.strategy.respond(view)
            if answer != "reject":
                return answer, None
        mine = self.strategy.propose(view)
        if mine == table:
            return "accept", None
        view.sent.append(mine)
        return "offer", self.profile.outcome(mine)


class AccordNegotiator(_NegmasBase):  # type: ignore[misc]  # NegMAS's SAONegotiator
    """An Accord strategy (`strategy`, a key of `STRATEGIES`) as a NegMAS SAO negotiator."""

    def __init__(self, *args: Any, strategy: str = "accord", seed: int = 0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.accord_strategy = strategy
        self.accord_seed = seed
        self._seat: _Seat | None = None

    def on_negotiation_start(self, state: Any) -> None:
        super().on_negotiation_start(state)
        self._seat = None

    def __call__(self, state: Any, dest: str | None = None) -> Any:
        sao = importlib.import_module("negmas.sao")
        seat = self._seat
        if seat is None:
            seat = self._seat = _Seat(
                self.ufun, self.accord_strategy, int(self.nmi.n_steps), self.accord_seed
            )
        kind, outcome = seat.move(state.step, state.relative_time, state.current_offer)
        if kind == "accept":
            return sao.SAOResponse(sao.ResponseType.ACCEPT_OFFER, state.current_offer)
        if kind == "end":
            return sao.SAOResponse(sao.ResponseType.END_NEGOTIATION, None)
        return sao.SAOResponse(sao.ResponseType.REJECT_OFFER, outcome)

    def propose(self, state: Any, dest: str | None = None) -> Any:
        """Unused by the mechanism (it calls the negotiator); NegMAS requires it."""
        return self(state, dest).outcome


class EndBound(AccordNegotiator):
    """Not a strategy but a bound (`--end-bound`): `accord` until its last `final_rounds`
    (`FINAL_ROUNDS` by default), and in them, with the other side's utility function in hand
    (read from the mechanism, which no strategy can do), it accepts any offer rational for
    itself and offers, of the outcomes rational for itself, the one best for the other side. No
    end game played from where `accord` stands agrees more often against the agents that decide
    by their own utility of the offer, so its agreement rate bounds what a better end game could
    add; with `final_rounds` the whole negotiation it is the most generous rational seat."""

    def __init__(self, *args: Any, final_rounds: int = FINAL_ROUNDS, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.final_rounds = final_rounds

    def __call__(self, state: Any, dest: str | None = None) -> Any:
        if state.step < self.nmi.n_steps - self.final_rounds:
            return super().__call__(state, dest)
        sao = importlib.import_module("negmas.sao")
        mine = profile_of(self.ufun)
        other = next(n for n in self.nmi._mechanism.negotiators if n is not self)
        theirs = profile_of(other.ufun)
        if theirs.values != mine.values:
            raise AssertionError("the two sides number the outcomes differently")
        prefs = mine.preferences
        rational = prefs.utilities >= prefs.reservation - EPSILON
        if not rational.any():
            return sao.SAOResponse(sao.ResponseType.END_NEGOTIATION, None)
        offer = state.current_offer
        if offer is not None and rational[mine.number(offer)]:
            return sao.SAOResponse(sao.ResponseType.ACCEPT_OFFER, offer)
        liked = np.where(rational, theirs.preferences.utilities, -np.inf)
        best = np.flatnonzero(liked == liked.max())  # of their ties, the best for it
        choice = int(best[np.argmax(prefs.utilities[best])])
        return sao.SAOResponse(sao.ResponseType.REJECT_OFFER, mine.outcome(choice))


# -- NegMAS's side of a scenario ------------------------------------------------------------------


def negmas_scenario(scenario: Scenario, tag: str) -> Any:
    """NegMAS's scenario made from Accord's issues, weights and evaluations (values are the
    issues' strings on both sides), discounted as Genius does when the profile is."""
    inout = importlib.import_module("negmas.inout")
    space, ufuns = negmas_side(scenario, name=tag, discounted=True)
    return inout.Scenario(outcome_space=space, ufuns=tuple(ufuns))


def check_utilities(scenario: Scenario, side: Any) -> int:
    """Raise unless NegMAS's (undiscounted) utility equals Accord's on every outcome and the
    reserved values agree; the number of outcomes checked."""
    domain = scenario.domain
    count = 0
    for profile, ufun in zip(scenario.profiles, side.ufuns, strict=True):
        base = ufun.extract_base_ufun(deep=True) if hasattr(ufun, "extract_base_ufun") else ufun
        if abs(float(ufun.reserved_value) - profile.reservation) > UTILITY_TOLERANCE:
            raise AssertionError(f"{scenario.name}: reserved values differ")
        ours = profile.utility_list
        for outcome in side.outcome_space.enumerate():
            number = domain.number_of(domain.outcome_of(list(outcome)))
            theirs = float(base(outcome))
            if not abs(ours[number] - theirs) <= UTILITY_TOLERANCE:
                raise AssertionError(
                    f"{scenario.name}: {list(outcome)} is worth {ours[number]} to "
                    f"{profile.name or 'a profile'} in Accord and {theirs} in NegMAS"
                )
            count += 1
    return count // 2


# -- the field ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entrant:
    name: str
    kind: Any
    """The negotiator class."""
    params: dict[str, Any]
    group: str
    """`accord`, `negmas`, `anac20xx` or `anl`."""


def accord_entrants(end_bound: int | None = None) -> list[Entrant]:
    """Accord's six strategies; with `end_bound` (its final rounds), `EndBound` in the place
    of `accord`."""
    entrants = [
        Entrant(PREFIX + name, AccordNegotiator, {"strategy": name}, "accord")
        for name in STRATEGIES
    ]
    if end_bound is not None:
        settings = {"strategy": "accord", "final_rounds": end_bound}
        bound = Entrant(BOUND, EndBound, settings, "bound")
        entrants = [bound if e.name == PREFIX + "accord" else e for e in entrants]
    return entrants


def negmas_entrants(names: Iterable[str]) -> list[Entrant]:
    sao = importlib.import_module("negmas.sao")
    return [Entrant(name, getattr(sao, name), {}, "negmas") for name in names]


def anac_entrants(selection: str) -> list[Entrant]:
    """`all` (every ANAC agent the package ports, 2010 to 2019), `named`, `none` or a comma
    separated list of class names."""
    if selection == "none":
        return []
    genius = importlib.import_module("negmas_genius_agents")
    found: dict[str, Entrant] = {}
    for year in range(2010, 2020):
        group = f"anac{year}"
        for kind in genius.get_agents(group=group, category="all"):
            found.setdefault(kind.__name__, Entrant(kind.__name__, kind, {}, group))
    if selection == "all":
        return list(found.values())
    wanted = NAMED_ANAC if selection == "named" else tuple(selection.split(","))
    unknown = [name for name in wanted if name not in found]
    if unknown:
        sys.exit(f"not ported by {GENIUS_AGENTS}: {', '.join(unknown)}")
    return [found[name] for name in wanted]


def anl_entrants() -> tuple[list[Entrant], list[dict[str, str]]]:
    """ANL agents, installed into this (the benchmark's) environment on demand; when they do
    not install or import, nothing, and the reason."""
    failure = pip_install(ANL_AGENTS)
    if failure is not None:
        return [], [{"name": "anl-agents (all)", "reason": f"pip install failed: {failure}"}]
    try:
        anl = importlib.import_module("anl_agents")
        kinds = list(anl.get_agents(2024, as_class=True))  # 2025's are multi-deal agents
    except Exception as error:
        return [], [{"name": "anl-agents (all)", "reason": f"does not load: {error!r}"[:300]}]
    return [Entrant(kind.__name__, kind, {}, "anl") for kind in kinds], []


def quiet() -> None:
    """NegMAS warns freely (slow Pareto sweeps, agents' own warnings); none of it is ours."""
    warnings.filterwarnings("ignore")
    os.environ.setdefault("PYTHONWARNINGS", "ignore")


def tournament(
    entrants: Sequence[Entrant],
    scenarios: Sequence[Any],
    *,
    rounds: int,
    discounting: Discounting,
    jobs: int,
    timeout: float | None,
    opponents: Sequence[Entrant] = (),
) -> Any:
    """NegMAS's `cartesian_tournament` as the spec asks for it, kept in memory (no path)."""
    cartesian = importlib.import_module("negmas.tournaments.neg.simple.cartesian")
    extra: dict[str, Any] = {}
    if opponents:
        extra = {
            "opponents": [e.kind for e in opponents],
            "opponent_params": [e.params for e in opponents],
            "opponent_names": [e.name for e in opponents],
        }
    with contextlib.redirect_stdout(sys.stderr):  # its progress bar, whatever `verbosity` says
        return cartesian.cartesian_tournament(
            competitors=[e.kind for e in entrants],
            competitor_params=[e.params for e in entrants],
            competitor_names=[e.name for e in entrants],
            scenarios=list(scenarios),
            n_steps=rounds,
            rotate_ufuns=True,
            self_play=True,
            final_score=("advantage", "mean"),
            ignore_discount=discounting == "remove",
            normalize_ufuns=False,
            njobs=jobs if jobs > 1 else -1,
            external_timeout=timeout,
            raise_exceptions=False,
            verbosity=0,
            path=None,
            randomize_runs=False,
            save_scenario_figs=False,
            **extra,
        )


def _killed(record: Mapping[str, Any], rounds: int) -> bool:
    """Ended by the per-negotiation wall-clock limit (`external_timeout`): recorded as timed
    out before its deadline."""
    return bool(record["timedout"]) and record["agreement"] is None and record["step"] < rounds


def _culprit(record: Mapping[str, Any]) -> int | None:
    """The seat whose negotiator raised, if one did."""
    if not record["has_error"] or not record["erred_negotiator"]:
        return None
    ids = list(record["negotiator_ids"])
    return ids.index(record["erred_negotiator"]) if record["erred_negotiator"] in ids else None


def _last_error(details: Any) -> str:
    """The exception line of NegMAS's recorded traceback (a list of strings, or its repr)."""
    text = "\n".join(details) if isinstance(details, list) else str(details)
    text = text.replace("\\n", "\n")
    lines = [line.strip(" '\"[],") for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith(("File ", "^", "~"))]
    if not lines:
        return "?"
    if ":" not in lines[-1] and len(lines) > 1:  # a bare `AssertionError`: show its assert
        return f"{lines[-1]} at `{lines[-2]}`"[:160]
    return lines[-1][:160]


def screen(
    candidates: Sequence[Entrant],
    scenarios: Sequence[Scenario],
    args: argparse.Namespace,
) -> tuple[list[Entrant], list[dict[str, str]]]:
    """Each candidate against AspirationNegotiator on a few domains, both sides, each
    negotiation limited to `--timeout` seconds: the ones that raise, hang or cannot be made are
    left out, with the reason."""
    if not candidates:
        return [], []
    several = sorted(
        (s for s in scenarios if len(s.domain.issues) > 1), key=lambda s: s.domain.outcome_count
    )
    picked = (
        several[:2]
        + [s for s in reversed(several[2:]) if s.domain.outcome_count <= SCREEN_MAX_OUTCOMES][:1]
    )
    sides = [negmas_scenario(s, f"screen{i}") for i, s in enumerate(picked or scenarios[:1])]
    results = tournament(
        candidates,
        sides,
        rounds=args.rounds,
        discounting=args.discounting,
        jobs=args.jobs,
        timeout=args.timeout,
        opponents=negmas_entrants(["AspirationNegotiator"]),
    )
    problems: dict[str, list[str]] = defaultdict(list)
    played: dict[str, int] = defaultdict(int)
    for record in results.details.to_dict("records"):
        names = list(record["partners"])
        for name in names:
            played[name] += 1
        culprit = _culprit(record)
        if culprit is not None:
            problems[names[culprit]].append("crashed: " + _last_error(record["error_details"]))
        elif _killed(record, args.rounds):
            for name in names:
                if name != "AspirationNegotiator":
                    problems[name].append(f"timed out (over {args.timeout:g} s a negotiation)")
    kept, left = [], []
    for entrant in candidates:
        reasons = problems.get(entrant.name) or (
            [] if played[entrant.name] else ["never played (could not be made)"]
        )
        if reasons:
            left.append({"name": entrant.name, "reason": f"{reasons[0]} ({len(reasons)}×)"})
        else:
            kept.append(entrant)
    return kept, left


# -- scoring each NegMAS negotiation again with Accord's metrics -----------------------------------

COMPARED = (
    "utilities",
    "advantage",
    "welfare",
    "pareto_optimality",
    "nash_optimality",
    "kalai_optimality",
    "ks_optimality",
    "max_welfare_optimality",
)
BASELINE = frozenset({"nash_optimality", "kalai_optimality", "ks_optimality"})
"""NegMAS measures these from max(r, u_min) where Accord (spec/agents.md) uses r."""


@dataclass
class Check:
    """One metric's comparison over every negotiation."""

    compared: int = 0
    equal: int = 0
    explained: int = 0
    """Different, where NegMAS's definition is known to differ from Accord's."""
    max_difference: float = 0.0
    max_explained: float = 0.0
    failed: int = 0
    """Negotiations that raised or were stopped: not compared."""
    unexplained: list[str] = field(default_factory=list)

    def add(self, difference: float, explained: bool, where: str) -> None:
        self.compared += 1
        if difference <= METRIC_TOLERANCE:
            self.equal += 1
            self.max_difference = max(self.max_difference, difference)
        elif explained:
            self.explained += 1
            self.max_explained = max(self.max_explained, difference)
        else:
            self.unexplained.append(f"{where}: differs by {difference:.3g}")

    def as_json(self) -> dict[str, Any]:
        return {
            "compared": self.compared,
            "not_compared_failed": self.failed,
            "equal": self.equal,
            "differ_explained": self.explained,
            "differ_unexplained": len(self.unexplained),
            "max_difference_when_equal": self.max_difference,
            "max_explained_difference": self.max_explained,
            "unexplained_examples": self.unexplained[:5],
        }


def _number(value: Any) -> float | None:
    """NegMAS writes an undefined metric as NaN, Accord as None."""
    if value is None:
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _difference(ours: float | None, theirs: float | None) -> float:
    if ours is None or theirs is None:
        return 0.0 if ours is None and theirs is None else math.inf
    return abs(ours - theirs)


@dataclass
class Seats:
    """Per entrant, the negotiations it failed in (raised in, or was stopped in)."""

    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    killed: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def rescore(
    scenario: Scenario,
    stats: ScenarioStats,
    details: Sequence[dict[str, Any]],
    rounds: int,
    discounting: Discounting,
    checks: dict[str, Check],
    seats: Seats,
) -> list[dict[str, Any]]:
    """Each NegMAS negotiation as a row of Accord's tournament document (`strategies` by
    profile, `first` the profile that moved first), scored by `accord.agents.metrics`, after
    checking NegMAS's own numbers for it against Accord's (undiscounted: NegMAS records a
    discounted function's value outside any state, which is its base value)."""
    make_scores = importlib.import_module("negmas.tournaments.neg.simple.cartesian").make_scores
    domain = scenario.domain
    base_gap = tuple(
        stats.reservations[i] < stats.worst[i] - TIE and stats.best[i] - stats.reservations[i] > TIE
        for i in (0, 1)
    )
    rows = []
    for record in details:
        rotated = str(record["scenario"]).endswith("-1")
        order = (1, 0) if rotated else (0, 1)  # order[i]: the profile seat i holds
        names = list(record["partners"])
        holders = [names[order.index(0)], names[order.index(1)]]
        culprit = _culprit(record)
        if culprit is not None:
            seats.errors[names[culprit]] += 1
        failed = bool(record["has_error"]) or _killed(record, rounds)
        if _killed(record, rounds):
            for name in set(names):
                seats.killed[name] += 1
        agreement = record["agreement"]
        outcome = None if agreement is None else domain.outcome_of([str(v) for v in agreement])
        ours = score(stats, outcome, *scenario.profiles)
        theirs = make_scores(record)
        where = f"{scenario.name} {names[0]} vs {names[1]}{' (rotated)' if rotated else ''}"
        if failed:  # no metrics of NegMAS's to compare: scored by Accord as a disagreement
            checks["utilities"].failed += 1
        elif outcome is not None:  # a disagreement's utilities are the reserved values both ways
            for seat, profile in enumerate(order):
                checks["utilities"].add(
                    _difference(ours["utilities"][profile], float(record["utilities"][seat])),
                    False,
                    where,
                )
        for seat, profile in enumerate(order if not failed else ()):
            checks["advantage"].add(
                _difference(ours["advantages"][profile], float(theirs[seat]["advantage"])),
                False,
                where,
            )
        if not failed:
            checks["welfare"].add(
                _difference(ours["welfare"], 2 * float(theirs[0]["welfare"])), False, where
            )
        for metric in COMPARED[3:] if not failed else ():
            explained = metric in BASELINE and any(base_gap)
            checks[metric].add(
                _difference(ours[metric], _number(record.get(metric))), explained, where
            )
        if discounting == "honour":  # as Accord's tournament scores it: u·d^t, t its last round's
            begun = min(int(record["step"]), rounds) / (rounds + 1)
            factors = [1.0 if p.discount is None else p.discount**begun for p in scenario.profiles]
            for key in ("utilities", "advantages"):
                ours[key] = [value * f for value, f in zip(ours[key], factors, strict=True)]
            ours["welfare"] = sum(ours["utilities"])
        rows.append(
            {
                "scenario": scenario.name,
                "repetition": 0,
                "strategies": holders,
                "first": order[0],
                "agreement": None if outcome is None else domain.values_of(outcome),
                "rounds": int(record["step"]),
                "end": "agreement" if outcome is not None else "other",
                **{k: v for k, v in ours.items() if k != "surpluses"},
                "negmas_advantages": [float(theirs[order.index(p)]["advantage"]) for p in (0, 1)],
            }
        )
    return rows


# -- the run ------------------------------------------------------------------------------------


def load(
    paths: Sequence[Path], max_outcomes: int, discounting: Discounting, only: Sequence[str]
) -> tuple[list[Scenario], list[Skipped]]:
    """Every bilateral scenario under the paths up to `max_outcomes` (and, with `--only`,
    whose name holds one of the given strings), smallest first."""
    scenarios: list[Scenario] = []
    skipped: list[Skipped] = []
    for path in paths:
        found, passed = find_scenarios(path)
        prefix = f"{path.name}/" if len(paths) > 1 else ""
        skipped += [Skipped(prefix + s.path, s.reason) for s in passed]
        for scenario in found:
            name = scenario.name if scenario.name == path.name else prefix + scenario.name
            count = scenario.domain.outcome_count
            if only and not any(part in name for part in only):
                continue
            if count > max_outcomes:
                reason = f"{count:,} outcomes, more than --max-outcomes {max_outcomes:,}"
                skipped.append(Skipped(name, reason))
                continue
            scenario = replace(scenario, name=name)
            scenarios.append(without_discount(scenario) if discounting == "remove" else scenario)
    scenarios.sort(key=lambda s: (s.domain.outcome_count, s.name))
    return scenarios, skipped


def quick_pick(scenarios: Sequence[Scenario]) -> list[Scenario]:
    """A few small domains of more than one issue (all of them when there are none)."""
    several = [s for s in scenarios if len(s.domain.issues) > 1]
    return list((several or list(scenarios))[:QUICK_DOMAINS])


def versus(rows: Sequence[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """`name`'s mean advantage against each other entrant (both profiles, both orders), and
    the other's against it, best for `name` first."""
    mine: dict[str, list[float]] = defaultdict(list)
    theirs: dict[str, list[float]] = defaultdict(list)
    agreed: dict[str, int] = defaultdict(int)
    for row in rows:
        holders = row["strategies"]
        for side in (0, 1):
            other = holders[1 - side]
            if holders[side] == name and other != name:
                mine[other].append(row["advantages"][side])
                theirs[other].append(row["advantages"][1 - side])
                agreed[other] += row["agreement"] is not None
    lines = [
        {
            "opponent": other,
            "negotiations": len(values),
            "advantage": sum(values) / len(values),
            "opponent_advantage": sum(theirs[other]) / len(values),
            "agreement_rate": agreed[other] / len(values),
        }
        for other, values in mine.items()
    ]
    return sorted(lines, key=lambda line: -line["advantage"])


def gains_exist(stats: ScenarioStats) -> bool:
    """Some outcome gives both sides more than their reservation. The spec's zone of agreement
    asks only `u ≥ r`: on FiftyFifty its one rational split is worth each side's reservation
    exactly, an agreement there no better than none."""
    return bool((stats.frontier > np.asarray(stats.reservations) + TIE).all(axis=1).any())


class Ceiling(NamedTuple):
    agreed: int
    seats: int


def field_ceiling(rows: Sequence[dict[str, Any]], name: str, zoa: Mapping[str, bool]) -> Ceiling:
    """Of `name`'s seats where a zone exists, how many were agreed by it or by some entrant
    holding the same seat of the same negotiation (scenario, repetition, opener, opponent)
    without an agreement below its own reservation; and how many there are. What the field
    shows can be reached, negotiation by negotiation, by a rational seat."""
    reached: dict[tuple[Any, ...], bool] = defaultdict(bool)
    seats: list[tuple[Any, ...]] = []
    for row in rows:
        if not zoa[row["scenario"]]:
            continue
        for side in (0, 1):
            cell = (
                row["scenario"],
                row["repetition"],
                row["first"],
                side,
                row["strategies"][1 - side],
            )
            agreed = row["agreement"] is not None and row["advantages"][side] >= -TIE
            reached[cell] |= agreed
            if row["strategies"][side] == name:
                seats.append(cell)
    return Ceiling(sum(reached[cell] for cell in seats), len(seats))


def negmas_means(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """NegMAS's own final score (mean `advantage` over every seat, `make_scores`'s definition),
    aggregated over the per-domain tournaments as one tournament would."""
    seats: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        for side, name in enumerate(row["strategies"]):
            seats[name].append(row["negmas_advantages"][side])
    return {name: sum(v) / len(v) for name, v in seats.items()}


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Accord's strategies in NegMAS 0.16's cartesian tournament against NegMAS's "
        "negotiators and the ported ANAC agents, scored again by Accord's metrics."
    )
    parser.add_argument("--scenarios", type=Path, action="append", required=True, help="repeatable")
    parser.add_argument("--rounds", type=int, default=100, help="R, rounds per negotiation")
    parser.add_argument("--max-outcomes", type=int, default=200_000, help="skip larger spaces")
    parser.add_argument("--discounting", choices=("remove", "honour"), default="remove")
    parser.add_argument(
        "--anac",
        default=None,
        help="ANAC agents in the field: all (the default; --quick: four of them), named, none, "
        "or Name,Name,…",
    )
    parser.add_argument("--with-anl", action="store_true", help="try to add the ANL agents")
    parser.add_argument(
        "--only", action="append", default=[], help="only domains whose name holds this"
    )
    parser.add_argument("--quick", action="store_true", help="a few domains, a small field")
    parser.add_argument(
        "--domains", type=int, default=None, metavar="N", help="only the N smallest domains"
    )
    parser.add_argument("--jobs", type=int, default=1, help="NegMAS's njobs (default serial)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        help="seconds a negotiation may take before it is stopped (NegMAS's external_timeout)",
    )
    parser.add_argument(
        "--time-budget",
        type=float,
        default=None,
        help="start no new domain after this many seconds; the rest are listed as not run",
    )
    parser.add_argument("--no-screen", action="store_true", help="keep every agent unscreened")
    parser.add_argument("--no-engine", action="store_true", help="skip Accord's own tournament")
    parser.add_argument(
        "--versus",
        metavar="NAME",
        help="only the negotiations NAME (e.g. accord:accord) takes part in, against every "
        "entrant in both seat orders: its own row and its advantage against each opponent, "
        "in about 2/N of the time; the other rows would be partial and are not printed; "
        "implies --no-engine",
    )
    parser.add_argument(
        "--end-bound",
        type=int,
        nargs="?",
        const=FINAL_ROUNDS,
        metavar="N",
        help=f"{BOUND} in the place of {PREFIX}accord, playing it but for its last N rounds "
        f"({FINAL_ROUNDS} when N is not given), where it reads the other side's utility "
        "function: how much agreement any end game could add (N = --rounds: the most generous "
        f"rational seat); implies --versus {BOUND}",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.add_argument(
        "--negmas-venv",
        type=Path,
        default=DEFAULT_VENV,
        help=f"where NegMAS is installed when missing (default: {shown(DEFAULT_VENV)})",
    )
    args = parser.parse_args(argv)
    if args.end_bound is not None:
        if not 1 <= args.end_bound <= args.rounds:
            parser.error(f"--end-bound takes 1 to --rounds ({args.rounds}) final rounds")
        if args.versus not in (None, BOUND):
            parser.error(f"--end-bound plays only {BOUND}'s negotiations: drop --versus")
        args.versus = BOUND
    if args.rounds < 1 or args.jobs < 1 or args.timeout <= 0 or (args.domains or 1) < 1:
        parser.error("--rounds, --jobs, --timeout and --domains must be positive")
    return args


def played_on(side: Any, entrants: Sequence[Entrant], args: argparse.Namespace) -> list[Any]:
    """One domain's negotiations as NegMAS records them: the whole field, or with `--versus`
    only the focus's (it against every entrant, then every other entrant against it, so that
    each pair plays in both seat orders as in the whole tournament, self-play once)."""

    def run(entrants: Sequence[Entrant], opponents: Sequence[Entrant] = ()) -> list[Any]:
        results = tournament(
            entrants,
            [side],
            rounds=args.rounds,
            discounting=args.discounting,
            jobs=args.jobs,
            timeout=args.timeout,
            opponents=opponents,
        )
        records: list[Any] = results.details.to_dict("records")
        return records

    if not args.versus:
        return run(entrants)
    focus = [e for e in entrants if e.name == args.versus]
    others = [e for e in entrants if e.name != args.versus]
    return run(focus, entrants) + run(others, focus)


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def field_table(
    table: Sequence[dict[str, Any]], negmas_advantage: Mapping[str, float], seats: Seats
) -> list[str]:
    def cell(value: float | None, digits: int = 3) -> str:
        return "—" if value is None else f"{value:.{digits}f}"

    width = max(len("strategy"), *(len(r["strategy"]) for r in table))
    head = (
        f"{'#':>3}  {'strategy':<{width}}  {'adv':>6}  {'adv −self':>9}  {'agree':>6}  "
        f"{'agree zoa':>9}  {'agree gain':>10}  {'nash':>6}  {'pareto':>6}  {'irrat':>5}  "
        f"{'negs':>6}  "
        f"{'N adv':>6}  {'err':>4}  {'stop':>4}"
    )
    out = [head, "-" * len(head)]
    for rank, r in enumerate(table, 1):
        name = r["strategy"]
        out.append(
            f"{rank:>3}  {name:<{width}}  {cell(r['advantage']):>6}  "
            f"{cell(r['advantage_excluding_self_play']):>9}  {cell(r['agreement_rate']):>6}  "
            f"{cell(r['agreement_rate_zoa']):>9}  {cell(r['agreement_rate_gain']):>10}  "
            f"{cell(r['nash_optimality']):>6}  {cell(r['pareto_optimality']):>6}  "
            f"{r['irrational_agreements']:>5}  "
            f"{r['negotiations']:>6}  {cell(negmas_advantage.get(name)):>6}  "
            f"{seats.errors.get(name, 0):>4}  {seats.killed.get(name, 0):>4}"
        )
    return out


def with_counts(
    table: list[dict[str, Any]], rows: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Adds each strategy's count of negotiations (a self-play one counted once)."""
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        for name in set(row["strategies"]):
            counts[name] += 1
    return [r | {"negotiations": counts[r["strategy"]]} for r in table]


SUMMARY_COLUMNS = (
    "advantage",
    "advantage_excluding_self_play",
    "agreement_rate",
    "nash_optimality",
    "pareto_optimality",
)
"""The summary columns the NegMAS run and Accord's own tournament are compared on."""


def engine_comparison(
    scenarios: Sequence[Scenario],
    rows: Sequence[dict[str, Any]],
    args: argparse.Namespace,
) -> list[dict[str, Any]]:
    """Accord's own tournament of its six strategies on the same domains and rounds, beside the
    NegMAS run's negotiations among the same six (bridged)."""
    settings = Settings(
        strategies=tuple(STRATEGIES), rounds=args.rounds, discounting=args.discounting
    )
    document = accord_tournament(scenarios, settings, jobs=args.jobs)
    engine = {r["strategy"]: r for r in document["summary"]}
    ours = [r for r in rows if all(n.startswith(PREFIX) for n in r["strategies"])]
    zoa = {d["name"]: d["zoa"] for d in document["scenarios"]}
    bridged = {r["strategy"]: r for r in summary(ours, [PREFIX + s for s in STRATEGIES], zoa)}
    keys = (*SUMMARY_COLUMNS, "seats")
    return [
        {
            "strategy": name,
            "negmas": {k: bridged[PREFIX + name][k] for k in keys},
            "engine": {k: engine[name][k] for k in keys},
        }
        for name in STRATEGIES
    ]


def engine_text(comparison: Sequence[dict[str, Any]]) -> list[str]:
    def pair(row: dict[str, Any], key: str) -> str:
        n, e = row["negmas"][key], row["engine"][key]
        if n is None or e is None:
            return f"{'—':>15}"
        return f"{n:>7.3f} {e:>7.3f}"

    titles = ("adv", "adv −self", "agree", "nash", "pareto")
    out = [
        f"{'strategy':<12}  " + "  ".join(f"{t + ' N / A':>15}" for t in titles) + "  seats N / A"
    ]
    for row in comparison:
        cells = "  ".join(pair(row, key) for key in SUMMARY_COLUMNS)
        out.append(
            f"{row['strategy']:<12}  {cells}  {row['negmas']['seats']} / {row['engine']['seats']}"
        )
    return out


EXPLANATIONS = {
    "nash_optimality": "NegMAS measures the Nash product from max(r, u_min) per side, Accord "
    "from r: they differ only where a reservation lies below that side's worst outcome",
    "kalai_optimality": "the same baseline, max(r, u_min) against r",
    "ks_optimality": "the same baseline, max(r, u_min) against r",
    "welfare": "NegMAS reports the mean utility, Accord the sum: compared as 2 × NegMAS's",
}


def main(argv: Sequence[str] | None = None) -> None:
    args = parse(argv)
    ensure_negmas(args.negmas_venv, Path(__file__), extra=[(GENIUS_AGENTS, "negmas_genius_agents")])
    quiet()
    began = time.perf_counter()
    scenarios, skipped = load(args.scenarios, args.max_outcomes, args.discounting, args.only)
    if args.quick:
        scenarios = quick_pick(scenarios)
    if args.domains is not None:
        scenarios = scenarios[: args.domains]
    if not scenarios:
        sys.exit("no scenarios found")

    left_out: list[dict[str, str]] = []
    anac = anac_entrants(args.anac or (",".join(QUICK_ANAC) if args.quick else "all"))
    anl: list[Entrant] = []
    if args.with_anl:
        anl, failed = anl_entrants()
        left_out += failed
    candidates = anac + anl
    screen_seconds = 0.0
    if candidates and not args.no_screen:
        say(f"screening {len(candidates)} agents (each against AspirationNegotiator)…")
        start = time.perf_counter()
        kept, dropped = screen(candidates, scenarios, args)
        screen_seconds = time.perf_counter() - start
        left_out += dropped
        candidates = kept
    entrants = [
        *accord_entrants(args.end_bound),
        *negmas_entrants(QUICK_NEGMAS if args.quick else NEGMAS_FIELD),
        *candidates,
    ]
    say(f"field of {len(entrants)}; {len(scenarios)} domains, smallest first")
    focus = args.versus or PREFIX + "accord"
    if focus not in (e.name for e in entrants):
        sys.exit(f"--versus {focus}: not in the field ({', '.join(e.name for e in entrants)})")

    checks = {metric: Check() for metric in COMPARED}
    seats = Seats()
    rows: list[dict[str, Any]] = []
    checked: dict[str, int] = {}
    timings: list[dict[str, Any]] = []
    played: list[Scenario] = []
    measured: dict[str, ScenarioStats] = {}
    not_run: list[str] = []
    for index, scenario in enumerate(scenarios):
        spent = time.perf_counter() - began
        if args.time_budget is not None and spent > args.time_budget:
            not_run = [s.name for s in scenarios[index:]]
            say(f"time budget spent: {len(not_run)} domains not run")
            break
        start = time.perf_counter()
        side = negmas_scenario(scenario, f"d{index}")
        checked[scenario.name] = check_utilities(scenario, side)
        stats = measured[scenario.name] = scenario_stats(*scenario.profiles)
        details = played_on(side, entrants, args)
        rows += rescore(scenario, stats, details, args.rounds, args.discounting, checks, seats)
        played.append(scenario)
        seconds = time.perf_counter() - start
        timings.append(
            {
                "scenario": scenario.name,
                "outcomes": scenario.domain.outcome_count,
                "negotiations": len(details),
                "seconds": round(seconds, 1),
            }
        )
        say(
            f"[{index + 1}/{len(scenarios)}] {scenario.name}: "
            f"{scenario.domain.outcome_count:,} outcomes, {len(details)} negotiations, "
            f"{seconds:.1f} s"
        )
        if any(check.unexplained for check in checks.values()):
            not_run = [s.name for s in scenarios[index + 1 :]]
            say("NegMAS and Accord disagree on a metric: no further domains")
            break
    tournament_seconds = time.perf_counter() - began - screen_seconds

    zoa = {name: stat.has_zoa for name, stat in measured.items()}
    gains = {name: gains_exist(stat) for name, stat in measured.items()}
    names = [e.name for e in entrants]
    by_gain = {r["strategy"]: r["agreement_rate_zoa"] for r in summary(rows, names, gains)}
    table = [
        r | {"agreement_rate_gain": by_gain[r["strategy"]]}
        for r in with_counts(summary(rows, names, zoa), rows)
    ]
    # with --versus the other entrants' negotiations against one another were not played
    ceiling = None if args.versus else field_ceiling(rows, focus, zoa)
    if args.versus:  # the others' rows hold only their negotiations against it
        table = [r for r in table if r["strategy"] == focus]
    negmas_advantage = negmas_means(rows)
    against = versus(rows, focus)
    comparison: list[dict[str, Any]] = []
    engine_seconds = 0.0
    if not (args.no_engine or args.versus) and played:
        start = time.perf_counter()
        comparison = engine_comparison(played, rows, args)
        engine_seconds = time.perf_counter() - start
    total = time.perf_counter() - began
    versions = {
        "negmas": importlib.metadata.version("negmas"),
        "negmas_genius_agents": importlib.metadata.version("negmas-genius-agents"),
    }

    if args.json:
        document = {
            "versions": versions,
            "python": platform.python_version(),
            "settings": {
                "rounds": args.rounds,
                "discounting": args.discounting,
                "max_outcomes": args.max_outcomes,
                "jobs": args.jobs,
                "timeout": args.timeout,
                "quick": args.quick,
                "versus": args.versus,
            },
            "field": [{"name": e.name, "group": e.group} for e in entrants],
            "left_out": left_out,
            "scenarios": [s.name for s in played],
            "not_run": not_run,
            "skipped": [{"path": s.path, "reason": s.reason} for s in skipped],
            "utilities_checked": checked,
            "metric_checks": {m: c.as_json() for m, c in checks.items()},
            "explanations": EXPLANATIONS,
            "table": [r | {"negmas_advantage": negmas_advantage.get(r["strategy"])} for r in table],
            "errors": dict(seats.errors),
            "stopped": dict(seats.killed),
            "accord_vs_opponents": against,
            "field_ceiling": None if ceiling is None else ceiling._asdict(),
            "engine_comparison": comparison,
            "timings": timings,
            "seconds": {
                "screening": round(screen_seconds, 1),
                "tournament": round(tournament_seconds, 1),
                "engine": round(engine_seconds, 1),
                "total": round(total, 1),
            },
        }
        print(json.dumps(document, indent=2))
        fail_if_unexplained(checks)
        return

    print(
        f"NegMAS {versions['negmas']} cartesian_tournament(n_steps={args.rounds}, "
        "rotate_ufuns=True, self_play=True, final_score=('advantage', 'mean'), "
        f"ignore_discount={args.discounting == 'remove'}, normalize_ufuns=False), one call per "
        f"domain; negmas-genius-agents {versions['negmas_genius_agents']}; Python "
        f"{platform.python_version()}."
    )
    print(
        f"{len(played)} domains ({sum(checked.values()):,} outcomes, utilities equal within "
        f"{UTILITY_TOLERANCE:g} on every one); field of {len(entrants)}; "
        f"{len(rows):,} negotiations."
    )
    print(
        "Ranked by Accord's metrics (accord.agents.tournament.summary, every seat held): "
        "adv = mean advantage, adv −self = without self-play, agree zoa = where a zone of "
        "agreement exists, agree gain = where some outcome gives both sides more than their "
        "reservation, nash/pareto = mean optimality over agreements, irrat = irrational "
        "agreements, negs = negotiations, N adv = NegMAS's own final score (advantage, mean), "
        "err = negotiations it raised in, stop = stopped at --timeout."
    )
    print()
    print("\n".join(field_table(table, negmas_advantage, seats)))
    if ceiling is not None and ceiling.seats:
        agreed, held = ceiling
        print(
            f"\nThe field's ceiling for {focus}'s seats where a zone exists: {agreed / held:.3f} "
            f"({held - agreed:,} of {held:,} not agreed): a seat counts as agreed when it, or any "
            "entrant in the same seat against the same opponent (same domain, repetition and "
            "opener), agreed without going below its own reservation."
        )
    print(f"\n{focus} against each opponent (its advantage / the opponent's / agreement):")
    for line in against:
        print(
            f"  {line['opponent']:<28} {line['advantage']:.3f} / "
            f"{line['opponent_advantage']:.3f} / {line['agreement_rate']:.2f}  "
            f"({line['negotiations']})"
        )
    print(f"\nPer-negotiation metrics, Accord's against NegMAS's (within {METRIC_TOLERANCE:g}):")
    for metric, check in checks.items():
        note = f" — {EXPLANATIONS[metric]}" if metric in EXPLANATIONS and check.explained else ""
        if metric == "welfare":
            note = f" — {EXPLANATIONS[metric]}"
        print(
            f"  {metric:<24} {check.equal:>7,} of {check.compared:>7,} equal, "
            f"{check.explained:>6,} differ{note}"
            + (f"; {len(check.unexplained)} UNEXPLAINED" if check.unexplained else "")
        )
    broken = checks["utilities"].failed
    if broken:
        print(f"  ({broken} negotiations raised or were stopped: not compared)")
    if comparison:
        print(
            "\nAccord-only negotiations: N = bridged through NegMAS (this run), "
            "A = Accord's own tournament (accord.agents.tournament.run, same domains, "
            f"R = {args.rounds}):"
        )
        print("\n".join(engine_text(comparison)))
    if left_out:
        print(f"\nleft out {len(left_out)}:")
        for entry in left_out:
            print(f"  {entry['name']}: {entry['reason']}")
    if not_run:
        print(f"\nnot run (--time-budget): {len(not_run)} domains: {', '.join(not_run)}")
    if skipped:
        print(f"\nskipped {len(skipped)} (listed in --json)")
    print(
        f"\nwall time {total:.0f} s: screening {screen_seconds:.0f} s, tournament "
        f"{tournament_seconds:.0f} s, Accord's tournament {engine_seconds:.1f} s."
    )
    fail_if_unexplained(checks)


def fail_if_unexplained(checks: Mapping[str, Check]) -> None:
    """The assertion: a metric both define alike must agree on every negotiation. Raised after
    the report, so that a long run's numbers are not lost with it."""
    unexplained = [f"{m}: {c.unexplained[0]}" for m, c in checks.items() if c.unexplained]
    if unexplained:
        raise AssertionError("NegMAS and Accord disagree: " + "; ".join(unexplained))


if __name__ == "__main__":
    # run through the module's own name, so that worker processes find AccordNegotiator
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    entry: Callable[[], None] = importlib.import_module("strategies_vs_negmas").main
    entry()

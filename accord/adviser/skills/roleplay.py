"""F06, role-play and red team (adviser-api.md, Skills): the negotiation engine of agents.md plays
the case's critical and high money, number and date topics, the user's side as `accord` and the
counterpart as `boulware` on its estimated target and limit, once per seed. What it finds is a
simulation, never evidence: every finding and reaction stays at HYPOTHESIS, and a vulnerability
it adds under /strategy waits, held, for the user to reconcile the finding it names."""

import hashlib
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal, localcontext
from typing import Annotated, Self

from pydantic import Field, model_validator

from accord.adviser.deal import Topic
from accord.adviser.extensions import TopicKind
from accord.adviser.patches import Patch
from accord.adviser.questions import Question
from accord.adviser.review import batna_topic
from accord.adviser.skills.common import MATERIAL, by_priority, patch, topic_question
from accord.adviser.skills.output import Output
from accord.adviser.skills.response import Deliverable, Finding
from accord.adviser.state import NegotiationState
from accord.adviser.values import (
    Money,
    Value,
    read_topic_value,
    topic_currency,
    topic_direction,
    topic_kind,
    write_money,
)
from accord.agents.domain import Domain, Issue
from accord.agents.engine import Played, play
from accord.agents.preferences import Preferences
from accord.agents.strategies import STRATEGIES
from accord.agents.strategies.base import EPSILON
from accord.core.strict import Strict

SKILL = "F06"
DEFAULT_SEEDS = tuple(range(10))
DEFAULT_ROUNDS = 20
MAX_SEEDS = 50
MAX_SEED = 2**31 - 1
MAX_ROUNDS = 1000
SPREAD = 0.25
"""How far a seed may move the counterpart's walk-away point, as a share of its estimated
gap."""
SIMULATED = ("money", "number", "date")
WEIGHTS = {"critical": 2.0, "high": 1.0}
POINTS = {1: 21, 2: 21, 3: 21, 4: 11}
"""Evenly spaced grid points per topic, by the number of topics played (the four anchors of a
topic are added to its grid): the outcome space stays small enough for the engine to play ten
runs of twenty rounds in well under a second."""
MAX_TOPICS = max(POINTS)
GAP = 1e-6
"""A reservation stays this far under the best utility, so that no seat walks away unheard."""
TOPICS = "/topics_targets_tradeoffs/topics"
USER, THEM = 0, 1
"""The seats: the user opens."""
ID_ROOM = 40
"""The longest request id used as is in finding and reaction ids (an id is at most 64)."""

Seed = Annotated[int, Field(ge=0, le=MAX_SEED)]


class RoleplayRequest(Strict):
    """F06's `request`: which seeds to play and for how many rounds; both optional."""

    seeds: Annotated[list[Seed], Field(min_length=1, max_length=MAX_SEEDS)] | None = None
    rounds: Annotated[int, Field(ge=1, le=MAX_ROUNDS)] | None = None

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        # the engine is deterministic: a repeated seed would count one run twice
        if self.seeds is not None and len(set(self.seeds)) < len(self.seeds):
            raise ValueError("each seed once")
        return self


@dataclass(frozen=True, slots=True)
class _Axis:
    """One played topic in magnitudes (minor units, day ordinals or the number itself): the
    grid its issue's values come from and the points that shape both sides' preferences."""

    topic: Topic
    kind: TopicKind
    currency: str | None
    higher: bool
    """The user's direction: higher is better for the user, so lower for the counterpart."""
    points: tuple[Decimal, ...]
    """Ascending."""
    minimum: Decimal
    floor: Decimal
    """The user's walk-away point: the minimum, or a BATNA value better than it."""
    target: Decimal
    their_reservation: Decimal
    their_target: Decimal

    def write(self, x: Decimal) -> str:
        """A magnitude in the topic's own form, as the state writes values."""
        if self.kind == "money":
            assert self.currency is not None
            return write_money(Money(int(x), self.currency))
        if self.kind == "date":
            return date.fromordinal(int(x)).isoformat()
        return _plain(x)

    def user_eval(self, x: Decimal) -> float:
        return _linear([self._good(p) for p in self.points], self._good(x), self._good(self.target))

    def their_eval(self, x: Decimal) -> float:
        return _linear(
            [-self._good(p) for p in self.points], -self._good(x), -self._good(self.their_target)
        )

    def _good(self, x: Decimal) -> Decimal:
        return x if self.higher else -x


@dataclass(frozen=True, slots=True)
class _Run:
    seed: int
    played: Played
    agreed: tuple[Decimal, ...] | None
    """The agreed magnitude per axis; None for no deal."""
    conceded: int | None
    """The seat that conceded first; None when neither did."""


def run(state: NegotiationState, request: RoleplayRequest, request_id: str) -> Output:
    """Play the case's playable topics once per seed and say what the runs show, at HYPOTHESIS:
    the engine plays the estimates it is given, and an estimate played out is still no
    evidence."""
    seeds = tuple(request.seeds) if request.seeds is not None else DEFAULT_SEEDS
    rounds = request.rounds if request.rounds is not None else DEFAULT_ROUNDS
    axes, questions, warnings = _axes(state)
    if not axes:
        return Output(
            "Nothing to role-play: no critical or high money, number or date topic has both your "
            "target and minimum and their estimated limit",
            "unknown",
            questions=questions,
            warnings=warnings,
        )
    domain = Domain(
        tuple(Issue(a.topic.topic_id, tuple(a.write(p) for p in a.points)) for a in axes)
    )
    strategies = (STRATEGIES["accord"], STRATEGIES["boulware"])
    runs = []
    for seed in seeds:
        seats = _preferences(domain, _drawn(axes, seed))
        runs.append(_result(seed, axes, seats, play(seats, strategies, rounds=rounds, seed=seed)))
    findings, reactions = _findings(axes, runs, rounds, request_id)
    agreed = [r.agreed for r in runs if r.agreed is not None]
    if agreed:
        medians = ", ".join(
            f"{a.topic.topic} {a.write(_median([x[i] for x in agreed]))}"
            for i, a in enumerate(axes)
        )
        conclusion = f"Agreement in {len(agreed)} of {len(runs)} simulated runs; median {medians}"
    else:
        conclusion = f"No agreement in {len(runs)} of {len(runs)} simulated runs"
    version = state.meta.state_version
    return Output(
        conclusion,
        "low",
        _patches(state, findings, reactions, runs, request_id),
        questions,
        warnings,
        findings,
        deliverable=Deliverable(
            kind="roleplay", content=_transcript(axes, runs, rounds, request_id, version)
        ),
        material=(),
    )


# -- what can be played ----------------------------------------------------------------------


def _axes(
    state: NegotiationState,
) -> tuple[list[_Axis], list[Question], list[tuple[str, str, str]]]:
    """The played topics, most important first; a question for an estimate without a readable
    limit, and a warning for each other material topic that cannot be played."""
    topics = state.topics_targets_tradeoffs.topics
    batna = state.alternatives.user.batna
    batna_on = batna_topic(topics, batna)
    playable: list[tuple[Topic, TopicKind, bool, tuple[Decimal, ...]]] = []
    questions: list[Question] = []
    warnings: list[tuple[str, str, str]] = []

    def warn(prefix: str, topic: Topic, why: str, severity: str = "medium") -> None:
        warnings.append((_bounded(f"{prefix}-{topic.topic_id}"), f"{topic.topic}: {why}", severity))

    for topic in by_priority(topics):
        kind = topic_kind(topic)
        if topic.priority not in MATERIAL or kind not in SIMULATED:
            continue
        direction = topic_direction(topic)
        estimate = topic.x_accord.counterpart if topic.x_accord is not None else None
        if estimate is None:
            warn(
                "W-no-estimate",
                topic,
                "not role-played: add x_accord.counterpart to the topic, with their estimated "
                "target and reservation (the furthest they would go).",
            )
            continue
        reservation = _magnitude(read_topic_value(topic, estimate.reservation))
        if reservation is None:
            limit = {"higher_is_better": "most", "lower_is_better": "least"}.get(
                direction or "", "furthest"
            )
            questions.append(
                topic_question(
                    _bounded(f"Q-their-limit-{topic.topic_id}"),
                    f"What is the {limit} they would accept on {topic.topic}?",
                    topic,
                    f"{TOPICS}/{topic.topic_id}/x_accord/counterpart/reservation",
                    asked_by=SKILL,
                    impact=f"Without their limit the role-play cannot play {topic.topic}.",
                    priority=2,
                )
            )
            continue
        target = _magnitude(read_topic_value(topic, topic.best_target.value))
        minimum = _magnitude(read_topic_value(topic, topic.minimum_acceptable.value))
        if target is None or minimum is None:
            warn("W-no-bounds", topic, "not role-played: it needs your target and minimum.")
            continue
        if direction is None:
            warn(
                "W-no-direction",
                topic,
                "not role-played: set x_accord.direction, or a target that differs from the "
                "minimum.",
            )
            continue
        if len(playable) == MAX_TOPICS:
            warn(
                "W-not-played",
                topic,
                f"only the {MAX_TOPICS} most important topics are played.",
                "low",
            )
            continue
        higher = direction == "higher_is_better"
        floor = minimum
        if batna_on is not None and batna_on.topic_id == topic.topic_id:
            walk_away = _magnitude(read_topic_value(topic, batna.value))
            if walk_away is not None and _better(walk_away, minimum, higher):
                floor = walk_away  # a BATNA better than the minimum is the real floor
        theirs = _their_target(
            _magnitude(read_topic_value(topic, estimate.target)),
            reservation,
            minimum,
            abs(target - minimum),
            higher=higher,
            kind=kind,
        )
        playable.append((topic, kind, higher, (minimum, floor, target, reservation, theirs)))
    size = POINTS.get(len(playable), 0)
    axes = [
        _Axis(
            topic,
            kind,
            topic_currency(topic) if kind == "money" else None,
            higher,
            _grid((minimum, target, reservation, theirs), size, kind),
            minimum,
            floor,
            target,
            reservation,
            theirs,
        )
        for topic, kind, higher, (minimum, floor, target, reservation, theirs) in playable
    ]
    return axes, questions, warnings


def _magnitude(value: Value | None) -> Decimal | None:
    """A read money, number or date value as a magnitude to lay a grid over."""
    if isinstance(value, Money):
        return Decimal(value.amount_minor)
    if isinstance(value, date):
        return Decimal(value.toordinal())
    if isinstance(value, Decimal):
        return value
    return None  # an enum's rank is not played


def _better(a: Decimal, b: Decimal, higher: bool) -> bool:
    return a > b if higher else a < b


def _their_target(
    given: Decimal | None,
    reservation: Decimal,
    minimum: Decimal,
    span: Decimal,
    *,
    higher: bool,
    kind: TopicKind,
) -> Decimal:
    """Their estimated target when it is better for them than their limit; else the user's
    minimum when that is; else their limit moved in their favour by the user's own span (a
    side with no room to concede plays no negotiation)."""
    if given is not None and _better(given, reservation, not higher):
        return given
    if _better(minimum, reservation, not higher):
        return minimum
    moved = reservation - span if higher else reservation + span
    if kind in ("money", "date"):
        moved = max(moved, Decimal(0 if kind == "money" else 1))
    if kind == "date":
        moved = min(moved, Decimal(date.max.toordinal()))
    return moved


def _grid(anchors: Sequence[Decimal], size: int, kind: TopicKind) -> tuple[Decimal, ...]:
    """`size` evenly spaced points over the anchors' span, rounded to what the kind writes, and
    the anchors themselves, so that every limit and target is a value the sides can offer."""
    low, high = min(anchors), max(anchors)
    exponent = 0  # a minor unit, a day
    if kind == "number":
        exponent = min(int(a.as_tuple().exponent) for a in anchors) - 2
    steps = max(size - 1, 1)
    with localcontext() as context:
        # enough digits for the longest number a user may write, at the grid's precision
        context.prec = max(28, max(a.adjusted() for a in anchors) - exponent + 4)
        quantum = Decimal(1).scaleb(exponent)
        spread = {(low + (high - low) * i / steps).quantize(quantum) for i in range(steps + 1)}
    return tuple(sorted(spread | set(anchors)))


def _linear(goods: Sequence[Decimal], x: Decimal, top: Decimal) -> float:
    """0 at the grid's worst point for the side, 1 at its target and beyond, linear between.
    Values worse than a side's limit must stay worse than it (not clipped to it), or a seat
    would take them as readily as its limit."""
    bottom = min(goods)
    if top <= bottom:
        return 1.0 if x >= top else 0.0
    return float(min(max((x - bottom) / (top - bottom), Decimal(0)), Decimal(1)))


def _plain(x: Decimal) -> str:
    text = format(x.normalize(), "f")
    return "0" if text in ("-0", "0") else text


# -- the play --------------------------------------------------------------------------------


def _drawn(axes: Sequence[_Axis], seed: int) -> list[_Axis]:
    """The counterpart as one seed imagines it: its walk-away point drawn uniformly within
    SPREAD of the gap between its estimated target and limit, around the estimate. The
    strategies are deterministic, so the seeds are what make N runs N different counterparts
    (an estimate is a hypothesis; k of N says how much of it fails)."""
    rng = random.Random(seed)
    drawn = []
    for axis in axes:
        gap = abs(axis.their_target - axis.their_reservation)
        shift = Decimal(str(rng.uniform(-SPREAD, SPREAD))) * gap
        moved = axis.their_reservation + shift
        if axis.kind in ("money", "date"):
            moved = moved.to_integral_value()
        drawn.append(replace(axis, their_reservation=moved))
    return drawn


def _preferences(domain: Domain, axes: Sequence[_Axis]) -> tuple[Preferences, Preferences]:
    """The user's side: the topics weighted by priority, walking away below the package of
    floors. The counterpart: the topics weighted alike, walking away below its limits."""
    user_weights = [WEIGHTS[a.topic.priority] for a in axes]
    total = sum(user_weights)
    user_weights = [w / total for w in user_weights]
    their_weights = [1 / len(axes)] * len(axes)
    user = Preferences(
        domain,
        tuple(user_weights),
        tuple(tuple(a.user_eval(p) for p in a.points) for a in axes),
        reservation=_reservation(user_weights, [a.user_eval(a.floor) for a in axes]),
        name="you",
    )
    them = Preferences(
        domain,
        tuple(their_weights),
        tuple(tuple(a.their_eval(p) for p in a.points) for a in axes),
        reservation=_reservation(their_weights, [a.their_eval(a.their_reservation) for a in axes]),
        name="them",
    )
    return user, them


def _reservation(weights: Sequence[float], evaluations: Sequence[float]) -> float:
    """The utility of walking away: the package at the limits, kept under the best (1)."""
    value = sum(w * e for w, e in zip(weights, evaluations, strict=True))
    return max(0.0, min(value, 1.0 - GAP))


def _result(seed: int, axes: Sequence[_Axis], seats: Sequence[Preferences], played: Played) -> _Run:
    agreement = played.agreement
    agreed = None
    if agreement is not None:
        indices = seats[USER].domain.outcome_at(agreement)
        agreed = tuple(a.points[i] for a, i in zip(axes, indices, strict=True))
    return _Run(seed, played, agreed, _first_concession(played.offers, seats))


def _first_concession(offers: Sequence[int], seats: Sequence[Preferences]) -> int | None:
    """The seat whose offer first fell below its own opening offer, by its own utility."""
    for i in range(2, len(offers)):
        seat = i % 2
        utility = seats[seat].utility_list
        if utility[offers[i]] < utility[offers[seat]] - EPSILON:
            return seat
    return None


def _median(values: Sequence[Decimal]) -> Decimal:
    """The lower middle for an even count: a value some run actually agreed."""
    return statistics.median_low(values)


# -- what the runs show ----------------------------------------------------------------------


def _findings(
    axes: Sequence[_Axis], runs: Sequence[_Run], rounds: int, request_id: str
) -> tuple[list[Finding], list[tuple[str, str]]]:
    """The findings, each with the counterpart's likely reaction and a prepared response."""
    n = len(runs)
    agreed = [r.agreed for r in runs if r.agreed is not None]
    no_deal = n - len(agreed)
    found: list[tuple[str, str, tuple[str, str]]] = []
    if 2 * no_deal > n:
        reaction = (
            "They hold out near their limit and let the deadline pass without a deal.",
            "Before you meet, check that their limit reaches your minimum, and have your BATNA "
            "ready to name.",
        )
    elif no_deal:
        reaction = (
            "They concede slowly and may let the talks lapse rather than move.",
            "Keep concessions small and conditional, and know when you will walk away.",
        )
    else:
        reaction = (
            "They concede slowly and settle late, close to the deadline.",
            "Be patient: keep room for the last rounds and concede in small, conditional steps.",
        )
    found.append(
        (
            f"No agreement in {no_deal} of {n} simulated runs of {rounds} rounds",
            "high" if 2 * no_deal > n else "medium",
            reaction,
        )
    )
    if agreed:
        for i, axis in enumerate(axes):
            found.append(_median_finding(axis, _median([a[i] for a in agreed]), len(agreed)))
    yours = sum(r.conceded == USER for r in runs)
    theirs = sum(r.conceded == THEM for r in runs)
    neither = n - yours - theirs
    if theirs > yours:
        reaction = (
            "They make the first concession, in small steps.",
            "Let them move first, and answer each concession with a smaller one.",
        )
    elif yours > theirs:
        reaction = (
            "They hold firm and wait for you to move first.",
            "Hold your opening; make each concession conditional on one from them.",
        )
    else:
        reaction = (
            "They match your pace of concessions.",
            "Concede in small, conditional steps and name what you want in return.",
        )
    found.append(
        (
            f"Who conceded first: you in {yours} of {n} runs, they in {theirs}"
            + (f", neither in {neither}" if neither else ""),
            "medium",
            reaction,
        )
    )
    stem = _stem(request_id)
    findings = [
        Finding(
            finding_id=f"{stem}-{k}",
            finding=text,
            importance=importance,  # type: ignore[arg-type]  # one of the Level literals
            research_provenance="DESIGN",
            research_refs=[f"roleplay:{request_id}"],
            evidence_status="HYPOTHESIS",  # type: ignore[arg-type]  # the wire form is taken
        )
        for k, (text, importance, _) in enumerate(found, start=1)
    ]
    return findings, [reaction for _, _, reaction in found]


def _median_finding(
    axis: _Axis, median: Decimal, agreements: int
) -> tuple[str, str, tuple[str, str]]:
    """The median agreed value of a topic, said plainly when it breaks the user's minimum: the
    package as a whole can clear the user's reservation while one topic falls below its
    minimum."""
    value, target = axis.write(median), axis.write(axis.target)
    below = _better(axis.minimum, median, axis.higher)
    note = f", worse for you than your minimum {axis.write(axis.minimum)}" if below else ""
    response = (
        f"Open at your target ({target}) and move toward {value} only for something in return."
        if _better(axis.target, median, axis.higher)
        else f"Open at your target ({target}) and hold it: the runs settled there."
    )
    return (
        f"Median agreed {axis.topic.topic}: {value} (over {agreements} agreements{note})",
        "high" if below else "medium",
        (f"They settle near {value} on {axis.topic.topic}.", response),
    )


def _patches(
    state: NegotiationState,
    findings: Sequence[Finding],
    reactions: Sequence[tuple[str, str]],
    runs: Sequence[_Run],
    request_id: str,
) -> list[Patch]:
    """The snapshot the runs were played on, a likely reaction per finding, and, when most runs
    end without a deal, a vulnerability held under the no-deal finding."""
    version = state.meta.state_version
    source = f"roleplay:{request_id}"
    # F06 does not read /roleplay, so its view shows no snapshot even when the case has one:
    # an update writes either way, where an ADD over a set snapshot would be refused
    patches = [
        patch(
            "F06-snapshot",
            "UPDATE_WITH_EVIDENCE",
            "/roleplay/last_snapshot_version",
            version,
            f"{source}: role-play {request_id} on version {version}",
        )
    ]
    stem = _stem(request_id)
    for k, (finding, (reaction, response)) in enumerate(zip(findings, reactions, strict=True), 1):
        patches.append(
            patch(
                f"F06-reaction-{k}",
                "ADD",
                "/rapport_reactions_responses/likely_reactions/-",
                {
                    "reaction_id": f"reaction-{stem}-{k}",
                    "reaction": reaction,
                    "evidence_status": "HYPOTHESIS",
                    "prepared_response": response,
                },
                f"{source}: {finding.finding_id}: {finding.finding}",
            )
        )
    no_deal, missed = findings[0], sum(r.agreed is None for r in runs)
    if 2 * missed > len(runs):
        patches.append(
            Patch(
                patch_id="F06-vulnerability",
                operation="ADD",
                path="/strategy/vulnerabilities/-",
                proposed_value=f"No deal in {missed} of {len(runs)} simulated runs",
                basis=f"{source}: {no_deal.finding_id}: {no_deal.finding}",
                x_finding_id=no_deal.finding_id,
            )
        )
    return patches


def _transcript(
    axes: Sequence[_Axis], runs: Sequence[_Run], rounds: int, request_id: str, version: int
) -> str:
    """One line per seed: what was agreed, in which round, and who moved first."""
    who = {USER: "you", THEM: "they", None: "neither"}
    lines = [
        f"Role-play {request_id} on version {version}: you (accord) against them (boulware), "
        f"{rounds} rounds per run, on " + ", ".join(a.topic.topic for a in axes) + "."
    ]
    for r in runs:
        if r.agreed is not None:
            terms = "; ".join(
                f"{a.topic.topic} {a.write(x)}" for a, x in zip(axes, r.agreed, strict=True)
            )
            outcome = f"agreement in round {r.played.rounds}: {terms}"
        else:
            end = "deadline" if r.played.end == "deadline" else "a walk-away"
            outcome = f"no deal ({end}) after {r.played.rounds} rounds"
        lines.append(f"seed {r.seed}: {outcome}; {who[r.conceded]} conceded first")
    return "\n".join(lines)


def _stem(request_id: str) -> str:
    """The request id as finding and reaction ids carry it: a long one shortened, with a
    digest so two long ids stay apart."""
    if len(request_id) <= ID_ROOM:
        return request_id
    digest = hashlib.sha256(request_id.encode()).hexdigest()[:8]
    return f"{request_id[: ID_ROOM - 9]}.{digest}"


def _bounded(identifier: str) -> str:
    """A question or warning id within the 64 characters an id may take."""
    if len(identifier) <= 64:
        return identifier
    digest = hashlib.sha256(identifier.encode()).hexdigest()[:8]
    return f"{identifier[:55]}.{digest}"

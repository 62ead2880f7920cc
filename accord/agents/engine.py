"""The engine: two strategies negotiate in process (spec/agents.md, Seat interface; Deadlines).

A round is one move by each seat; at round `k` both see `t = (k + 1) / (R + 1)`; after `R`
rounds without agreement the negotiation ends at its deadline. The strategies' moves are the
negotiation; the room they make is built by the real rooms rules through the kernel's step
(`accord.core.step.Log`), either move by move as the strategies play (`eager`) or afterwards from
the recorded moves, when a log is asked for. Both give the same envelopes: the rules never see
anything the strategies did not decide."""

import hashlib
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, NamedTuple

from accord.agents.domain import Domain
from accord.agents.preferences import Preferences
from accord.agents.strategies import Factory, SeatView
from accord.core.protocol import Decision
from accord.core.refusals import Refusal
from accord.core.step import Log
from accord.core.times import format_time
from accord.protocols.rooms import decide
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.protocols.rooms.schema import MAX_ENUM_VALUES, MAX_FIELDS, MAX_LABEL
from accord.protocols.rooms.state import Actor, MoveType, RoomPolicy, RoomState, Seat
from accord.protocols.rooms.table import Confirmation, RoomsTable

End = Literal["agreement", "deadline", "walk_away"]
Kind = Literal["offer", "accept", "end"]

START = datetime(2026, 1, 1, tzinfo=UTC)
"""The simulated clock's start: a room's log is a function of its moves alone."""
ROUND = timedelta(minutes=1)
"""Simulated time per round; the room's deadline falls `R` rounds after its start."""
BASE_URL = "https://accord.invalid"


class Move(NamedTuple):
    """One move, as a recorder and `Played.moves` give it; the engine itself keeps only the
    offers."""

    mover: int
    """0 for the seat that moved first, 1 for the other."""
    kind: Kind
    outcome: int | None
    """The outcome offered or accepted; None for a walk-away."""
    round: int


@dataclass(frozen=True)
class Played:
    offers: tuple[int, ...]
    """Every offer, the seats taking turns from the first."""
    end: End
    rounds: int
    """Rounds begun, the last one included."""
    closer: int | None = None
    """The seat that accepted or walked away."""

    @property
    def agreement(self) -> int | None:
        return self.offers[-1] if self.end == "agreement" else None

    @property
    def moves(self) -> list[Move]:
        """The moves in order: the offers (seat `i % 2`, round `i // 2`), then the closing
        accept or walk-away."""
        moves = [Move(i % 2, "offer", offer, i // 2) for i, offer in enumerate(self.offers)]
        if self.closer is not None:
            kind: Kind = "accept" if self.end == "agreement" else "end"
            outcome = self.offers[-1] if kind == "accept" else None
            moves.append(Move(self.closer, kind, outcome, self.rounds - 1))
        return moves


Recorder = Callable[[Move], None]


class Randomness:
    """The engine's seeded generator, seeded on first use: most strategies never draw, and
    seeding costs more than a whole short negotiation."""

    __slots__ = ("_random", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._random: random.Random | None = None

    @property
    def generator(self) -> random.Random:
        if self._random is None:
            self._random = random.Random(self.seed)
        return self._random


def play(
    preferences: Sequence[Preferences],
    strategies: Sequence[Factory],
    *,
    rounds: int,
    seed: int,
    record: Recorder | None = None,
) -> Played:
    """One negotiation; `preferences` and `strategies` in move order, the first seat opening.
    Offering the terms already on the table accepts them (the rooms rules allow no other
    reading of it). A seat with no outcome worth its reservation walks away at its first turn.
    `record` sees every move as it is made."""
    if rounds < 1:
        raise ValueError("a negotiation needs at least one round")
    rng = Randomness(seed)
    first, second = preferences
    made: tuple[list[int], list[int]] = ([], [])
    # a seat's sent offers are the other's received ones: one list, shared, read-only to both
    views = (
        SeatView(first, rounds, received=made[1], sent=made[0]),
        SeatView(second, rounds, received=made[0], sent=made[1]),
    )
    seats = (strategies[0](first, rounds, rng), strategies[1](second, rounds, rng))
    offers: list[int] = []
    # a seat that no outcome can bring up to its reservation walks away at its first turn
    hopeless = (first.best < first.reservation, second.best < second.reservation)
    table = -1
    for k in range(rounds):
        t = (k + 1) / (rounds + 1)
        for mover in (0, 1):
            if hopeless[mover]:
                return _closed(offers, "walk_away", k, mover, record)
            view = views[mover]
            view.round = k
            view.t = t
            strategy = seats[mover]
            if table >= 0:
                answer = strategy.respond(view)
                if answer != "reject":
                    end: End = "agreement" if answer == "accept" else "walk_away"
                    return _closed(offers, end, k, mover, record)
            offer = strategy.propose(view)
            if offer == table:
                return _closed(offers, "agreement", k, mover, record)
            made[mover].append(offer)
            offers.append(offer)
            if record is not None:
                record(Move(mover, "offer", offer, k))
            table = offer
    return Played(tuple(offers), "deadline", rounds)


def _closed(offers: list[int], end: End, k: int, mover: int, record: Recorder | None) -> Played:
    played = Played(tuple(offers), end, k + 1, mover)
    if record is not None:
        record(played.moves[-1])
    return played


# -- the room the moves make ----------------------------------------------------------------


def field_names(domain: Domain) -> list[str]:
    """Issue names as room fields (`[a-z0-9_]{1,64}`), distinct."""
    names: list[str] = []
    for issue in domain.issues:
        base = re.sub(r"[^a-z0-9_]+", "_", issue.name.lower()).strip("_")[:60] or "issue"
        name, n = base, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.append(name)
    return names


def _is_enum(values: Sequence[str]) -> bool:
    return len(values) <= MAX_ENUM_VALUES and all(1 <= len(v) <= MAX_LABEL for v in values)


def subject_schema(domain: Domain) -> dict[str, Any]:
    """A scenario's issues as a room's subject: an enum of the values, or, past what an enum
    holds, an int naming the value's position."""
    if len(domain.issues) > MAX_FIELDS:
        raise ValueError(f"a room holds at most {MAX_FIELDS} fields; this domain has more")
    schema: dict[str, Any] = {}
    for name, issue in zip(field_names(domain), domain.issues, strict=True):
        label = issue.name[:MAX_LABEL] or name
        if _is_enum(issue.values):
            schema[name] = {"type": "enum", "values": list(issue.values), "label": label}
        else:
            schema[name] = {"type": "int", "label": label}
    return schema


def terms_of(domain: Domain, outcome: int, names: Sequence[str] | None = None) -> dict[str, Any]:
    """The outcome as room terms; `names`, the domain's `field_names`, when the caller keeps
    them."""
    terms: dict[str, Any] = {}
    indices = domain.outcome_at(outcome)
    fields = field_names(domain) if names is None else names
    for name, issue, index in zip(fields, domain.issues, indices, strict=True):
        terms[name] = issue.values[index] if _is_enum(issue.values) else index
    return terms


class RoomRecorder:
    """Builds the room a negotiation's moves make, move by move, through the real rules: an
    agent's accept is its approve of the table's terms, the proposer's approve follows, and the
    simulated owners confirm each as it is asked. A refusal is a bug and raises."""

    def __init__(self, domain: Domain, *, rounds: int, seed: int = 0) -> None:
        self.domain = domain
        self.names = field_names(domain)
        policy = RoomPolicy()
        self.log: Log[RoomState] = Log(RoomsTable(policy, base_url=BASE_URL), now=START)
        salt = hashlib.sha256(f"accord-engine:{seed}".encode()).hexdigest()
        self.deadline = format_time(START + rounds * ROUND)
        """Repeated on every offer: an offer without one would lift the room's deadline."""
        self._check(
            decide.open_room(
                OpenRequest(
                    subject_schema=subject_schema(domain),
                    deadline=self.deadline,
                ),
                room_id=f"room_{salt[:16]}",
                name="Engine",
                nonce=f"nonce-opener-{salt[:32]}",
                now=START,
                policy=policy,
            )
        )
        self._check(
            decide.join_room(
                self.log.current,
                JoinRequest(invite_token="invite_engine"),
                nonce=f"nonce-joiner-{salt[32:]}",
            )
        )

    def _check(self, result: Decision | Refusal) -> None:
        recorded = self.log.record(result)
        if isinstance(recorded, Refusal):
            raise AssertionError(f"the rooms rules refused an engine move: {recorded}")

    def _decide(self, move: MoveRequest | Confirmation, actor: Actor) -> None:
        recorded = self.log.decide(move, actor)
        if isinstance(recorded, Refusal):
            raise AssertionError(f"the rooms rules refused an engine move: {recorded}")

    def _owner_approves(self, seat: Seat) -> None:
        table = self.log.current.table
        assert table is not None
        self._decide(
            MoveRequest(type="approve", subject_hash=table.subject_hash),
            Actor(seat, is_owner=False),
        )
        self._confirm(seat)

    def _confirm(self, seat: Seat) -> None:
        pending = self.log.current.seat_private(seat).pending
        assert pending is not None
        self._decide(Confirmation(pending.id, "confirm"), Actor(seat, is_owner=True))

    def __call__(self, move: Move) -> None:
        self.log.now = START + move.round * ROUND
        seat = Seat.OPENER if move.mover == 0 else Seat.JOINER
        if move.kind == "offer":
            assert move.outcome is not None
            kind: MoveType = "offer" if self.log.current.table is None else "counter"
            terms = terms_of(self.domain, move.outcome, self.names)
            request = MoveRequest(type=kind, terms=terms, deadline=self.deadline)
            self._decide(request, Actor(seat, is_owner=False))
        elif move.kind == "accept":
            self._owner_approves(seat)
            self._owner_approves(seat.other)
        else:  # a walk-away: reject what is on the table, or cancel before anything is
            kind = "reject" if self.log.current.table is not None else "cancel"
            self._decide(MoveRequest(type=kind), Actor(seat, is_owner=False))
            self._confirm(seat)

    def finish(self, played: Played) -> Log[RoomState]:
        """The deadline, when the negotiation reached it: the room expires on it."""
        if played.end == "deadline":
            self.log.now = START + played.rounds * ROUND
            self.log.expire()
        return self.log


def room_log(domain: Domain, played: Played, *, rounds: int, seed: int = 0) -> Log[RoomState]:
    """The room a played negotiation made, built afterwards from its moves."""
    recorder = RoomRecorder(domain, rounds=rounds, seed=seed)
    for move in played.moves:
        recorder(move)
    return recorder.finish(played)

"""Rooms as a service under random sequences: any actor tries any move, legal or not, and after
every step the store must still tell one consistent story (DESIGN.md, Rooms and Tests).

The machine builds its own store (SQLite in a temporary folder, or a fresh PostgreSQL schema
when ACCORD_TEST_DATABASE_URL names a database) because a state machine takes no fixtures.
"""

import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Final, Literal

from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from accord.app.events import SeatAudience
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.core.chain import verify_chain
from accord.core.commit import commit
from accord.core.envelope import Envelope
from accord.core.jsonio import parse_canonical
from accord.core.refusals import RefusalCode, Refused
from accord.core.times import format_time
from accord.protocols.rooms import decide
from accord.protocols.rooms.apply import replay
from accord.protocols.rooms.moves import ConfirmRequest, JoinRequest, MoveRequest, OpenRequest
from accord.protocols.rooms.state import MoveType, RoomPolicy, RoomState, Seat
from accord.store import records
from accord.store.database import Database
from tests.conftest import FakeClock, _postgres_schema_url

MAX_ROOMS: Final = 10
MAX_LIVE_ROOMS: Final = 2
PICKS: Final = st.integers(0, 7)
FINAL_TYPES: Final = frozenset({"room.agreed", "move.reject", "move.cancel", "room.expired"})
BOGUS_TOKEN: Final = "seat_this-opens-nothing"
BOGUS_HASH: Final = "sha256:" + "0" * 64

SCHEMA: Final = {
    "price": {"type": "money", "currency": "EUR"},
    "qty": {"type": "int"},
    "color": {"type": "enum", "values": ["red", "green", "blue"]},
    "gift": {"type": "bool", "optional": True},
}


def _terms(amount: int, qty: int, color: str, gift: bool | None = None) -> dict[str, Any]:
    terms: dict[str, Any] = {
        "price": {"amount_minor": amount, "currency": "EUR"},
        "qty": qty,
        "color": color,
    }
    if gift is not None:
        terms["gift"] = gift
    return terms


# A small pool, so that hashes repeat and rooms circle. Every number in a term differs from
# every number a limit may hold, and the two seats' limit numbers differ from each other, so a
# limit number found where the other side reads is a leak.
TERMS_POOL: Final = (
    _terms(777720, 777712, "red"),
    _terms(777750, 777712, "green"),
    _terms(777780, 777744, "blue", gift=True),
    _terms(777750, 777744, "red", gift=False),
    _terms(777700, 777712, "blue"),
)
BAD_TERMS: Final = {"price": {"amount_minor": 5, "currency": "USD"}, "qty": 1, "color": "red"}
LIMIT_NUMBERS: Final = {
    Seat.OPENER: {"min": (777710, 777740), "max": (777790, 777760), "qty": (777730,)},
    Seat.JOINER: {"min": (777711, 777741), "max": (777791, 777761), "qty": (777731,)},
}
MESSAGES: Final = ("Why this price?", "Can you say more about delivery?", "Final answer.")
ACTORS: Final = (
    "turn_seat",
    "turn_seat",
    "turn_seat",
    "turn_owner",
    "turn_owner",
    "turn_owner",
    "opener_seat",
    "opener_owner",
    "joiner_seat",
    "joiner_owner",
    "foreign",
    "bogus",
)
CONFIRMERS: Final = (
    "pending_owner",
    "pending_owner",
    "pending_owner",
    "pending_seat",
    "opener_owner",
    "joiner_owner",
    "bogus",
)
HAGGLES: Final = (
    *["counter"] * 5,
    *["need_more_detail"] * 3,
    *["approve:owner"] * 2,
    "approve:agent",
)
KINDS: Final[tuple[MoveType, ...]] = (
    "offer",
    "counter",
    "counter",
    "counter",
    "need_more_detail",
    "need_more_detail",
    "approve",
    "approve",
    "approve",
    "reject",
    "cancel",
)


def _money(amounts: Sequence[int]) -> st.SearchStrategy[dict[str, Any]]:
    return st.sampled_from(amounts).map(lambda a: {"amount_minor": a, "currency": "EUR"})


def _weighted(*choices: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """One of the strategies, each as likely as its repetitions in `choices`."""
    return st.sampled_from(choices).flatmap(lambda strategy: strategy)


def limits_for(
    seat: Seat,
) -> tuple[st.SearchStrategy[dict[str, Any] | None], st.SearchStrategy[dict[str, Any] | None]]:
    """A seat's limits: any (mostly valid, sometimes without bounds or with min above max),
    and valid only."""
    numbers = LIMIT_NUMBERS[seat]
    loose_low, tight_low = (_money([n]) for n in numbers["min"])
    loose_high, tight_high = (_money([n]) for n in numbers["max"])
    low = _weighted(loose_low, loose_low, tight_low)
    high = _weighted(loose_high, loose_high, tight_high)
    price = _weighted(
        st.fixed_dictionaries({"min": low}),
        st.fixed_dictionaries({"max": high}),
        st.fixed_dictionaries({"min": low, "max": high}),
    )
    qty = _weighted(
        st.fixed_dictionaries({"min": st.sampled_from(numbers["qty"])}),
        st.fixed_dictionaries({"max": st.sampled_from(numbers["qty"])}),
    )
    color = st.lists(st.sampled_from(["red", "green", "blue"]), min_size=1, unique=True)
    full = st.fixed_dictionaries(
        {},
        optional={
            "price": price,
            "qty": qty,
            "color": color.map(lambda values: {"one_of": values}),
            "gift": st.booleans().map(lambda b: {"equals": b}),
        },
    )
    price_only = st.fixed_dictionaries({"price": price})
    broken = st.sampled_from(
        [
            {"price": {}},
            {
                "price": {
                    "min": {"amount_minor": max(numbers["max"]), "currency": "EUR"},
                    "max": {"amount_minor": min(numbers["min"]), "currency": "EUR"},
                }
            },
        ]
    )
    valid = _weighted(st.none(), price_only, price_only, full)
    return _weighted(valid, valid, valid, broken), valid


ANY_LIMITS: Final = {seat: limits_for(seat)[0] for seat in Seat}
VALID_LIMITS: Final = {seat: limits_for(seat)[1] for seat in Seat}
TERMS: Final = st.sampled_from([*TERMS_POOL, BAD_TERMS])
DEADLINES: Final = st.sampled_from(
    [None] * 6 + [60, 60 * 24, 60 * 24 * 3, 60 * 24 * 6, -5, 60 * 24 * 91]
)
JUMPS: Final = _weighted(
    *[st.sampled_from([0, 1, 10, 30, 61, 180, 600])] * 4,
    st.sampled_from([60 * 24, 60 * 24 * 3, 60 * 24 * 7 + 1, 60 * 24 * 8]),
    st.integers(1, 60 * 24 * 8),
)


def _numbers(value: Any) -> set[int]:
    """Every integer inside a JSON value (a limit's bounds)."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_numbers(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_numbers(v) for v in value))
    return set()


def _leaks(value: Any, numbers: set[int], secrets: Sequence[str]) -> list[Any]:
    """The private numbers and secret strings found anywhere in a JSON value."""
    found: list[Any] = []

    def walk(v: Any) -> None:
        if isinstance(v, bool):
            return
        if isinstance(v, int):
            if v in numbers:
                found.append(v)
        elif isinstance(v, str):
            found.extend(s for s in secrets if s and s in v)
        elif isinstance(v, dict):
            for key, item in v.items():
                walk(key)
                walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)

    walk(value)
    return found


@dataclass(frozen=True)
class Snapshot:
    log: list[bytes]
    private: list[tuple[str, bytes]]
    state: str


@dataclass
class Remembered:
    request: MoveRequest
    response: tuple[int, dict[str, Any]]


@dataclass
class RoomModel:
    """What the test knows of one room: its credentials and its seats' secrets."""

    room_id: str
    invite: str
    tokens: dict[tuple[Seat, bool], str]
    nonces: dict[Seat, str]
    limit_numbers: dict[Seat, set[int]]
    used_ids: dict[Seat, list[str]] = field(default_factory=lambda: {s: [] for s in Seat})
    remembered: dict[tuple[Seat, str], Remembered] = field(default_factory=dict)
    seen: Snapshot | None = None

    @property
    def joined(self) -> bool:
        return Seat.JOINER in self.nonces


def _envelopes(bodies: Sequence[bytes]) -> list[Envelope]:
    return [Envelope.from_json(parse_canonical(body)) for body in bodies]


def expected_circling(log: Sequence[Envelope]) -> tuple[int | None, bool]:
    """DESIGN, Circling, computed from the log alone: the index of the first move after which
    the last four moves were all counter or need_more_detail and none put a hash new to the
    room on the table, and whether that holds after the last move."""
    seen: set[str] = set()
    quiet: list[bool] = []
    first: int | None = None
    for index, envelope in enumerate(log):
        if not envelope.type.startswith("move."):
            continue
        kind = envelope.type.removeprefix("move.")
        new = False
        if kind in ("offer", "counter"):
            subject_hash = envelope.payload["subject_hash"]
            new = subject_hash not in seen
            seen.add(subject_hash)
        quiet.append(kind in ("counter", "need_more_detail") and not new)
        if first is None and len(quiet) >= 4 and all(quiet[-4:]):
            first = index
    return first, len(quiet) >= 4 and all(quiet[-4:])


class RoomsMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self._tmp = tempfile.TemporaryDirectory()
        base = os.environ.get("ACCORD_TEST_DATABASE_URL")
        self._schema: Iterator[str] | None = _postgres_schema_url(base) if base else None
        url = next(self._schema) if self._schema is not None else None
        self.settings = Settings(data_dir=Path(self._tmp.name) / "data", database_url=url)
        self.db = Database(self.settings.database)
        self.clock = FakeClock()
        self.accord = Accord(self.settings, clock=self.clock, db=self.db)
        self.policy = RoomPolicy(self.settings.invite_ttl, self.settings.idle_ttl)
        self.rooms = self.accord.rooms
        self.models: list[RoomModel] = []
        self.next_message = 0

    def teardown(self) -> None:
        self.db.close()
        if self._schema is not None:
            next(self._schema, None)  # drops the schema
        self._tmp.cleanup()

    # -- reading the store -----------------------------------------------------------------

    def snapshot(self, room_id: str) -> Snapshot:
        def read(conn: Any) -> Snapshot:
            row = records.read_negotiation(conn, room_id)
            assert row is not None and row.state is not None
            return Snapshot(
                records.read_log_bodies(conn, room_id),
                records.read_private(conn, room_id),
                row.state,
            )

        return self.db.read(read)

    def projection(self, room_id: str) -> RoomState:
        return RoomState.model_validate_json(self.snapshot(room_id).state)

    def is_due(self, room_id: str) -> bool:
        state = self.projection(room_id)
        return (
            decide.expire(
                state,
                now=self.clock(),
                policy=self.policy,
            )
            is not None
        )

    def count_rooms(self) -> int:
        return len(self.db.read(records.all_negotiation_ids))

    def model(self, pick: int) -> RoomModel:
        """Mostly a live room that both seats joined (a final one refuses everything),
        sometimes any room."""
        live = [m for m in self.live_models() if m.joined] or self.live_models()
        if live and pick < 6:
            return live[pick % len(live)]
        return self.models[pick % len(self.models)]

    def live_models(self) -> list[RoomModel]:
        return [m for m in self.models if not self.projection(m.room_id).is_final]

    def waiting_models(self) -> list[RoomModel]:
        return [
            m
            for m in self.models
            if any(self.projection(m.room_id).seat_private(s).pending for s in Seat)
        ]

    def can_open(self) -> bool:
        return len(self.models) < MAX_ROOMS and len(self.live_models()) < MAX_LIVE_ROOMS

    def deadline(self, minutes: int | None) -> str | None:
        if minutes is None:
            return None
        return format_time(self.clock() + timedelta(minutes=minutes))

    def actor_token(self, model: RoomModel, actor: str) -> tuple[str, Seat | None]:
        """The token an actor name stands for, and the seat it opens in this room (None when
        it opens nothing here)."""
        if actor == "bogus":
            return BOGUS_TOKEN, None
        if actor == "foreign":
            others = [m for m in self.models if m.room_id != model.room_id]
            return (others[0].tokens[(Seat.OPENER, False)], None) if others else (BOGUS_TOKEN, None)
        where, kind = actor.split("_")
        state = self.projection(model.room_id)
        if where == "turn":
            seat = state.turn or Seat.OPENER
        elif where == "pending":
            waiting = [s for s in Seat if state.seat_private(s).pending is not None]
            seat = waiting[0] if waiting else Seat.OPENER
        else:
            seat = Seat(where)
        token = model.tokens.get((seat, kind == "owner"))
        return (token, seat) if token is not None else (BOGUS_TOKEN, None)

    def check_refused(self, before: Snapshot, after: Snapshot, *, expiry_recorded: bool) -> None:
        """A refused call changed nothing, except that a due expiry is recorded (principle 4)."""
        if not expiry_recorded:
            assert after == before
            return
        assert after.private == before.private
        assert after.log[: len(before.log)] == before.log
        added = [env.type for env in _envelopes(after.log[len(before.log) :])]
        assert added == ["room.expired"], added

    # -- rules -----------------------------------------------------------------------------

    @initialize(
        limits=VALID_LIMITS[Seat.OPENER],
        subject=st.none() | st.sampled_from(TERMS_POOL),
        joiner=st.sampled_from([True, True, True, False]),
        joiner_limits=VALID_LIMITS[Seat.JOINER],
    )
    def first_room(
        self,
        limits: dict[str, Any] | None,
        subject: dict[str, Any] | None,
        joiner: bool,
        joiner_limits: dict[str, Any] | None,
    ) -> None:
        """A room to play in from the first step (its subject may break its own limits)."""
        self.open_room(limits, subject, None, None, None)
        if joiner and self.models:
            self.join_room(0, joiner_limits, True)

    @precondition(lambda self: self.can_open())
    @rule(
        limits=ANY_LIMITS[Seat.OPENER],
        subject=st.none() | TERMS,
        deadline=DEADLINES,
        message=st.none() | st.sampled_from(MESSAGES),
        title=st.none() | st.just("A blue bike"),
    )
    def open_room(
        self,
        limits: dict[str, Any] | None,
        subject: dict[str, Any] | None,
        deadline: int | None,
        message: str | None,
        title: str | None,
    ) -> None:
        request = OpenRequest(
            title=title,
            subject_schema=SCHEMA,
            subject=subject,
            limits=limits,
            deadline=self.deadline(deadline),
            message=message,
        )
        before = self.count_rooms()
        try:
            body = self.rooms.open(request)
        except Refused as exc:
            event(f"open refused: {exc.refusal.code}")
            assert self.count_rooms() == before
            return
        event("open")
        room_id = body["room"]["room_id"]
        assert body["room"] == self.rooms.show(body["owner_token"], room_id)
        self.models.append(
            RoomModel(
                room_id=room_id,
                invite=body["invite"]["token"],
                tokens={
                    (Seat.OPENER, False): body["seat_token"],
                    (Seat.OPENER, True): body["owner_token"],
                },
                nonces={Seat.OPENER: body["limits_opening"]["nonce"]},
                limit_numbers={Seat.OPENER: _numbers(limits)},
            )
        )

    @precondition(lambda self: self.models)
    @rule(pick=PICKS, limits=ANY_LIMITS[Seat.JOINER], real=st.booleans())
    def join_room(self, pick: int, limits: dict[str, Any] | None, real: bool) -> None:
        drafts = [m for m in self.live_models() if not m.joined]
        model = drafts[pick % len(drafts)] if drafts and pick < 6 else self.model(pick)
        invite = model.invite if real else "invite_unknown"
        before, due = self.snapshot(model.room_id), self.is_due(model.room_id)
        try:
            body = self.rooms.join(JoinRequest(invite_token=invite, limits=limits))
        except Refused as exc:
            event(f"join refused: {exc.refusal.code}")
            if model.joined or not real:
                assert exc.refusal.code == RefusalCode.INVITE_INVALID
            self.check_refused(before, self.snapshot(model.room_id), expiry_recorded=real and due)
            return
        event("join")
        assert real and not model.joined and not due
        assert body["room"]["room_id"] == model.room_id
        model.tokens[(Seat.JOINER, False)] = body["seat_token"]
        model.tokens[(Seat.JOINER, True)] = body["owner_token"]
        model.nonces[Seat.JOINER] = body["limits_opening"]["nonce"]
        model.limit_numbers[Seat.JOINER] = _numbers(limits)
        assert body["room"] == self.rooms.show(body["seat_token"], model.room_id)

    @precondition(lambda self: self.models)
    @rule(
        pick=PICKS,
        actor=st.sampled_from(ACTORS),
        kind=st.sampled_from(KINDS),
        terms=TERMS,
        quote=st.sampled_from(["current", "pool", "bogus"]),
        expected=st.sampled_from([None, None, "current", "stale", "ahead"]),
        message_id=st.sampled_from([None, "fresh", "reuse"]),
        reuse=st.integers(0, 20),
        message=st.none() | st.sampled_from(MESSAGES),
        deadline=DEADLINES,
    )
    def move(
        self,
        pick: int,
        actor: str,
        kind: MoveType,
        terms: dict[str, Any],
        quote: str,
        expected: str | None,
        message_id: str | None,
        reuse: int,
        message: str | None,
        deadline: int | None,
    ) -> None:
        model = self.model(pick)
        token, seat = self.actor_token(model, actor)
        state = self.projection(model.room_id)
        fields: dict[str, Any] = {"type": kind}
        if kind in ("offer", "counter"):
            fields |= {"terms": terms, "message": message, "deadline": self.deadline(deadline)}
        elif kind == "need_more_detail":
            fields |= {"message": message or MESSAGES[1], "deadline": self.deadline(deadline)}
        elif kind == "approve":
            table_hash = state.table.subject_hash if state.table else BOGUS_HASH
            quoted = {"current": table_hash, "pool": commit(terms), "bogus": BOGUS_HASH}
            fields["subject_hash"] = quoted[quote]
        else:
            fields["message"] = message
        if expected is not None:
            offset = {"current": 0, "stale": -1, "ahead": 1}[expected]
            fields["expected_seq"] = state.seq + offset
        used = model.used_ids[seat] if seat is not None else []
        if message_id == "reuse" and used:
            fields["message_id"] = used[reuse % len(used)]
        elif message_id is not None:
            self.next_message += 1
            fields["message_id"] = f"msg-{self.next_message}"
        request = MoveRequest(**fields)
        self.send_move(model, token, seat, request)

    @precondition(lambda self: self.models)
    @rule(
        kind=st.sampled_from(HAGGLES),
        terms=st.sampled_from(TERMS_POOL[:3]),
    )
    def haggle(self, kind: str, terms: dict[str, Any]) -> None:
        """A move that is likely legal, in the first live room: by the seat whose turn it is,
        terms on an empty table as an offer, approve quoting the table."""
        name, _, via = kind.partition(":")
        move: MoveType = "approve" if name == "approve" else "need_more_detail"
        if name == "counter":
            has_table = self.projection(self.model(0).room_id).table is not None
            move = "counter" if has_table else "offer"
        actor = "turn_owner" if via == "owner" else "turn_seat"
        self.move(0, actor, move, terms, "current", None, None, 0, None, None)

    def send_move(
        self, model: RoomModel, token: str, seat: Seat | None, request: MoveRequest
    ) -> None:
        mid = request.message_id
        remembered = model.remembered.get((seat, mid)) if seat and mid else None
        before, due = self.snapshot(model.room_id), self.is_due(model.room_id)
        try:
            status, body = self.rooms.move(token, model.room_id, request)
        except Refused as exc:
            code = exc.refusal.code
            event(f"move refused: {code}")
            if seat is None:
                assert code in (RefusalCode.UNAUTHENTICATED, RefusalCode.FORBIDDEN)
            if remembered is not None:
                # DESIGN principle 5: the same id and body returns the first response.
                assert remembered.request != request, code
                assert code == RefusalCode.MESSAGE_ID_REUSED
            recorded = seat is not None and remembered is None and due
            self.check_refused(before, self.snapshot(model.room_id), expiry_recorded=recorded)
            if seat is not None and mid is not None and mid not in model.used_ids[seat]:
                model.used_ids[seat].append(mid)
            return
        assert seat is not None
        if remembered is not None:
            event("move answered from memory")
            assert remembered.request == request, "a reused message_id with another body"
            assert (status, body) == remembered.response
            assert self.snapshot(model.room_id) == before
            return
        event(f"move {request.type} {status}")
        assert not due, "a move went through although the room's expiry was due"
        after = self.snapshot(model.room_id)
        assert after != before
        if status == 200:
            assert len(after.log) > len(before.log)
            assert body["move"]["type"] == f"move.{request.type}"
        else:
            assert status == 202 and after.log == before.log
        assert body["room"] == self.rooms.show(token, model.room_id)
        if mid is not None:
            model.remembered[(seat, mid)] = Remembered(request, (status, body))
            if mid not in model.used_ids[seat]:
                model.used_ids[seat].append(mid)

    @precondition(lambda self: any(m.remembered for m in self.models))
    @rule(pick=st.integers(0, 100), as_owner=st.booleans())
    def retry_move(self, pick: int, as_owner: bool) -> None:
        """The same message_id and body again, by either credential of the seat."""
        entries = [
            (model, seat, entry)
            for model in self.models
            for (seat, _), entry in model.remembered.items()
        ]
        model, seat, entry = entries[pick % len(entries)]
        self.send_move(model, model.tokens[(seat, as_owner)], seat, entry.request)

    @precondition(lambda self: self.models)
    @rule(
        pick=PICKS,
        actor=st.sampled_from(CONFIRMERS),
        which=st.sampled_from(["pending", "pending", "pending", "other", "bogus"]),
        decision=st.sampled_from(["confirm", "decline"]),
    )
    def confirm(
        self, pick: int, actor: str, which: str, decision: Literal["confirm", "decline"]
    ) -> None:
        """Mostly in a room where a confirmation waits."""
        waiting = self.waiting_models()
        model = waiting[pick % len(waiting)] if waiting and pick < 6 else self.model(pick)
        token, seat = self.actor_token(model, actor)
        state = self.projection(model.room_id)
        mine = state.seat_private(seat or Seat.OPENER).pending
        theirs = state.seat_private((seat or Seat.OPENER).other).pending
        chosen = {"pending": mine, "other": theirs, "bogus": None}[which]
        confirmation_id = chosen.id if chosen is not None else "cnf_nothing_0"
        before, due = self.snapshot(model.room_id), self.is_due(model.room_id)
        try:
            body = self.rooms.confirm(
                token, model.room_id, confirmation_id, ConfirmRequest(decision=decision)
            )
        except Refused as exc:
            event(f"confirm refused: {exc.refusal.code}")
            # Confirmations are the owner's: a seat token is refused before the room is read.
            recorded = seat is not None and actor.endswith("_owner") and due
            self.check_refused(before, self.snapshot(model.room_id), expiry_recorded=recorded)
            return
        event(f"confirm {decision}")
        assert seat is not None and not due
        after = self.snapshot(model.room_id)
        assert len(after.private) > len(before.private)
        assert body["room"] == self.rooms.show(token, model.room_id)

    @rule(minutes=JUMPS, sweep=st.booleans())
    def jump(self, minutes: int, sweep: bool) -> None:
        """Time passes (0 minutes: none), then maybe the sweeper runs."""
        self.clock.advance(minutes=minutes)
        if not sweep:
            return
        due = sorted(m.room_id for m in self.models if self.is_due(m.room_id))
        expired = [ended.id for ended in self.accord.negotiations.sweep()]
        event(f"sweep expired {len(expired)}")
        assert sorted(expired) == due
        for room_id in expired:
            log = _envelopes(self.snapshot(room_id).log)
            assert log[-1].type == "room.expired"

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def every_room_tells_one_story(self) -> None:
        for model in self.models:
            self.check_room(model)

    def check_room(self, model: RoomModel) -> None:
        snap = self.snapshot(model.room_id)
        if snap == model.seen:
            return  # checked already, and nothing a later read shows depends on the clock
        log = _envelopes(snap.log)
        private: dict[str, list[Envelope]] = {}
        for party, body in snap.private:
            private.setdefault(party, []).extend(_envelopes([body]))

        # Append-only: what was there before is still there, unchanged.
        if model.seen is not None:
            assert snap.log[: len(model.seen.log)] == model.seen.log
            for party in {p for p, _ in model.seen.private}:
                was = [b for p, b in model.seen.private if p == party]
                now = [b for p, b in snap.private if p == party]
                assert now[: len(was)] == was
        model.seen = snap

        # The chains verify.
        head = verify_chain([envelope.to_json() for envelope in log])
        for records_of_party in private.values():
            verify_chain([record.to_json() for record in records_of_party])

        # The projection is the fold of the log and the private records.
        state = RoomState.model_validate_json(snap.state)
        replayed = replay(log, [(Seat(p), r) for p, rs in private.items() for r in rs])
        assert state.model_dump(mode="json") == replayed.model_dump(mode="json")
        row = self.db.read(lambda conn: records.read_negotiation(conn, model.room_id))
        assert row is not None
        assert (row.seq, row.head_hash, row.is_final) == (len(log) - 1, head, state.is_final)

        if state.is_final:
            event(f"final: {state.final_reason}")
        self.check_finality(log)
        self.check_agreement(log, state)
        circling = self.check_circling(log, state)
        self.check_privacy(model, log, state, circling)

    def check_finality(self, log: Sequence[Envelope]) -> None:
        finals = [i for i, envelope in enumerate(log) if envelope.type in FINAL_TYPES]
        if finals:
            assert finals[0] == len(log) - 1, [e.type for e in log[finals[0] :]]

    def check_agreement(self, log: Sequence[Envelope], state: RoomState) -> None:
        table: Envelope | None = None
        approvals: dict[str, str] = {}
        for index, envelope in enumerate(log):
            if envelope.type in ("move.offer", "move.counter"):
                table, approvals = envelope, {}
            elif envelope.type == "move.approve":
                assert table is not None
                # Only the terms on the table can be approved, once per seat and table.
                assert envelope.payload["subject_hash"] == table.payload["subject_hash"]
                assert envelope.sender["role"] not in approvals
                approvals[envelope.sender["role"]] = envelope.payload["subject_hash"]
            elif envelope.type == "room.agreed":
                assert index > 0 and log[index - 1].type == "move.approve"
                assert table is not None
                subject_hash = table.payload["subject_hash"]
                assert approvals == {"opener": subject_hash, "joiner": subject_hash}
                assert dict(envelope.payload) == {
                    "terms": table.payload["terms"],
                    "subject_hash": subject_hash,
                }
        if table is not None and len(approvals) == 2 and not state.is_final:
            raise AssertionError("both seats approved the table but the room is not agreed")

    def check_circling(self, log: Sequence[Envelope], state: RoomState) -> bool:
        first, holds = expected_circling(log)
        announced = [i for i, envelope in enumerate(log) if envelope.type == "room.circling"]
        assert announced == ([] if first is None else [first + 1])
        assert state.is_circling == holds
        if announced:
            event("circling announced")
        return holds

    def check_privacy(
        self, model: RoomModel, log: Sequence[Envelope], state: RoomState, circling: bool
    ) -> None:
        everyone = set().union(*model.limit_numbers.values())
        public = [envelope.to_json() for envelope in log]
        assert _leaks(public, everyone, list(model.nonces.values())) == []
        if decide.expire(
            state,
            now=self.clock(),
            policy=self.policy,
        ):
            return  # reading now would record the expiry; the next step does it
        for seat in model.nonces:
            other = seat.other
            numbers = model.limit_numbers.get(other, set())
            secrets = [model.nonces.get(other, ""), f"cnf_{other}_"]
            views = []
            for as_owner in (False, True):
                token = model.tokens[(seat, as_owner)]
                room = self.rooms.show(token, model.room_id)
                views.append(room)
                assert _leaks(room, numbers, secrets) == []
                audience = SeatAudience.of(self.rooms.authorize(token, model.room_id))
                after = 0
                while batch := self.accord.events.read(audience, after):
                    data = [json.loads(row.data) for row in batch]
                    assert _leaks(data, numbers, secrets) == []
                    after = batch[-1].id
            assert views[0] == views[1]
            assert views[0]["circling"] == (circling and not state.is_final)
            assert views[0]["seq"] == state.seq


RoomsMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=80, deadline=None)
test_rooms_stateful = RoomsMachine.TestCase

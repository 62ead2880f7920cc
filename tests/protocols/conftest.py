"""Builders for the rooms rules: a `Room` that decides through the pure protocol and records
through the kernel's in-memory log, with a clock that moves only when a test says so."""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from accord.core.chain import verify_chain
from accord.core.envelope import Envelope
from accord.core.protocol import Decision, Notice
from accord.core.refusals import Refusal
from accord.core.step import Log, replay
from accord.core.times import format_time
from accord.protocols.rooms import decide
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.protocols.rooms.state import Actor, RoomPolicy, RoomState, Seat
from accord.protocols.rooms.table import RoomsTable
from accord.protocols.rooms.views import RoomView, view

START = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
BASE_URL = "https://accord.test"

OPENER_AGENT = Actor(Seat.OPENER, is_owner=False)
OPENER_OWNER = Actor(Seat.OPENER, is_owner=True)
JOINER_AGENT = Actor(Seat.JOINER, is_owner=False)
JOINER_OWNER = Actor(Seat.JOINER, is_owner=True)

OPENER_NONCE = "nonce-opener-5f1c9a0d7e3b2a41c6"
JOINER_NONCE = "nonce-joiner-8b2d47e19c0f5a3d72"

SCHEMA: dict[str, Any] = {
    "price": {"type": "money", "currency": "EUR", "label": "Price"},
    "quantity": {"type": "int"},
    "note": {"type": "string", "optional": True},
    "express": {"type": "bool", "optional": True},
    "size": {"type": "enum", "values": ["s", "m", "l"], "optional": True},
    "delivery": {"type": "date", "optional": True},
    "slot": {"type": "timerange", "optional": True},
}


def eur(amount_minor: int) -> dict[str, Any]:
    return {"amount_minor": amount_minor, "currency": "EUR"}


def terms(price: int = 10_000, quantity: int = 10, **more: Any) -> dict[str, Any]:
    return {"price": eur(price), "quantity": quantity, **more}


def at(**delta: float) -> str:
    """A wire time relative to the start of the clock."""
    return format_time(START + timedelta(**delta))


@dataclass
class Room:
    """One room driven through the pure protocol and the kernel's in-memory `Log`: every
    accepted decision is numbered, linked and folded by the one step the server runs too;
    refusals leave everything as it was."""

    policy: RoomPolicy = field(default_factory=RoomPolicy)
    log: Log[RoomState] = field(init=False)

    def __post_init__(self) -> None:
        self.log = Log(RoomsTable(self.policy, base_url=BASE_URL), now=START)

    # -- driving the room ----------------------------------------------------------------

    def try_open(
        self,
        *,
        subject_schema: Mapping[str, Any] | None = None,
        nonce: str = OPENER_NONCE,
        **request: Any,
    ) -> Decision | Refusal:
        schema = SCHEMA if subject_schema is None else subject_schema
        body = OpenRequest(subject_schema=dict(schema), **request)
        return self._record(
            decide.open_room(
                body,
                room_id="room_test",
                name="🦊 Amber Fox",
                nonce=nonce,
                now=self.now,
                policy=self.policy,
            )
        )

    def try_join(self, *, nonce: str = JOINER_NONCE, **request: Any) -> Decision | Refusal:
        body = JoinRequest(invite_token="invite_test", **request)
        return self._record(decide.join_room(self.current, body, nonce=nonce))

    def try_move(self, actor: Actor, type: str, **request: Any) -> Decision | Refusal:
        body = MoveRequest(type=type, **request)  # type: ignore[arg-type]  # tests send any type
        return self._record(
            decide.decide_move(
                self.current, body, actor, now=self.now, seen=self.log.seen.__contains__
            )
        )

    def try_confirm(
        self, actor: Actor, confirmation_id: str | None = None, decision: str = "confirm"
    ) -> Decision | Refusal:
        if confirmation_id is None:
            pending = self.current.seat_private(actor.seat).pending
            confirmation_id = pending.id if pending else "cnf_missing"
        return self._record(
            decide.confirm(self.current, actor, confirmation_id, decision, now=self.now)
        )

    def open(self, **request: Any) -> Decision:
        return _accepted(self.try_open(**request))

    def join(self, **request: Any) -> Decision:
        return _accepted(self.try_join(**request))

    def move(self, actor: Actor, type: str, **request: Any) -> Decision:
        return _accepted(self.try_move(actor, type, **request))

    def confirm(
        self, actor: Actor, confirmation_id: str | None = None, decision: str = "confirm"
    ) -> Decision:
        return _accepted(self.try_confirm(actor, confirmation_id, decision))

    def expire(self) -> Decision | None:
        decision = self.log.expire()
        if decision is not None:
            self._check()
        return decision

    def advance_time(self, **delta: float) -> None:
        self.log.now += timedelta(**delta)

    # -- reading it ----------------------------------------------------------------------

    @property
    def now(self) -> datetime:
        return self.log.now

    @property
    def state(self) -> RoomState | None:
        return self.log.state

    @property
    def current(self) -> RoomState:
        assert self.state is not None, "open the room first"
        return self.state

    @property
    def envelopes(self) -> list[Envelope]:
        return self.log.envelopes

    @property
    def private(self) -> list[tuple[str, Envelope]]:
        return self.log.private

    @property
    def notices(self) -> list[Notice]:
        return self.log.notices

    @property
    def last(self) -> Decision | None:
        return self.log.last

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.envelopes]

    @property
    def seq(self) -> int:
        return self.current.seq

    @property
    def table_hash(self) -> str:
        assert self.current.table is not None, "nothing is on the table"
        return self.current.table.subject_hash

    def view(self, seat: Seat) -> RoomView:
        return view(self.current, seat, policy=self.policy, base_url=BASE_URL)

    def view_json(self, seat: Seat) -> str:
        return json.dumps(self.view(seat).model_dump(mode="json"), ensure_ascii=False)

    def envelopes_of(self, kind: str) -> list[Envelope]:
        return [e for e in self.envelopes if e.type == kind]

    # -- the machinery -------------------------------------------------------------------

    def _record(self, result: Decision | Refusal) -> Decision | Refusal:
        recorded = self.log.record(result)
        if not isinstance(result, Refusal):
            self._check()
        return recorded

    def _check(self) -> None:
        """The log is the truth: the chain verifies and the state is its fold."""
        verify_chain([e.to_json() for e in self.envelopes])
        assert replay(self.log.table, self.envelopes, self.private) == self.state


def _accepted(result: Decision | Refusal) -> Decision:
    assert not isinstance(result, Refusal), f"refused: {result.code} {result.details}"
    return result


@pytest.fixture
def room() -> Room:
    return Room()


def live(r: Room, **join: Any) -> Room:
    """Opened with an opening offer and joined: the joiner's turn, `terms()` on the table."""
    r.open(subject=terms(), limits={"price": {"min": eur(8_765)}})
    r.join(limits=join.get("limits", {"price": {"max": eur(12_345)}}))
    return r


def fresh(r: Room) -> Room:
    """Opened without an offer and joined: the opener's turn, nothing on the table."""
    r.open()
    r.join()
    return r

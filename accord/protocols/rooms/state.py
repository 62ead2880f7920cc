"""Room state: everything the rules need, folded from the public log and the private records."""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import cached_property
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field

from accord.core.times import format_time, parse_time

PROTOCOL: Final = "rooms"
RECENT_MOVES: Final = 50
TAIL: Final = RECENT_MOVES + 4
"""The log's last envelopes that hold the last 50 moves: besides moves, a room's log has only
`room.opened`, `room.joined`, one `room.circling` and one final envelope."""
CIRCLING_WINDOW: Final = 4
MAX_DEADLINE_DAYS: Final = 90


class Seat(StrEnum):
    OPENER = "opener"
    JOINER = "joiner"

    @property
    def other(self) -> "Seat":
        return Seat.JOINER if self is Seat.OPENER else Seat.OPENER


class Status(StrEnum):
    DRAFT = "draft"
    AWAITING = "awaiting"
    AGREED = "agreed"
    CLOSED = "closed"
    EXPIRED = "expired"


FINAL: Final = frozenset({Status.AGREED, Status.CLOSED, Status.EXPIRED})

MoveType = Literal["offer", "counter", "need_more_detail", "approve", "reject", "cancel"]
NEEDS_OWNER: Final[frozenset[MoveType]] = frozenset({"approve", "reject", "cancel"})
SETS_TERMS: Final[frozenset[MoveType]] = frozenset({"offer", "counter"})
SETS_DEADLINE: Final[frozenset[MoveType]] = frozenset({"offer", "counter", "need_more_detail"})
CLOSES: Final[frozenset[MoveType]] = frozenset({"reject", "cancel"})
CIRCLING_MOVES: Final[frozenset[MoveType]] = frozenset({"counter", "need_more_detail"})
Via = Literal["agent", "owner", "confirmed"]


@dataclass(frozen=True)
class Actor:
    """Who is asking: a seat, through its agent (seat token) or its owner (owner token)."""

    seat: Seat
    is_owner: bool


@dataclass(frozen=True)
class RoomPolicy:
    """Operator settings the rules read (DESIGN.md, Configuration)."""

    invite_ttl_seconds: int = 259_200
    idle_ttl_seconds: int = 604_800


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Table(Frozen):
    terms: dict[str, Any]
    subject_hash: str
    proposed_by: Seat


class Approval(Frozen):
    seat: Seat
    subject_hash: str


class MoveEntry(Frozen):
    seq: int
    seat: Seat
    type: MoveType
    via: Via
    at: str
    terms: dict[str, Any] | None = None
    subject_hash: str | None = None
    message: str | None = None
    deadline: str | None = None

    @cached_property
    def shown(self) -> dict[str, Any]:
        """The entry as views show it, made once: absent members omitted, and `via` is the
        log's to tell, not the view's."""
        shown: dict[str, Any] = self.model_dump(mode="json", exclude_none=True, exclude={"via"})
        return shown

    @cached_property
    def shown_json(self) -> orjson.Fragment:
        """`shown` encoded once: a room's answers carry its last 50 moves on every move."""
        return orjson.Fragment(orjson.dumps(self.shown))


class Pending(Frozen):
    """A move the seat's agent asked for, waiting for the seat's owner."""

    id: str
    type: MoveType
    requested_at: str
    subject_hash: str | None = None
    message: str | None = None


class SeatPrivate(Frozen):
    nonce: str = ""
    limits: dict[str, Any] = {}
    pending: Pending | None = None
    requests: int = 0


NO_PRIVATE: Final = SeatPrivate()
"""What a seat that has kept nothing private holds: one frozen instance, not one per read."""


class RoomState(Frozen):
    room_id: str
    name: str
    title: str
    subject_schema: dict[str, Any]
    created_at: str
    updated_at: str
    seq: int
    status: Status
    turn: Seat | None
    table: Table | None = None
    approvals: tuple[Approval, ...] = ()
    deadline: str | None = None
    invite_expires_at: str
    last_activity_at: str
    commitments: dict[Seat, str] = {}
    limits_compatible: bool | None = None
    incompatible_fields: tuple[str, ...] = ()
    circling_announced: bool = False
    recent: tuple[tuple[str, bool], ...] = ()
    """The last four moves' types, each with whether it put terms on the table that the room
    had not seen before (the log's `Seen`, keyed by `seen_form`): for circling."""
    moves: tuple[MoveEntry, ...] = Field(default=(), exclude=True)
    """The last 50 moves: not stored with the state, since the log's tail holds them."""
    moves_total: int = 0
    final_reason: str | None = None
    private: dict[Seat, SeatPrivate] = {}

    @property
    def is_final(self) -> bool:
        return self.status in FINAL

    @property
    def is_circling(self) -> bool:
        return is_circling(self.recent)

    def seat_private(self, seat: Seat) -> SeatPrivate:
        return self.private.get(seat, NO_PRIVATE)


def is_circling(recent: tuple[tuple[str, bool], ...]) -> bool:
    """rooms-and-turns, Circling: the last four moves were all counter or need_more_detail,
    and none of them put terms on the table whose hash was new to the room."""
    window = recent[-CIRCLING_WINDOW:]
    return len(window) == CIRCLING_WINDOW and all(
        kind in CIRCLING_MOVES and not new for kind, new in window
    )


def seen_form(subject_hash: str) -> str:
    """The first 64 bits of a subject_hash: enough to tell a room's terms apart (a collision
    among one room's terms is beyond reach), at a quarter of the bytes."""
    return subject_hash.removeprefix("sha256:")[:16]


def expires_at(state: RoomState, policy: RoomPolicy) -> str | None:
    """When the room expires if nothing happens: the earlier of its deadline and the invite's
    expiry (draft) or seven idle days after the last move or the join (live)."""
    if state.is_final:
        return None
    if state.status is Status.DRAFT:
        limit = state.invite_expires_at
    else:
        idle = parse_time(state.last_activity_at) + timedelta(seconds=policy.idle_ttl_seconds)
        limit = format_time(idle)
    return min(limit, state.deadline) if state.deadline else limit


def expiry_reason(state: RoomState, policy: RoomPolicy, now: datetime) -> str | None:
    """Why the room is due to expire at `now`, or None when it is not."""
    due = expires_at(state, policy)
    if due is None or due > format_time(now):
        return None
    if state.deadline is not None and state.deadline == due:
        return "deadline"
    return "invite" if state.status is Status.DRAFT else "idle"


def seat_of(sender: Mapping[str, str]) -> Seat:
    return Seat(sender["role"])

"""Rooms (spec/rooms-api.md): open, join and list them, and act for one seat.

A `RoomSeat` is the seat interface agents use (spec/agents.md): read the view, make a move,
wait for the next event. With a seat token, approve, reject and cancel only ask: they answer
`AwaitingOwner` until the seat's owner confirms. With the owner token they apply at once, and
the owner confirms or declines what its agent asked.
"""

from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from accord.core.times import format_time
from accord.protocols.rooms.moves import MoveRequest
from accord.sdk import _events
from accord.sdk import _operations as ops
from accord.sdk._base import Call
from accord.sdk._errors import AccordError
from accord.sdk._models import (
    Applied,
    AwaitingOwner,
    Confirmation,
    Decided,
    Event,
    Invite,
    Joined,
    LimitsOpening,
    LinkCode,
    Log,
    Receipt,
    Room,
    RoomList,
)

if TYPE_CHECKING:
    from accord.sdk._client import Accord, AsyncAccord

SeatT = TypeVar("SeatT", "RoomSeat", "AsyncRoomSeat")
Terms = Mapping[str, Any]
When = str | datetime


@dataclass(frozen=True)
class JoinedRoom(Generic[SeatT]):
    """A seat just taken: the room, the seat for its agent (seat token) and for its person
    (owner token), and the opening of its limits commitment, given this once."""

    room: Room
    seat: SeatT
    owner: SeatT
    limits_opening: LimitsOpening
    answer: Joined

    def to_json(self) -> dict[str, Any]:
        """The server's answer as sent, tokens included."""
        return self.answer.to_json()


@dataclass(frozen=True)
class OpenedRoom(JoinedRoom[SeatT]):
    """A room just opened: a join's, and the invite (single use) for the other party."""

    invite: Invite


def _members(**members: Any) -> dict[str, Any]:
    """A body without the members left out (None): the server reads absent, not null."""
    return {name: value for name, value in members.items() if value is not None}


def _move(kind: str, *, deadline: When | None = None, **members: Any) -> dict[str, Any]:
    when = format_time(deadline) if isinstance(deadline, datetime) else deadline
    return _members(type=kind, deadline=when, **members)


def _invite_token(invite: str) -> str:
    """The token, also from the invite URL (`…/rooms/join#TOKEN`)."""
    return invite.rpartition("#")[2].strip()


def _only_room(listed: RoomList) -> str:
    if not listed.rooms:
        raise AccordError("unauthenticated", "This token opens no room on this server.")
    return listed.rooms[0].room_id


class _Seat:
    """What a seat's twins share: the token, the room, and where its events resume."""

    def __init__(self, token: str, room_id: str) -> None:
        self.token = token
        self.room_id = room_id
        self.last_event_id: int | None = None
        """The id of the last event this seat read; `events()` and `next_event()` go on
        after it."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(room_id={self.room_id!r})"

    @property
    def _path(self) -> dict[str, str]:
        return {"room_id": self.room_id}

    def _stream(self, client: "Accord | AsyncAccord") -> _events.StreamCall:
        def build(after: int | None, read_timeout: float | None) -> Call[Any]:
            headers = {"Accept": "text/event-stream"}
            if after is not None:
                headers["Last-Event-ID"] = str(after)
            return client._build(
                ops.ROOM_EVENTS,
                token=self.token,
                path=self._path,
                headers=headers,
                read_timeout=read_timeout,
            )

        return build

    def _after(self, after: int | None) -> int | None:
        return self.last_event_id if after is None else after


class RoomSeat(_Seat):
    """One seat of a room, held by its seat token (the agent) or its owner token (the
    person)."""

    def __init__(self, client: "Accord", token: str, room_id: str) -> None:
        super().__init__(token, room_id)
        self._client = client

    def view(self) -> Room:
        return self._client._call(ops.SHOW_ROOM, token=self.token, path=self._path)

    def move(self, move: MoveRequest | Mapping[str, Any]) -> Applied | AwaitingOwner:
        """Any move, as `MoveRequest` or its JSON; without a `message_id` it gets one."""
        return self._client._call(ops.MOVE, token=self.token, path=self._path, body=move)

    def offer(
        self,
        terms: Terms,
        *,
        message: str | None = None,
        deadline: When | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return self.move(
            _move("offer", terms=dict(terms), message=message, deadline=deadline,
                  expected_seq=expected_seq, message_id=message_id)
        )  # fmt: skip

    def counter(
        self,
        terms: Terms,
        *,
        message: str | None = None,
        deadline: When | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return self.move(
            _move("counter", terms=dict(terms), message=message, deadline=deadline,
                  expected_seq=expected_seq, message_id=message_id)
        )  # fmt: skip

    def ask(
        self,
        message: str,
        *,
        deadline: When | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        """need_more_detail: a question; the table and its approvals stay as they are."""
        return self.move(
            _move("need_more_detail", message=message, deadline=deadline,
                  expected_seq=expected_seq, message_id=message_id)
        )  # fmt: skip

    def approve(
        self, subject_hash: str, *, expected_seq: int | None = None, message_id: str | None = None
    ) -> Applied | AwaitingOwner:
        return self.move(
            _move("approve", subject_hash=subject_hash, expected_seq=expected_seq,
                  message_id=message_id)
        )  # fmt: skip

    def reject(
        self,
        *,
        message: str | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return self.move(
            _move("reject", message=message, expected_seq=expected_seq, message_id=message_id)
        )

    def cancel(
        self,
        *,
        message: str | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return self.move(
            _move("cancel", message=message, expected_seq=expected_seq, message_id=message_id)
        )

    def confirmations(self) -> list[Confirmation]:
        """What the seat's agent asked for and its owner has not decided (owner token)."""
        found = self._client._call(ops.CONFIRMATIONS, token=self.token, path=self._path)
        return found.confirmations

    def confirm(self, confirmation_id: str) -> Decided:
        return self._decide(confirmation_id, "confirm")

    def decline(self, confirmation_id: str) -> Decided:
        """The turn stays where it was."""
        return self._decide(confirmation_id, "decline")

    def _decide(self, confirmation_id: str, decision: str) -> Decided:
        path = {**self._path, "confirmation_id": confirmation_id}
        return self._client._call(
            ops.DECIDE, token=self.token, path=path, body={"decision": decision}
        )

    def log(self) -> Log:
        return self._client._call(ops.ROOM_LOG, token=self.token, path=self._path)

    def receipt(self) -> Receipt:
        """`room_open` until the room is agreed, closed or expired."""
        return self._client._call(ops.ROOM_RECEIPT, token=self.token, path=self._path)

    def link(self) -> LinkCode:
        """A one-time link that opens this room in a browser as its owner (owner token)."""
        return self._client._call(ops.MAKE_LINK, token=self.token, body={})

    def events(self, after: int | None = None) -> Iterator[Event]:
        """This seat's events after `after` (by default after the last one it read), for as
        long as they are read; a dropped stream resumes where it stopped."""
        for event in _events.follow(self._client, self._stream(self._client), self._after(after)):
            self.last_event_id = event.id
            yield event

    def next_event(self, timeout: float) -> Event | None:
        """The next event after the last one read, or None after `timeout` seconds."""
        stream = self._stream(self._client)
        event = _events.next_event(self._client, stream, self.last_event_id, timeout)
        if event is not None:
            self.last_event_id = event.id
        return event


class AsyncRoomSeat(_Seat):
    """`RoomSeat` for an event loop."""

    def __init__(self, client: "AsyncAccord", token: str, room_id: str) -> None:
        super().__init__(token, room_id)
        self._client = client

    async def view(self) -> Room:
        return await self._client._call(ops.SHOW_ROOM, token=self.token, path=self._path)

    async def move(self, move: MoveRequest | Mapping[str, Any]) -> Applied | AwaitingOwner:
        return await self._client._call(ops.MOVE, token=self.token, path=self._path, body=move)

    async def offer(
        self,
        terms: Terms,
        *,
        message: str | None = None,
        deadline: When | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return await self.move(
            _move("offer", terms=dict(terms), message=message, deadline=deadline,
                  expected_seq=expected_seq, message_id=message_id)
        )  # fmt: skip

    async def counter(
        self,
        terms: Terms,
        *,
        message: str | None = None,
        deadline: When | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return await self.move(
            _move("counter", terms=dict(terms), message=message, deadline=deadline,
                  expected_seq=expected_seq, message_id=message_id)
        )  # fmt: skip

    async def ask(
        self,
        message: str,
        *,
        deadline: When | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return await self.move(
            _move("need_more_detail", message=message, deadline=deadline,
                  expected_seq=expected_seq, message_id=message_id)
        )  # fmt: skip

    async def approve(
        self, subject_hash: str, *, expected_seq: int | None = None, message_id: str | None = None
    ) -> Applied | AwaitingOwner:
        return await self.move(
            _move("approve", subject_hash=subject_hash, expected_seq=expected_seq,
                  message_id=message_id)
        )  # fmt: skip

    async def reject(
        self,
        *,
        message: str | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return await self.move(
            _move("reject", message=message, expected_seq=expected_seq, message_id=message_id)
        )

    async def cancel(
        self,
        *,
        message: str | None = None,
        expected_seq: int | None = None,
        message_id: str | None = None,
    ) -> Applied | AwaitingOwner:
        return await self.move(
            _move("cancel", message=message, expected_seq=expected_seq, message_id=message_id)
        )

    async def confirmations(self) -> list[Confirmation]:
        found = await self._client._call(ops.CONFIRMATIONS, token=self.token, path=self._path)
        return found.confirmations

    async def confirm(self, confirmation_id: str) -> Decided:
        return await self._decide(confirmation_id, "confirm")

    async def decline(self, confirmation_id: str) -> Decided:
        return await self._decide(confirmation_id, "decline")

    async def _decide(self, confirmation_id: str, decision: str) -> Decided:
        path = {**self._path, "confirmation_id": confirmation_id}
        return await self._client._call(
            ops.DECIDE, token=self.token, path=path, body={"decision": decision}
        )

    async def log(self) -> Log:
        return await self._client._call(ops.ROOM_LOG, token=self.token, path=self._path)

    async def receipt(self) -> Receipt:
        return await self._client._call(ops.ROOM_RECEIPT, token=self.token, path=self._path)

    async def link(self) -> LinkCode:
        return await self._client._call(ops.MAKE_LINK, token=self.token, body={})

    async def events(self, after: int | None = None) -> AsyncGenerator[Event, None]:
        stream = self._stream(self._client)
        async for event in _events.afollow(self._client, stream, self._after(after)):
            self.last_event_id = event.id
            yield event

    async def next_event(self, timeout: float) -> Event | None:
        stream = self._stream(self._client)
        event = await _events.anext_event(self._client, stream, self.last_event_id, timeout)
        if event is not None:
            self.last_event_id = event.id
        return event


class Rooms:
    """`accord.rooms`: open and join rooms, find them by token, and sit at one."""

    def __init__(self, client: "Accord") -> None:
        self._client = client

    def open(
        self,
        subject_schema: Mapping[str, Any],
        *,
        subject: Terms | None = None,
        limits: Mapping[str, Any] | None = None,
        title: str | None = None,
        deadline: When | None = None,
        message: str | None = None,
    ) -> OpenedRoom[RoomSeat]:
        """Open a room; `subject` is the opening offer, `limits` stay private to your seat.
        Sent again only if it never left: a retry could open a second room."""
        body = _open_body(subject_schema, subject, limits, title, deadline, message)
        answer = self._client._call(ops.OPEN_ROOM, body=body)
        seat, owner = self._seats(answer)
        return OpenedRoom(answer.room, seat, owner, answer.limits_opening, answer, answer.invite)

    def join(self, invite: str, *, limits: Mapping[str, Any] | None = None) -> JoinedRoom[RoomSeat]:
        """Join with the invite token (or the invite URL) the other party gave you."""
        body = _members(invite_token=_invite_token(invite), limits=_dict(limits))
        answer = self._client._call(ops.JOIN_ROOM, body=body)
        seat, owner = self._seats(answer)
        return JoinedRoom(answer.room, seat, owner, answer.limits_opening, answer)

    def seat(self, token: str, *, room_id: str | None = None) -> RoomSeat:
        """The seat a seat or owner token holds; without `room_id` the server is asked
        which room the token opens."""
        if room_id is None:
            room_id = _only_room(self.list([token], include_closed=True))
        return RoomSeat(self._client, token, room_id)

    def _seats(self, answer: Joined) -> tuple[RoomSeat, RoomSeat]:
        room_id = answer.room.room_id
        return (
            RoomSeat(self._client, answer.seat_token, room_id),
            RoomSeat(self._client, answer.owner_token, room_id),
        )

    def list(self, tokens: Sequence[str], *, include_closed: bool = False) -> RoomList:
        """The rooms these tokens open (at most 200 a call), one row per seat."""
        body = {"tokens": list(tokens), "include_closed": include_closed}
        return self._client._call(ops.LIST_ROOMS, body=body)


class AsyncRooms:
    """`Rooms` for an event loop."""

    def __init__(self, client: "AsyncAccord") -> None:
        self._client = client

    async def open(
        self,
        subject_schema: Mapping[str, Any],
        *,
        subject: Terms | None = None,
        limits: Mapping[str, Any] | None = None,
        title: str | None = None,
        deadline: When | None = None,
        message: str | None = None,
    ) -> OpenedRoom[AsyncRoomSeat]:
        body = _open_body(subject_schema, subject, limits, title, deadline, message)
        answer = await self._client._call(ops.OPEN_ROOM, body=body)
        seat, owner = self._seats(answer)
        return OpenedRoom(answer.room, seat, owner, answer.limits_opening, answer, answer.invite)

    async def join(
        self, invite: str, *, limits: Mapping[str, Any] | None = None
    ) -> JoinedRoom[AsyncRoomSeat]:
        body = _members(invite_token=_invite_token(invite), limits=_dict(limits))
        answer = await self._client._call(ops.JOIN_ROOM, body=body)
        seat, owner = self._seats(answer)
        return JoinedRoom(answer.room, seat, owner, answer.limits_opening, answer)

    async def seat(self, token: str, *, room_id: str | None = None) -> AsyncRoomSeat:
        if room_id is None:
            room_id = _only_room(await self.list([token], include_closed=True))
        return AsyncRoomSeat(self._client, token, room_id)

    def _seats(self, answer: Joined) -> tuple[AsyncRoomSeat, AsyncRoomSeat]:
        room_id = answer.room.room_id
        return (
            AsyncRoomSeat(self._client, answer.seat_token, room_id),
            AsyncRoomSeat(self._client, answer.owner_token, room_id),
        )

    async def list(self, tokens: Sequence[str], *, include_closed: bool = False) -> RoomList:
        body = {"tokens": list(tokens), "include_closed": include_closed}
        return await self._client._call(ops.LIST_ROOMS, body=body)


def _dict(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    return None if value is None else dict(value)


def _open_body(
    subject_schema: Mapping[str, Any],
    subject: Terms | None,
    limits: Mapping[str, Any] | None,
    title: str | None,
    deadline: When | None,
    message: str | None,
) -> dict[str, Any]:
    when = format_time(deadline) if isinstance(deadline, datetime) else deadline
    return _members(
        subject_schema=dict(subject_schema),
        subject=_dict(subject),
        limits=_dict(limits),
        title=title,
        deadline=when,
        message=message,
    )

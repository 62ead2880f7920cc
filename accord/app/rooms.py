"""Rooms as a service: every adapter (HTTP, CLI, agents) opens, joins, reads and moves
through these methods. What is the same for every table (locking, idempotency, expiry, the
writer, signing) is the kernel's (`negotiations.py`); this keeps the room's credentials and
views."""

import json
import secrets
from collections.abc import Callable
from enum import StrEnum
from functools import partial
from typing import Any, Final

import orjson
from sqlalchemy import Connection

from accord.app.identity import Caller, CredentialCache, CredentialKind, SeatCaller, resolve
from accord.app.links import OWNER_LINK_TTL, Links
from accord.app.negotiations import Answer, Loaded, Move, Negotiations, encode, request_hash
from accord.app.settings import Settings
from accord.app.tokens import hash_token, new_id, new_nonce, new_token
from accord.core.protocol import Decision
from accord.core.refusals import Refusal, RefusalCode, Refused, refuse
from accord.core.times import format_time, parse_time
from accord.protocols.rooms import decide, names
from accord.protocols.rooms.apply import recent_moves
from accord.protocols.rooms.moves import (
    ConfirmRequest,
    JoinRequest,
    ListRequest,
    MoveRequest,
    OpenRequest,
)
from accord.protocols.rooms.state import TAIL, Actor, RoomState, Seat, Status
from accord.protocols.rooms.table import Confirmation, Join, RoomsTable
from accord.protocols.rooms.views import confirmations, history
from accord.store import records

NAME_TRIES: Final = 24
SEAT_KINDS: Final = frozenset({CredentialKind.SEAT, CredentialKind.OWNER})

JSONBody = dict[str, Any]


class RoomAction(StrEnum):
    """What a room's credential may be asked to do."""

    READ = "read"  # the room, its log, receipt and events; a move (an agent's may wait)
    CONFIRM = "confirm"  # the seat's confirmations: list, confirm, decline


def may(caller: Caller | None, action: RoomAction, room_id: str) -> SeatCaller:
    """unauthenticated → forbidden: a seat or owner credential of this room; only the
    owner sees and answers its seat's confirmations."""
    if caller is None:
        raise refuse(RefusalCode.UNAUTHENTICATED, "This credential opens nothing; check the token.")
    if not isinstance(caller, SeatCaller) or caller.negotiation_id != room_id:
        raise refuse(RefusalCode.FORBIDDEN, "This credential belongs to another room.")
    if action is RoomAction.CONFIRM and not caller.is_owner:
        raise refuse(
            RefusalCode.FORBIDDEN, "Only the seat's owner sees and answers its confirmations."
        )
    return caller


class Rooms:
    def __init__(
        self, kernel: Negotiations, table: RoomsTable, settings: Settings, *, links: Links
    ) -> None:
        self._kernel = kernel
        self._table = table
        self._settings = settings
        self._links = links
        self._credentials = CredentialCache()

    # -- writes --------------------------------------------------------------------------

    def open(self, request: OpenRequest) -> JSONBody:
        room_id = new_id("room")
        nonce = new_nonce()
        seat_token, owner_token = new_token("seat"), new_token("owner")
        invite_token = new_token("invite")

        def txn(conn: Connection) -> JSONBody:
            now = self._kernel.clock()
            name = self._free_name(conn)
            decision = decide.open_room(
                request,
                room_id=room_id,
                name=name,
                nonce=nonce,
                now=now,
                policy=self._table.policy,
            )
            if isinstance(decision, Refusal):
                raise Refused(decision)
            loaded = self._kernel.create(conn, self._table, room_id, decision, now, name=name)
            ts = format_time(now)
            for token, party, kind in (
                (seat_token, Seat.OPENER, "seat"),
                (owner_token, Seat.OPENER, "owner"),
                (invite_token, Seat.JOINER, "invite"),
            ):
                records.insert_credential(conn, hash_token(token), room_id, party, kind, ts)
            room = loaded.state
            return {
                "room": self._view(room, Seat.OPENER),
                "seat_token": seat_token,
                **self._owner(conn, request.owner_delivery, owner_token, room_id, Seat.OPENER),
                "limits_opening": _opening(room, Seat.OPENER),
                "invite": {
                    "token": invite_token,
                    "url": f"{self._settings.base_url}/rooms/join#{invite_token}",
                    "expires_at": room.invite_expires_at,
                },
            }

        return self._kernel.write(txn)

    def join(self, request: JoinRequest) -> JSONBody:
        seat_token, owner_token = new_token("seat"), new_token("owner")
        invalid = refuse(
            RefusalCode.INVITE_INVALID, "This invite was used, has expired or is unknown."
        )

        def txn(conn: Connection) -> JSONBody | Refused:
            invite_hash = hash_token(request.invite_token)
            found = records.find_credentials(conn, [invite_hash]).get(invite_hash)
            if found is None or found.kind != "invite":
                return invalid
            loaded = self._kernel.lock(conn, self._table, found.negotiation_id)
            joiner = Actor(Seat.JOINER, is_owner=True)
            decided = self._kernel.decide(conn, self._table, loaded, Join(request), joiner)
            if isinstance(decided, Refused):
                return decided
            ts = format_time(self._kernel.clock())
            room_id = loaded.id
            records.insert_credential(
                conn, hash_token(seat_token), room_id, Seat.JOINER, "seat", ts
            )
            records.insert_credential(
                conn, hash_token(owner_token), room_id, Seat.JOINER, "owner", ts
            )
            return {
                "room": self._view(loaded.state, Seat.JOINER),
                "seat_token": seat_token,
                **self._owner(conn, request.owner_delivery, owner_token, room_id, Seat.JOINER),
                "limits_opening": _opening(loaded.state, Seat.JOINER),
            }

        return self._kernel.write(txn)

    def move(self, token: str | None, room_id: str, request: MoveRequest) -> tuple[int, JSONBody]:
        answer = self._kernel.write(self._move_txn(token, room_id, request))
        return answer.status, json.loads(answer.body)

    async def move_async(self, token: str | None, room_id: str, request: MoveRequest) -> Answer:
        """The same move for an event loop: no thread waits while the writer works."""
        return await self._kernel.write_async(self._move_txn(token, room_id, request))

    def _move_txn(
        self, token: str | None, room_id: str, request: MoveRequest
    ) -> Callable[[Connection], Answer | Refused]:
        message_id = request.message_id
        move: Move[RoomState, SeatCaller] = Move(
            authorize=partial(self._authorize, token=token, room_id=room_id),
            party=lambda access: access.party,
            actor=_actor,
            move=request,
            answer=self._answer,
            repeat=partial(self._repeat, room_id=room_id),
            message_id=message_id,
            request_hash=(
                request_hash(request.model_dump(mode="json", exclude_none=True))
                if message_id is not None
                else ""
            ),
        )
        return self._kernel.move(self._table, room_id, move)

    def _answer(self, loaded: Loaded[RoomState], decision: Decision, access: SeatCaller) -> Answer:
        seat = Seat(access.party)
        room = self._view(loaded.state, seat)
        moves = [entry.shown_json for entry in loaded.state.moves]
        if decision.public:
            played = next(e for e in loaded.public if e.type.startswith("move."))
            return _kept(200, room, moves, "move", played.to_json())
        pending = confirmations(loaded.state, seat)[0]
        return _kept(202, room, moves, "confirmation", pending.model_dump(mode="json"))

    def _repeat(self, conn: Connection, seen: records.Remembered, *, room_id: str) -> Answer:
        """The first answer again: the stored one, with the moves its view showed re-read
        from the log (the log's envelopes never change, so they are the same)."""
        body = orjson.loads(seen.response)
        room = body["room"]
        if room["moves"] is None:
            tail = records.read_log_tail(conn, room_id, last_seq=room["seq"], size=TAIL)
            room["moves"] = [entry.shown for entry in recent_moves(tail)]
        return Answer(seen.status, encode(body))

    def confirm(
        self, token: str | None, room_id: str, confirmation_id: str, request: ConfirmRequest
    ) -> JSONBody:
        def txn(conn: Connection) -> JSONBody | Refused:
            access = self._authorize(conn, token=token, room_id=room_id, action=RoomAction.CONFIRM)
            loaded = self._kernel.lock(conn, self._table, room_id)
            answer = Confirmation(confirmation_id, request.decision)
            decided = self._kernel.decide(conn, self._table, loaded, answer, _actor(access))
            if isinstance(decided, Refused):
                return decided
            return {"room": self._view(loaded.state, Seat(access.party))}

        return self._kernel.write(txn)

    # -- reads ---------------------------------------------------------------------------

    def invite_preview(self, invite_token: str) -> JSONBody:
        """What the holder of an invite sees before joining (A6): what it would see anyway
        once joined, `{name, title, subject_schema, table, expires_at}`; `invite_invalid` for
        a used, expired or unknown invite. Nothing is recorded."""
        invalid = refuse(
            RefusalCode.INVITE_INVALID, "This invite was used, has expired or is unknown."
        )
        invite_hash = hash_token(invite_token) if invite_token else ""

        def read(conn: Connection) -> str:
            found = records.find_credentials(conn, [invite_hash]).get(invite_hash)
            if found is None or found.kind != "invite":
                raise invalid
            return found.negotiation_id

        room_id = self._kernel.read(read)
        _, state = self._kernel.current(self._table, room_id, lambda conn: None)
        expired = parse_time(state.invite_expires_at) <= self._kernel.clock()
        if state.status is not Status.DRAFT or expired:
            raise invalid
        table = state.table
        return {
            "name": state.name,
            "title": state.title,
            "subject_schema": state.subject_schema,
            "table": {"terms": table.terms, "subject_hash": table.subject_hash} if table else None,
            "expires_at": state.invite_expires_at,
        }

    def show(self, token: str | None, room_id: str) -> JSONBody:
        access, state = self._current(token, room_id)
        return self._view(state, Seat(access.party))

    def history(self, token: str | None, room_id: str) -> list[JSONBody]:
        """The last moves as the seat's owner reads them: by which door, which fields changed."""
        _, state = self._current(token, room_id)
        return history(state.moves)

    def follow(self, token: str | None, room_id: str) -> SeatCaller:
        """The seat a stream is for. Opening one is an access: a passed deadline is recorded
        first, so the stream starts from the room as it now is."""
        access, _ = self._current(token, room_id)
        return access

    def pending(self, token: str | None, room_id: str) -> JSONBody:
        access, state = self._current(token, room_id, RoomAction.CONFIRM)
        items = confirmations(state, Seat(access.party))
        return {"confirmations": [c.model_dump(mode="json") for c in items]}

    def log(self, token: str | None, room_id: str) -> JSONBody:
        self._current(token, room_id)
        return {"envelopes": self._kernel.log(room_id)}

    def list_rooms(self, request: ListRequest) -> JSONBody:
        hashes = [hash_token(t) for t in request.tokens]
        found = self._kernel.read(lambda conn: records.find_credentials(conn, hashes))
        seats: dict[str, set[str]] = {}
        for credential in found.values():
            if credential.kind in SEAT_KINDS:
                seats.setdefault(credential.negotiation_id, set()).add(credential.party)
        rooms = []
        for room_id in sorted(seats):
            _, state = self._kernel.current(self._table, room_id, lambda conn: None)
            if state.is_final and not request.include_closed:
                continue
            for party in sorted(seats[room_id]):
                rooms.append(
                    {
                        "room_id": room_id,
                        "name": state.name,
                        "seat": party,
                        "state": state.status,
                        "your_turn": state.turn == party,
                        "deadline": state.deadline,
                    }
                )
        return {"rooms": rooms}

    def receipt(self, token: str | None, room_id: str) -> JSONBody:
        """The receipt of a final room; `room_open` while the room goes on."""
        _, state = self._current(token, room_id)
        if not state.is_final:
            raise refuse(RefusalCode.ROOM_OPEN, "The room is not final yet; it has no receipt.")
        return self._kernel.receipt(self._table, room_id, state)

    def authorize_known(
        self, token: str | None, room_id: str, action: RoomAction = RoomAction.READ
    ) -> SeatCaller | None:
        """The seat of a credential this process has seen, without touching the store; None
        when it must be looked up (or refused) with `authorize`."""
        found = self._credentials.known(hash_token(token)) if token else None
        if found is None or found.kind not in SEAT_KINDS:
            return None
        caller = SeatCaller(found.negotiation_id, found.party, found.kind == CredentialKind.OWNER)
        allowed = caller.negotiation_id == room_id and (
            action is RoomAction.READ or caller.is_owner
        )
        return caller if allowed else None

    def authorize(
        self, token: str | None, room_id: str, action: RoomAction = RoomAction.READ
    ) -> SeatCaller:
        return self._kernel.read(
            partial(self._authorize, token=token, room_id=room_id, action=action)
        )

    # -- the room's own ------------------------------------------------------------------

    def _authorize(
        self,
        conn: Connection,
        *,
        token: str | None,
        room_id: str,
        action: RoomAction = RoomAction.READ,
    ) -> SeatCaller:
        if not token:
            raise refuse(
                RefusalCode.UNAUTHENTICATED, "Send your seat or owner token as a Bearer credential."
            )
        return may(resolve(conn, token, self._credentials), action, room_id)

    def _current(
        self, token: str | None, room_id: str, action: RoomAction = RoomAction.READ
    ) -> tuple[SeatCaller, RoomState]:
        authorize = partial(self._authorize, token=token, room_id=room_id, action=action)
        return self._kernel.current(self._table, room_id, authorize)

    def _owner(
        self, conn: Connection, delivery: str, owner_token: str, room_id: str, seat: Seat
    ) -> JSONBody:
        """The owner's credential as the opener or joiner asked for it: the token itself, or a
        one-time link for the person in its place, so that the token never leaves the server."""
        if delivery == "token":
            return {"owner_token": owner_token}
        caller = SeatCaller(room_id, seat, is_owner=True)
        minted = self._links.mint_in(conn, owner_token, caller, ttl=OWNER_LINK_TTL)
        link = {"url": minted["web_url"], "expires_at": minted["expires_at"]}
        if "telegram_url" in minted:
            link["telegram_url"] = minted["telegram_url"]
        return {"owner_link": link}

    def _free_name(self, conn: Connection) -> str:
        rng = secrets.SystemRandom()
        sizes = (len(names.ADJECTIVES), len(names.ANIMALS))
        for attempt in range(NAME_TRIES):
            suffix = 0 if attempt < NAME_TRIES // 2 else rng.randrange(2, 10_000)
            name = names.room_name(rng.randrange(sizes[0]), rng.randrange(sizes[1]), suffix)
            if not records.is_name_live(conn, name):
                return name
        return names.room_name(0, 0, rng.randrange(10_000, 10**9))

    def _view(self, state: RoomState, seat: Seat) -> JSONBody:
        return self._table.view(state, seat)


def _actor(access: SeatCaller) -> Actor:
    return Actor(Seat(access.party), access.is_owner)


def _kept(
    status: int, room: JSONBody, moves: list[orjson.Fragment], name: str, value: JSONBody
) -> Answer:
    """A move's answer, and the same as stored for a retry: its view's moves are left out
    (`_repeat` reads them back), so that what a move stores stays the size of the move. The
    moves are each encoded once (`MoveEntry.shown_json`), not again on every move."""
    return Answer(
        status,
        encode({"room": {**room, "moves": moves}, name: value}),
        kept=encode({"room": {**room, "moves": None}, name: value}),
    )


def _opening(state: RoomState, seat: Seat) -> JSONBody:
    mine = state.seat_private(seat)
    return {"nonce": mine.nonce, "limits": mine.limits}

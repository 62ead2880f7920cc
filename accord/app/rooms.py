"""Rooms as a service: every adapter (HTTP, CLI, agents) opens, joins, reads and moves
through these methods. Each write is one transaction: lock, load, decide, append, project."""

import asyncio
import json
import secrets
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any, Final, TypeVar

from sqlalchemy import Connection

from accord.app.access import SEAT_KINDS, Access, CredentialCache, authorize
from accord.app.engine import Answer, Engine, Loaded, encode
from accord.app.notifier import Notifier
from accord.app.settings import Settings
from accord.app.tokens import hash_token, new_id, new_nonce, new_token
from accord.core.commit import commit
from accord.core.envelope import Envelope
from accord.core.jsonio import canonical
from accord.core.protocol import Decision
from accord.core.refusals import Refusal, RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.protocols.rooms import decide, names
from accord.protocols.rooms.apply import apply, apply_private
from accord.protocols.rooms.moves import (
    ConfirmRequest,
    JoinRequest,
    ListRequest,
    MoveRequest,
    OpenRequest,
    shape_problems,
)
from accord.protocols.rooms.receipt import build_receipt
from accord.protocols.rooms.state import (
    PROTOCOL,
    Actor,
    RoomPolicy,
    RoomState,
    Seat,
    Status,
    expires_at,
)
from accord.protocols.rooms.views import confirmations, view_json
from accord.store import records
from accord.store.database import Database
from accord.trust.keys import Keyring, Keys, keyring_path
from accord.trust.receipts import ReceiptBody, signed_receipt, unsigned_receipt

NAME_TRIES: Final = 24
STATE_CACHE_SIZE: Final = 4096

JSONBody = dict[str, Any]
T = TypeVar("T")


class _RoomKind:
    """Rooms for the engine."""

    name = PROTOCOL
    state_type = RoomState

    def __init__(self, policy: RoomPolicy) -> None:
        self._policy = policy

    def not_found(self) -> Refused:
        return refuse(RefusalCode.ROOM_NOT_FOUND, "No such room; check the room id.")

    def apply(self, state: RoomState | None, envelope: Envelope) -> RoomState:
        return apply(state, envelope)

    def apply_private(self, state: RoomState, party: str, record: Envelope) -> RoomState:
        return apply_private(state, Seat(party), record)

    def is_final(self, state: RoomState) -> bool:
        return state.is_final

    def expires_at(self, state: RoomState) -> str | None:
        return expires_at(state, self._policy)

    def notice_fields(
        self, negotiation_id: str, state: RoomState | None, decision: Decision
    ) -> dict[str, Any]:
        name = state.name if state else decision.public[0].payload["name"]
        return {"room_id": negotiation_id, "name": name}


class Rooms:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        *,
        clock: Callable[[], datetime],
        notifier: Notifier | None = None,
        keys: Keys | None = None,
    ) -> None:
        self._db = db
        self._settings = settings
        self._keys = keys
        self._policy = settings.room_policy
        self._engine: Engine[RoomState] = Engine(
            _RoomKind(self._policy), after_append=self._sign_if_agreed
        )
        self._credentials = CredentialCache()
        self._clock = clock
        self._notifier = notifier or Notifier()

    # -- writes --------------------------------------------------------------------------

    def open(self, request: OpenRequest) -> JSONBody:
        room_id = new_id("room")
        nonce = new_nonce()
        seat_token, owner_token = new_token("seat"), new_token("owner")
        invite_token = new_token("invite")

        def txn(conn: Connection) -> JSONBody:
            now = self._clock()
            name = self._free_name(conn)
            decision = decide.open_room(
                request, room_id=room_id, name=name, nonce=nonce, now=now, policy=self._policy
            )
            if isinstance(decision, Refusal):
                raise Refused(decision)
            loaded = self._engine.create(conn, room_id, decision, now, name=name)
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
                "owner_token": owner_token,
                "limits_opening": _opening(room, Seat.OPENER),
                "invite": {
                    "token": invite_token,
                    "url": f"{self._settings.base_url}/rooms/join#{invite_token}",
                    "expires_at": room.invite_expires_at,
                },
            }

        return self._write(txn)

    def join(self, request: JoinRequest) -> JSONBody:
        nonce = new_nonce()
        seat_token, owner_token = new_token("seat"), new_token("owner")
        invalid = refuse(
            RefusalCode.INVITE_INVALID, "This invite was used, has expired or is unknown."
        )

        def txn(conn: Connection) -> JSONBody | Refused:
            invite_hash = hash_token(request.invite_token)
            found = records.find_credentials(conn, [invite_hash]).get(invite_hash)
            if found is None or found.kind != "invite":
                return invalid
            loaded = self._engine.lock(conn, found.negotiation_id)
            now = self._clock()
            self._expire_if_due(conn, loaded, now)
            decision = decide.join_room(loaded.state, request, nonce=nonce)
            if isinstance(decision, Refusal):
                return Refused(decision)
            ts = format_time(now)
            room_id = loaded.state.room_id
            records.insert_credential(
                conn, hash_token(seat_token), room_id, Seat.JOINER, "seat", ts
            )
            records.insert_credential(
                conn, hash_token(owner_token), room_id, Seat.JOINER, "owner", ts
            )
            self._engine.append(conn, loaded, decision, now)
            return {
                "room": self._view(loaded.state, Seat.JOINER),
                "seat_token": seat_token,
                "owner_token": owner_token,
                "limits_opening": _opening(loaded.state, Seat.JOINER),
            }

        return self._write(txn)

    def move(self, token: str | None, room_id: str, request: MoveRequest) -> tuple[int, JSONBody]:
        answer = self._write(self._move_txn(token, room_id, request))
        return answer.status, json.loads(answer.text)

    async def move_async(self, token: str | None, room_id: str, request: MoveRequest) -> Answer:
        """The same move for an event loop: no thread waits while the writer works."""
        result = await asyncio.wrap_future(self._db.submit(self._move_txn(token, room_id, request)))
        self._notifier.notify()
        if isinstance(result, Refused):
            raise result
        return result

    def _move_txn(
        self, token: str | None, room_id: str, request: MoveRequest
    ) -> Callable[[Connection], "Answer | Refused"]:
        request_hash = (
            commit(request.model_dump(mode="json", exclude_none=True))
            if request.message_id is not None
            else ""
        )

        def txn(conn: Connection) -> Answer | Refused:
            access = authorize(conn, token, room_id, self._credentials)
            loaded = self._engine.lock(conn, room_id)
            seat = Seat(access.party)
            if request.message_id is not None:
                seen = records.find_remembered(conn, room_id, seat, request.message_id)
                if seen is not None:
                    if seen.request_hash != request_hash:
                        return refuse(
                            RefusalCode.MESSAGE_ID_REUSED,
                            "This message_id was used with a different move; use a new one.",
                        )
                    return Answer(seen.status, seen.response)
            if problems := shape_problems(request):
                return refuse(
                    RefusalCode.INVALID_REQUEST,
                    "Fix the move: see fields for what does not belong.",
                    fields=problems,
                )
            now = self._clock()
            self._expire_if_due(conn, loaded, now)
            actor = Actor(seat, access.is_owner)
            decision = decide.decide_move(loaded.state, request, actor, now=now)
            if isinstance(decision, Refusal):
                return Refused(decision)
            self._engine.append(conn, loaded, decision, now, message_id=request.message_id)
            room = self._view(loaded.state, seat)
            if decision.public:
                move = next(e for e in loaded.public if e.type.startswith("move."))
                status, body = 200, {"room": room, "move": move.to_json()}
            else:
                pending = confirmations(loaded.state, seat)[0]
                status, body = 202, {"room": room, "confirmation": pending.model_dump(mode="json")}
            answer = Answer(status, encode(body))
            if request.message_id is not None:
                records.remember(
                    conn,
                    room_id,
                    seat,
                    request.message_id,
                    request_hash=request_hash,
                    status=status,
                    response=answer.text,
                )
            return answer

        return txn

    def confirm(
        self, token: str | None, room_id: str, confirmation_id: str, request: ConfirmRequest
    ) -> JSONBody:
        def txn(conn: Connection) -> JSONBody | Refused:
            access = authorize(conn, token, room_id, self._credentials)
            loaded = self._engine.lock(conn, room_id)
            now = self._clock()
            self._expire_if_due(conn, loaded, now)
            actor = Actor(Seat(access.party), access.is_owner)
            decision = decide.confirm(
                loaded.state, actor, confirmation_id, request.decision, now=now
            )
            if isinstance(decision, Refusal):
                return Refused(decision)
            self._engine.append(conn, loaded, decision, now)
            return {"room": self._view(loaded.state, actor.seat)}

        return self._write(txn)

    def sweep(self) -> list[str]:
        """Record every expiry that is due; safe to run from several processes at once."""
        now = self._clock()
        due = self._db.read(lambda conn: records.due_negotiations(conn, PROTOCOL, format_time(now)))
        expired = []
        for room_id in due:

            def txn(conn: Connection, room_id: str = room_id) -> bool:
                loaded = self._engine.lock(conn, room_id)
                return self._expire_if_due(conn, loaded, self._clock())

            if self._db.write(txn):
                expired.append(room_id)
        if expired:
            self._notifier.notify()
        return expired

    # -- reads ---------------------------------------------------------------------------

    def show(self, token: str | None, room_id: str) -> JSONBody:
        access, state = self._read_current(token, room_id)
        return self._view(state, Seat(access.party))

    def pending(self, token: str | None, room_id: str) -> JSONBody:
        access, state = self._read_current(token, room_id)
        if not access.is_owner:
            raise refuse(RefusalCode.FORBIDDEN, "Only the seat's owner sees its confirmations.")
        items = confirmations(state, Seat(access.party))
        return {"confirmations": [c.model_dump(mode="json") for c in items]}

    def log(self, token: str | None, room_id: str) -> JSONBody:
        self.authorize(token, room_id)
        self._expire_on_access(room_id)
        bodies = self._db.read(lambda conn: records.read_log_bodies(conn, room_id))
        return {"envelopes": [json.loads(body) for body in bodies]}

    def list_rooms(self, request: ListRequest) -> JSONBody:
        hashes = [hash_token(t) for t in request.tokens]
        found = self._db.read(lambda conn: records.find_credentials(conn, hashes))
        seats: dict[str, set[str]] = {}
        for credential in found.values():
            if credential.kind in ("seat", "owner"):
                seats.setdefault(credential.negotiation_id, set()).add(credential.party)
        rooms = []
        for room_id in sorted(seats):
            self._expire_on_access(room_id)
            state = self._db.read(partial(self._engine.load, negotiation_id=room_id))
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
        """The stored signed receipt of an agreement, or the unsigned one of a close or an
        expiry, made from the log; `room_open` while the room goes on."""
        _, state = self._read_current(token, room_id)
        if not state.is_final:
            raise refuse(RefusalCode.ROOM_OPEN, "The room is not final yet; it has no receipt.")
        if state.status is Status.AGREED:
            stored = self._db.read(lambda conn: records.read_receipt(conn, room_id))
            assert stored is not None, "an agreed room's receipt is stored when it is agreed"
            body: JSONBody = json.loads(stored)
            return body
        log = self._db.read(lambda conn: records.read_log(conn, room_id))
        return unsigned_receipt(self._receipt_body(log).members)

    def jwks(self) -> JSONBody:
        return dict(self._current_keys().jwks())

    def authorize_known(self, token: str | None, room_id: str) -> Access | None:
        """The access of a credential this process has seen, without touching the store;
        None when it must be looked up (or refused) with `authorize`."""
        if not token:
            return None
        found = self._credentials.known(hash_token(token))
        if found is None or found.negotiation_id != room_id or found.kind not in SEAT_KINDS:
            return None
        return Access(found.negotiation_id, found.party, found.kind)

    def authorize(self, token: str | None, room_id: str) -> Access:
        return self._db.read(lambda conn: authorize(conn, token, room_id, self._credentials))

    def events(self, access: Access, after: int) -> list[records.EventRow]:
        self._expire_on_access(access.negotiation_id)
        return self._db.read(
            lambda conn: records.read_events(
                conn,
                access.negotiation_id,
                party=access.party,
                is_owner=access.is_owner,
                after=after,
            )
        )

    @property
    def notifier(self) -> Notifier:
        return self._notifier

    # -- the machinery -------------------------------------------------------------------

    def _write(self, txn: Callable[[Connection], T | Refused]) -> T:
        """Run a write; a refusal returned (not raised) keeps what the transaction recorded
        before it, such as a due expiry."""
        result = self._db.write(txn)
        self._notifier.notify()
        if isinstance(result, Refused):
            raise result
        return result

    def _read_current(self, token: str | None, room_id: str) -> tuple[Access, RoomState]:
        def read(conn: Connection) -> tuple[Access, RoomState]:
            return authorize(conn, token, room_id, self._credentials), self._engine.load(
                conn, room_id
            )

        access, state = self._db.read(read)
        if decide.expire(state, now=self._clock(), policy=self._policy) is not None:
            self._expire_on_access(room_id)
            access, state = self._db.read(read)
        return access, state

    def _expire_on_access(self, room_id: str) -> None:
        state = self._db.read(lambda conn: self._engine.load(conn, room_id))
        if decide.expire(state, now=self._clock(), policy=self._policy) is None:
            return

        def txn(conn: Connection) -> bool:
            return self._expire_if_due(conn, self._engine.lock(conn, room_id), self._clock())

        if self._db.write(txn):
            self._notifier.notify()

    def _expire_if_due(self, conn: Connection, loaded: Loaded[RoomState], now: datetime) -> bool:
        decision = decide.expire(loaded.state, now=now, policy=self._policy)
        if decision is None:
            return False
        self._engine.append(conn, loaded, decision, now)
        return True

    def _current_keys(self) -> Keyring:
        if self._keys is None:
            path = keyring_path(self._settings.key_file, self._settings.data_dir)
            self._keys = Keys(path, now=self._clock())
        return self._keys.current()

    def _receipt_body(self, log: list[Envelope]) -> ReceiptBody:
        return build_receipt(
            log, arbiter_id=self._settings.arbiter, retention_days=self._settings.retention_days
        )

    def _sign_if_agreed(
        self, conn: Connection, loaded: Loaded[RoomState], before: RoomState | None, ts: str
    ) -> None:
        """receipts.md: a signed receipt is signed once, when the agreement is made, and
        stored, so that a later key rotation never changes it. Rooms sign with the live key."""
        if loaded.state.status is not Status.AGREED or (
            before is not None and before.status is Status.AGREED
        ):
            return
        room_id = loaded.id
        body = self._receipt_body(records.read_log(conn, room_id))
        assert body.signed_payload is not None
        key = self._current_keys().active("live")
        receipt = signed_receipt(body.members, body.signed_payload, key)
        records.insert_receipt(conn, room_id, canonical(receipt), ts)

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
        return view_json(state, seat, policy=self._policy, base_url=self._settings.base_url)


def _opening(state: RoomState, seat: Seat) -> JSONBody:
    mine = state.seat_private(seat)
    return {"nonce": mine.nonce, "limits": mine.limits}

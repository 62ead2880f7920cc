"""The kernel on the store, the same for every table: lock a negotiation, take its state (from
the writer's cache when current), decide, append and fold through the one step, check the
invariants the table keeps, sign once at agreement, save the projection; idempotency by
`message_id`, expiry on access, the sweep, and the writer's async submit.

A table's service (`rooms.py`, `sessions.py`) keeps only its credentials and its views."""

import json
import secrets
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, Final, Generic, TypeVar

import orjson
from pydantic import BaseModel
from sqlalchemy import Connection

from accord.app import ledger
from accord.app.keys import KeyService
from accord.app.notifier import Notifier
from accord.app.settings import Settings
from accord.core.chain import ChainHead
from accord.core.commit import commit
from accord.core.envelope import Envelope
from accord.core.jsonio import canonical
from accord.core.protocol import CatchesUp, Context, Decision, Seen, Table, never_seen
from accord.core.refusals import Refusal, RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.store import notifications, records
from accord.store.database import Database
from accord.store.events import NewEvent, insert_events, insert_party_scopes, read_party_scopes
from accord.trust.receipts import signed_receipt, unsigned_receipt

STATE_CACHE_SIZE: Final = 4096
ENTROPY_BYTES: Final = 32

S = TypeVar("S", bound=BaseModel)
T = TypeVar("T")
Who = TypeVar("Who")


@dataclass(frozen=True)
class Answer:
    """A response as it is sent and remembered: encoded once, in the writer, and sent as these
    bytes (a room's name holds an emoji, so as text its view would be a four-byte-wide string,
    decoded and encoded again on every move)."""

    status: int
    body: bytes
    kept: bytes | None = None
    """What is stored for a retry, when it is less than `body`: enough to `repeat` the answer
    exactly, and no more. Made with the body, so that the answer is never parsed again."""

    @property
    def remembered(self) -> str:
        """What the store keeps for a retry, as text."""
        return (self.body if self.kept is None else self.kept).decode()


def encode(body: Mapping[str, Any]) -> bytes:
    return orjson.dumps(body)


def request_hash(request: Mapping[str, Any]) -> str:
    """What a `message_id` is bound to: the move's body as the client sent it."""
    return commit(dict(request))


class InvariantBroken(AssertionError):
    """A step would break an invariant its table keeps: a fault of the server's, never
    recorded (the transaction rolls back)."""


@dataclass
class Loaded(Generic[S]):
    """A negotiation inside a write transaction: its state, where its chain ends, and what
    this transaction appended to it."""

    id: str
    state: S
    head: ChainHead
    public: list[Envelope] = field(default_factory=list)


@dataclass(frozen=True)
class Move(Generic[S, Who]):
    """One move as the kernel runs it: who asks (checked inside the transaction, first), what
    they move, and how the answer is made and remembered for a retry."""

    authorize: Callable[[Connection], Who]
    party: Callable[[Who], str]
    actor: Callable[[Who], Any]
    move: Any
    answer: Callable[[Loaded[S], Decision, Who], Answer]
    message_id: str | None = None
    request_hash: str = ""
    repeat: Callable[[Connection, records.Remembered], Answer] = lambda _conn, seen: Answer(
        seen.status, seen.response.encode()
    )


@dataclass(frozen=True)
class Ended:
    """What the sweep ended: the envelope that ended it tells how."""

    protocol: str
    id: str
    envelope: Envelope


class Negotiations:
    def __init__(
        self,
        db: Database,
        tables: Mapping[str, Table[Any]],
        settings: Settings,
        *,
        clock: Callable[[], datetime],
        keys: KeyService,
        notifier: Notifier,
    ) -> None:
        self.db = db
        self.tables = tables
        self.clock = clock
        self.notifier = notifier
        self._settings = settings
        self._keys = keys
        self._states: dict[str, tuple[str, Any, ChainHead]] = {}
        self._holders: dict[str, Mapping[str, str]] = {}
        self._appending = threading.local()

    def table(self, name: str) -> Table[Any]:
        return self.tables[name]

    # -- inside a write transaction ------------------------------------------------------

    def load(self, conn: Connection, table: Table[S], negotiation_id: str) -> S:
        row = records.read_negotiation(conn, negotiation_id)
        if row is None or row.protocol != table.name or row.state is None:
            raise Refused(table.not_found)
        return self._restore(conn, table, negotiation_id, row.state, row.seq)

    def _restore(
        self, conn: Connection, table: Table[S], negotiation_id: str, stored: str, seq: int
    ) -> S:
        """The stored state with what the table keeps in the log's tail instead."""
        tail = records.read_log_tail(conn, negotiation_id, last_seq=seq, size=table.tail_size)
        return table.restore(stored, tail)

    def lock(self, conn: Connection, table: Table[S], negotiation_id: str) -> Loaded[S]:
        """The negotiation locked for this write, its state from the writer's cache when the
        stored version is the one the cache holds (any process may have written since)."""
        cached = self._states.get(negotiation_id)
        row = records.lock_negotiation(conn, negotiation_id, _version(cached))
        return self._locked(conn, table, row, cached)

    def _locked(
        self,
        conn: Connection,
        table: Table[S],
        row: records.NegotiationRow | None,
        cached: tuple[str, S, ChainHead] | None,
    ) -> Loaded[S]:
        """`lock`, once the row is read and locked: its state is None when `cached` is the
        stored version (only the writer thread touches the cache, so it is still there)."""
        if row is None or row.protocol != table.name:
            raise Refused(table.not_found)
        if row.state is None and cached is not None:
            return Loaded(row.id, cached[1], row.head)
        assert row.state is not None, "the store sends the state unless the cache holds it"
        state = None if cached is None else self._caught_up(conn, table, row, row.state, cached)
        if state is None:
            state = self._restore(conn, table, row.id, row.state, row.seq)
        return Loaded(row.id, state, row.head)

    def _caught_up(
        self,
        conn: Connection,
        table: Table[S],
        row: records.NegotiationRow,
        stored: str,
        cached: tuple[str, S, ChainHead],
    ) -> S | None:
        """The stored state, its tail taken from the cached state and the few envelopes another
        process appended since, instead of the whole tail read and parsed again (with several
        processes, a negotiation's next move often lands on another one). None unless the
        cached state is on the stored chain: the first newer envelope links to its head."""
        _, earlier, head = cached
        behind = row.head.next_seq - head.next_seq
        if not isinstance(table, CatchesUp) or not 0 <= behind <= table.tail_size:
            return None
        newer = records.read_log_tail(conn, row.id, last_seq=row.seq, size=behind)
        linked_to = newer[0].prev_hash if newer else row.head_hash
        if len(newer) != behind or linked_to != head.head:
            return None
        caught_up: S = table.restore_since(stored, earlier, newer)
        return caught_up

    def create(
        self,
        conn: Connection,
        table: Table[S],
        negotiation_id: str,
        decision: Decision,
        now: datetime,
        *,
        name: str | None = None,
        party_scopes: Mapping[str, str] | None = None,
    ) -> Loaded[S]:
        """`party_scopes`: the audience holding each party (party → scope), whose streams
        carry what is addressed to it from the first append on."""
        records.insert_negotiation(
            conn, negotiation_id, table.name, name=name, now=format_time(now)
        )
        insert_party_scopes(conn, negotiation_id, party_scopes or {})
        return self._append(conn, table, negotiation_id, None, ChainHead(), decision, now)

    def emit(self, conn: Connection, events: Iterable[NewEvent]) -> None:
        """Events beyond a table's decisions (an opportunity's status, a principal's own),
        in this write: their streams are woken once it is durable, like a decision's. Only
        inside `write` or `write_async`: a plain `Database.write` collects no keys, and on
        SQLite no stream would be woken."""
        self._collect(insert_events(conn, events))

    def announce(self, conn: Connection, keys: Collection[str]) -> None:
        """Keys with no event behind them, heard by every process once this write commits
        (a subscriber's cue to read the store again)."""
        notifications.publish(conn, keys)
        self._collect(frozenset(keys))

    def _collect(self, keys: frozenset[str]) -> None:
        collected: set[str] | None = getattr(self._appending, "keys", None)
        if collected is not None:
            collected |= keys

    def context(self, now: datetime, seen: Seen = never_seen) -> Context:
        return Context(now, secrets.token_bytes(ENTROPY_BYTES), seen)

    def decide(
        self,
        conn: Connection,
        table: Table[S],
        loaded: Loaded[S],
        move: Any,
        actor: Any,
        *,
        message_id: str | None = None,
    ) -> Decision | Refused:
        """Decide a move and append what was decided; a refusal appends nothing, unless the
        decision carries one (an expiry due is recorded, then the move refused)."""
        now = self.clock()
        # One lookup per key and transaction: the rules ask, then the step's fold asks again.
        seen = _asked_once(partial(records.has_seen, conn, loaded.id))
        decision = table.decide(loaded.state, move, actor, self.context(now, seen))
        if isinstance(decision, Refusal):
            return Refused(decision)
        if decision.refusal is not None:
            self.append(conn, table, loaded, decision, now, seen=seen)
            return Refused(decision.refusal)
        self.append(conn, table, loaded, decision, now, message_id=message_id, seen=seen)
        return decision

    def append(
        self,
        conn: Connection,
        table: Table[S],
        loaded: Loaded[S],
        decision: Decision,
        now: datetime,
        *,
        message_id: str | None = None,
        seen: Seen | None = None,
    ) -> None:
        fresh = self._append(
            conn, table, loaded.id, loaded.state, loaded.head, decision, now, message_id, seen
        )
        loaded.state, loaded.head = fresh.state, fresh.head
        loaded.public += fresh.public

    def expire_if_due(self, conn: Connection, table: Table[S], loaded: Loaded[S]) -> bool:
        now = self.clock()
        decision = table.expire(loaded.state, now)
        if decision is None:
            return False
        self.append(conn, table, loaded, decision, now)
        return True

    def move(
        self, table: Table[S], negotiation_id: str, move: Move[S, Who]
    ) -> Callable[[Connection], Answer | Refused]:
        """The one move transaction: who asks → lock → a repeated `message_id` answered as
        first given → decide (the table's check order) → append → answer, remembered."""

        def txn(conn: Connection) -> Answer | Refused:
            who = move.authorize(conn)
            party = move.party(who)
            if move.message_id is None:
                loaded = self.lock(conn, table, negotiation_id)
            else:
                cached = self._states.get(negotiation_id)
                row, seen = records.lock_remembering(
                    conn, negotiation_id, party, move.message_id, _version(cached)
                )
                loaded = self._locked(conn, table, row, cached)
                if seen is not None:
                    if seen.request_hash != move.request_hash:
                        return refuse(
                            RefusalCode.MESSAGE_ID_REUSED,
                            "This message_id was used with a different move; use a new one.",
                        )
                    return move.repeat(conn, seen)
            decided = self.decide(
                conn, table, loaded, move.move, move.actor(who), message_id=move.message_id
            )
            if isinstance(decided, Refused):
                return decided
            answer = move.answer(loaded, decided, who)
            if move.message_id is not None:
                records.remember(
                    conn,
                    negotiation_id,
                    party,
                    move.message_id,
                    request_hash=move.request_hash,
                    status=answer.status,
                    response=answer.remembered,
                )
            return answer

        return txn

    # -- running transactions ------------------------------------------------------------

    def write(self, txn: Callable[[Connection], T | Refused]) -> T:
        """Run a write; a refusal returned (not raised) keeps what the transaction recorded
        before it, such as a due expiry. Once it is durable, the streams of what it appended
        are woken."""
        result, keys = self.db.write(self._keyed(txn))
        self.notifier.notify(keys)
        if isinstance(result, Refused):
            raise result
        return result

    async def write_async(self, txn: Callable[[Connection], T | Refused]) -> T:
        """The same write for an event loop: no thread waits while the writer works."""
        result, keys = await self.db.write_async(self._keyed(txn))
        self.notifier.notify(keys)
        if isinstance(result, Refused):
            raise result
        return result

    def _keyed(self, txn: Callable[[Connection], T]) -> Callable[[Connection], tuple[T, set[str]]]:
        """`txn`, answering also the keys of the events it appended (the writer thread runs
        one transaction at a time, so a thread-local collects them)."""

        def keyed(conn: Connection) -> tuple[T, set[str]]:
            keys: set[str] = set()
            self._appending.keys = keys
            try:
                return txn(conn), keys
            finally:
                self._appending.keys = None

        return keyed

    def read(self, fn: Callable[[Connection], T]) -> T:
        return self.db.read(fn)

    def current(
        self, table: Table[S], negotiation_id: str, authorize: Callable[[Connection], Who]
    ) -> tuple[Who, S]:
        """Who asks and the negotiation's state, with an expiry that was due recorded first."""

        def read(conn: Connection) -> tuple[Who, S]:
            return authorize(conn), self.load(conn, table, negotiation_id)

        who, state = self.db.read(read)
        if table.expire(state, self.clock()) is not None:
            self.expire_now(table, negotiation_id)
            who, state = self.db.read(read)
        return who, state

    def expire_now(self, table: Table[S], negotiation_id: str) -> None:
        """Record an expiry if one is due (on access: the caller saw it due)."""
        self.write(
            lambda conn: self.expire_if_due(conn, table, self.lock(conn, table, negotiation_id))
        )

    def log(self, negotiation_id: str) -> list[Any]:
        bodies = self.db.read(lambda conn: records.read_log_bodies(conn, negotiation_id))
        return [json.loads(body) for body in bodies]

    def receipt(self, table: Table[S], negotiation_id: str, state: S) -> dict[str, Any]:
        """The stored signed receipt of an agreement, or the unsigned one of a close or an
        expiry, made from the log. The caller checked that the negotiation is final."""
        if table.is_agreed(state):
            stored = self.db.read(lambda conn: records.read_receipt(conn, negotiation_id))
            assert stored is not None, "an agreement's receipt is stored when it is agreed"
            return table.served_receipt(state, json.loads(stored))
        log = self.db.read(lambda conn: records.read_log(conn, negotiation_id))
        content = table.receipt(
            state,
            log,
            arbiter_id=self._settings.arbiter,
            retention_days=self._settings.retention_days,
        )
        return unsigned_receipt(content.members)

    def sweep(self, names: Iterable[str] | None = None) -> list[Ended]:
        """Record every expiry that is due, in every table (or those named), soonest first;
        safe from several processes at once."""
        wanted = set(self.tables if names is None else names)
        ended: list[Ended] = []
        tried: set[str] = set()
        while True:
            due = self.db.read(partial(records.due_negotiations, now=format_time(self.clock())))
            todo = [(i, p) for i, p in due if p in wanted and i not in tried]
            if not todo:
                break
            for negotiation_id, protocol in todo:
                tried.add(negotiation_id)
                if (envelope := self._expire(self.tables[protocol], negotiation_id)) is not None:
                    ended.append(Ended(protocol, negotiation_id, envelope))
        return ended

    def _expire(self, table: Table[S], negotiation_id: str) -> Envelope | None:
        """The envelope that ended the negotiation, or None if it was not due after all."""

        def txn(conn: Connection) -> Envelope | None:
            loaded = self.lock(conn, table, negotiation_id)
            return loaded.public[-1] if self.expire_if_due(conn, table, loaded) else None

        return self.write(txn)

    # -- the step on the store -----------------------------------------------------------

    def _append(
        self,
        conn: Connection,
        table: Table[S],
        negotiation_id: str,
        state: S | None,
        head: ChainHead,
        decision: Decision,
        now: datetime,
        message_id: str | None = None,
        seen: Seen | None = None,
    ) -> Loaded[S]:
        ts = format_time(now)
        stepped, keys = ledger.append(
            conn,
            table,
            negotiation_id,
            state,
            head,
            decision,
            ts=ts,
            message_id=message_id,
            seen=seen,
            holders=partial(self._party_scopes, conn, negotiation_id),
        )
        self._collect(keys)
        public = [linked.envelope for linked in stepped.public]
        if broken := table.broken_invariants(state, stepped.state, public):
            raise InvariantBroken(f"{table.name} {negotiation_id} would break {sorted(broken)}")
        loaded = Loaded(negotiation_id, stepped.state, stepped.head, public)
        if table.is_agreed(loaded.state) and not (state is not None and table.is_agreed(state)):
            self._sign(conn, table, loaded, ts)
        version = secrets.token_hex(12)
        records.save_projection(
            conn,
            negotiation_id,
            head=loaded.head,
            state=table.dump(loaded.state),
            version=version,
            is_final=table.is_final(loaded.state),
            expires_at=table.expires_at(loaded.state),
            now=ts,
        )
        self._remember(table, negotiation_id, version, loaded)
        return loaded

    def _sign(self, conn: Connection, table: Table[S], loaded: Loaded[S], ts: str) -> None:
        """receipts.md: a signed receipt is signed once, when the agreement is made, and
        stored, so that a later key rotation never changes it."""
        content = table.receipt(
            loaded.state,
            records.read_log(conn, loaded.id),
            arbiter_id=self._settings.arbiter,
            retention_days=self._settings.retention_days,
        )
        assert content.signed_payload is not None, "an agreement has a signed payload"
        key = self._keys.signing_key(table.signing_mode(loaded.state))
        receipt = signed_receipt(content.members, content.signed_payload, key)
        records.insert_receipt(conn, loaded.id, canonical(receipt), ts)

    def _party_scopes(self, conn: Connection, negotiation_id: str) -> Mapping[str, str]:
        """Who holds each party: written once, as the negotiation is opened, and never
        changed, so read once per process (by the writer thread, like the states), not once
        per notifying move."""
        held = self._holders.get(negotiation_id)
        if held is None:
            held = read_party_scopes(conn, negotiation_id)
            _keep(self._holders, negotiation_id, held)
        return held

    def _remember(
        self, table: Table[S], negotiation_id: str, version: str, loaded: Loaded[S]
    ) -> None:
        """Only the writer thread touches the cache. A state whose write is later rolled back
        stays behind under a version the store never holds, so it is never used as it is; nor
        caught up from, since its head is on no stored chain."""
        self._states.pop(negotiation_id, None)
        if table.is_final(loaded.state):
            return
        _keep(self._states, negotiation_id, (version, loaded.state, loaded.head))


def _version(cached: tuple[str, Any, ChainHead] | None) -> str | None:
    return None if cached is None else cached[0]


def _keep(cache: dict[str, T], key: str, value: T) -> None:
    """`value` under `key`, the oldest entry dropped past `STATE_CACHE_SIZE`."""
    cache[key] = value
    if len(cache) > STATE_CACHE_SIZE:
        cache.pop(next(iter(cache)))


def _asked_once(ask: Seen) -> Seen:
    """`ask` with its answers kept for the transaction: `functools.cache` would do, but making
    one costs more than the lookups it saves, once a move."""
    answers: dict[str, bool] = {}

    def seen(key: str) -> bool:
        answer = answers.get(key)
        if answer is None:
            answer = answers[key] = ask(key)
        return answer

    return seen

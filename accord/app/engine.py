"""The write machinery every protocol's service shares: lock a negotiation, take its state
(from the writer's cache when current), append a decision, fold it, save the projection.

A protocol plugs in through `Kind`; the service keeps only what is its own (credentials,
views, receipts)."""

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Generic, Protocol, TypeVar

import orjson
from pydantic import BaseModel
from sqlalchemy import Connection

from accord.app import ledger
from accord.core.chain import ChainHead
from accord.core.envelope import Envelope
from accord.core.protocol import Decision
from accord.core.refusals import Refused
from accord.core.times import format_time
from accord.store import records

STATE_CACHE_SIZE: Final = 4096
S = TypeVar("S", bound=BaseModel)


@dataclass(frozen=True)
class Answer:
    """A response as it is sent and remembered: encoded once, in the writer."""

    status: int
    text: str


def encode(body: Mapping[str, Any]) -> str:
    return orjson.dumps(body).decode()


class Kind(Protocol[S]):
    """What the engine needs of a protocol."""

    name: str
    state_type: type[S]

    def not_found(self) -> Refused: ...
    def apply(self, state: S | None, envelope: Envelope) -> S: ...
    def apply_private(self, state: S, party: str, record: Envelope) -> S: ...
    def is_final(self, state: S) -> bool: ...
    def expires_at(self, state: S) -> str | None: ...
    def notice_fields(
        self, negotiation_id: str, state: S | None, decision: Decision
    ) -> dict[str, Any]: ...


@dataclass
class Loaded(Generic[S]):
    """A negotiation inside a write transaction: its state, where its chain ends, and what
    this transaction appended to it."""

    id: str
    state: S
    head: ChainHead
    public: list[Envelope] = field(default_factory=list)


AfterAppend = Callable[[Connection, Loaded[S], S | None, str], None]


class Engine(Generic[S]):
    def __init__(self, kind: Kind[S], *, after_append: AfterAppend[S] | None = None) -> None:
        self.kind = kind
        self._after_append = after_append
        self._states: dict[str, tuple[str, S]] = {}

    def load(self, conn: Connection, negotiation_id: str) -> S:
        row = records.read_negotiation(conn, negotiation_id)
        if row is None or row.protocol != self.kind.name or row.state is None:
            raise self.kind.not_found()
        return self.kind.state_type.model_validate_json(row.state)

    def lock(self, conn: Connection, negotiation_id: str) -> Loaded[S]:
        """The negotiation locked for this write, its state from the writer's cache when the
        stored version is the one the cache holds (any process may have written since)."""
        row = records.lock_negotiation(conn, negotiation_id)
        if row is None or row.protocol != self.kind.name:
            raise self.kind.not_found()
        cached = self._states.get(negotiation_id)
        if cached is not None and cached[0] == row.version:
            return Loaded(negotiation_id, cached[1], row.head)
        state = self.kind.state_type.model_validate_json(records.read_state(conn, negotiation_id))
        return Loaded(negotiation_id, state, row.head)

    def create(
        self, conn: Connection, negotiation_id: str, decision: Decision, now: datetime, **row: Any
    ) -> Loaded[S]:
        records.insert_negotiation(
            conn, negotiation_id, self.kind.name, name=row.get("name"), now=format_time(now)
        )
        return self._append(conn, negotiation_id, None, ChainHead(), decision, now)

    def append(
        self,
        conn: Connection,
        loaded: Loaded[S],
        decision: Decision,
        now: datetime,
        *,
        message_id: str | None = None,
    ) -> None:
        fresh = self._append(conn, loaded.id, loaded.state, loaded.head, decision, now, message_id)
        loaded.state, loaded.head = fresh.state, fresh.head
        loaded.public += fresh.public

    def _append(
        self,
        conn: Connection,
        negotiation_id: str,
        state: S | None,
        head: ChainHead,
        decision: Decision,
        now: datetime,
        message_id: str | None = None,
    ) -> Loaded[S]:
        ts = format_time(now)
        appended = ledger.append(
            conn,
            negotiation_id,
            head,
            decision,
            ts=ts,
            message_id=message_id,
            notice_fields=self.kind.notice_fields(negotiation_id, state, decision),
        )
        new_state = state
        for envelope in appended.public:
            new_state = self.kind.apply(new_state, envelope)
        assert new_state is not None, "a decision that creates a negotiation appends to it"
        for party, record in appended.private:
            new_state = self.kind.apply_private(new_state, party, record)
        loaded = Loaded(negotiation_id, new_state, appended.head, list(appended.public))
        if self._after_append is not None:
            self._after_append(conn, loaded, state, ts)
        version = secrets.token_hex(12)
        records.save_projection(
            conn,
            negotiation_id,
            head=appended.head,
            state=loaded.state.model_dump_json(),
            version=version,
            is_final=self.kind.is_final(loaded.state),
            expires_at=self.kind.expires_at(loaded.state),
            now=ts,
        )
        self._remember(negotiation_id, version, loaded.state)
        return loaded

    def _remember(self, negotiation_id: str, version: str, state: S) -> None:
        """Only the writer thread touches the cache. A state whose write is later rolled back
        stays behind under a version the store never holds, so it is never used."""
        self._states.pop(negotiation_id, None)
        if self.kind.is_final(state):
            return
        self._states[negotiation_id] = (version, state)
        if len(self._states) > STATE_CACHE_SIZE:
            self._states.pop(next(iter(self._states)))

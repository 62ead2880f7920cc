"""Audiences and their events (interfaces A7): the one filter behind every door that delivers
events (SSE, waits, MCP subscriptions, webhooks, Telegram), and `follow`, an audience's events
as they are committed.

An audience is a seat (one party of one negotiation), a scope (an audience beyond the seats
that follows negotiations, such as a tenant and mode) or a principal (who holds seats of intro
negotiations), each at agent or owner level. A seat sees its negotiation's public events and
its own; a scope sees the public events of what it follows; a principal sees the notifications
addressed to every seat it holds and its own, never an envelope; owner-only events reach
owner-level audiences only."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, assert_never

from sqlalchemy import Connection

from accord.app.identity import Caller, MerchantCaller, PrincipalCaller, SeatCaller, SessionCaller
from accord.app.notifier import Notifier
from accord.app.principal_events import principal_scope
from accord.protocols.arbitrated.state import BUYER
from accord.protocols.arbitrated.table import tenant_scope
from accord.store import events as stored
from accord.store import notifications
from accord.store.database import Database
from accord.store.events import EventRow

BATCH: Final = stored.BATCH
LISTEN_START_SECONDS: Final = 10.0

log = logging.getLogger("accord.events")


class Level(StrEnum):
    AGENT = "agent"
    OWNER = "owner"


@dataclass(frozen=True)
class SeatAudience:
    """One party of one negotiation, as its agent or as its owner."""

    negotiation_id: str
    party: str
    level: Level

    @classmethod
    def of(cls, access: SeatCaller) -> "SeatAudience":
        level = Level.OWNER if access.is_owner else Level.AGENT
        return cls(access.negotiation_id, access.party, level)

    @property
    def keys(self) -> frozenset[str]:
        return frozenset({self.negotiation_id})


@dataclass(frozen=True)
class ScopeAudience:
    """Everyone a scope stands for (`tenant:<id>:<mode>`), at agent or owner level."""

    scope: str
    level: Level

    @property
    def keys(self) -> frozenset[str]:
        return frozenset({self.scope})


@dataclass(frozen=True)
class PrincipalAudience:
    """A principal, as its owner key (everything) or an agent key (all but owner-only)."""

    principal_id: str
    level: Level

    @classmethod
    def of(cls, caller: PrincipalCaller) -> "PrincipalAudience":
        return cls(caller.principal_id, Level(caller.level))

    @property
    def scope(self) -> str:
        return principal_scope(self.principal_id)

    @property
    def keys(self) -> frozenset[str]:
        return frozenset({self.scope})


Audience = SeatAudience | ScopeAudience | PrincipalAudience


def own_audience(caller: Caller, level: Level) -> Audience | None:
    """A credential's own audience at `level`: its seat, the buyer's seat of its session, its
    principal, or its tenant's mode for a secret key; None for one that follows nothing."""
    match caller:
        case SeatCaller():
            return SeatAudience(caller.negotiation_id, caller.party, level)
        case SessionCaller():
            return SeatAudience(caller.negotiation_id, BUYER, level)
        case PrincipalCaller():
            return PrincipalAudience(caller.principal_id, level)
        case MerchantCaller(key_kind="secret"):
            return ScopeAudience(tenant_scope(caller.tenant_id, caller.mode), level)
    return None


def events(
    conn: Connection, audience: Audience, *, after: int, limit: int = BATCH
) -> list[EventRow]:
    """The audience's events after `after`, oldest first, at most `limit`."""
    is_owner = audience.level is Level.OWNER
    match audience:
        case SeatAudience():
            return stored.read_seat_events(
                conn,
                audience.negotiation_id,
                party=audience.party,
                is_owner=is_owner,
                after=after,
                limit=limit,
            )
        case ScopeAudience():
            return stored.read_scope_events(
                conn, audience.scope, is_owner=is_owner, after=after, limit=limit
            )
        case PrincipalAudience():
            return stored.read_holder_events(
                conn, audience.scope, is_owner=is_owner, after=after, limit=limit
            )
        case _:
            assert_never(audience)


class Events:
    """An audience's events from the store: now (`read`) or as they are committed (`follow`).

    One per process, sharing its notifier with everything that writes; on PostgreSQL,
    `listening` runs the process's one listener."""

    def __init__(self, db: Database, *, notifier: Notifier | None = None) -> None:
        self._db = db
        self.notifier = notifier or Notifier(database_notifies=db.dialect == "postgresql")

    def last_id(self) -> int:
        return self._db.read(stored.last_event_id)

    def read(self, audience: Audience, after: int, limit: int = BATCH) -> list[EventRow]:
        return self._db.read(lambda conn: events(conn, audience, after=after, limit=limit))

    async def follow(self, audience: Audience, after: int = 0) -> AsyncGenerator[EventRow, None]:
        """Every event of `audience` after `after`, then each new one once it is committed;
        never ends. It reads the store only when a commit touched the audience's keys, never
        on a timer."""
        with self.notifier.watch(audience.keys) as touched:
            while True:
                # Cleared before reading: a commit during the read sets it again, so none is
                # missed between the read and the wait.
                touched.clear()
                rows = await asyncio.to_thread(self.read, audience, after)
                for row in rows:
                    yield row
                    after = row.id
                if len(rows) < BATCH:
                    await touched.wait()

    @contextlib.asynccontextmanager
    async def listening(self) -> AsyncIterator[None]:
        """Hear the commits of every process to what this one follows while inside
        (PostgreSQL: one LISTEN connection on a thread of its own, reconnected when it drops);
        on SQLite there is nothing to hear. Waits a few seconds for the listener to start;
        streams opened before it read again once it has."""
        if not self.notifier.database_notifies:
            yield
            return
        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def on_listening() -> None:
            if not loop.is_closed():
                loop.call_soon_threadsafe(started.set)

        listener = notifications.Listener(
            self._db.url,
            self.notifier.wake,
            wanted=self.notifier.channels,
            listened=self.notifier.listened,
            on_listening=on_listening,
        )
        self.notifier.attach(listener.changed)
        listener.start()
        try:
            try:
                await asyncio.wait_for(started.wait(), LISTEN_START_SECONDS)
            except TimeoutError:
                log.warning("the event listener has not connected yet; streams wait for it")
            yield
        finally:
            self.notifier.attach(None)
            await asyncio.to_thread(listener.stop)

"""PostgreSQL's announcement of committed events: NOTIFY in the appending transaction, so that
it is delivered exactly when the events are committed (and never for a rolled-back one), and
one LISTEN connection per process that hears every process's commits.

A payload is a JSON array of keys: the negotiation ids and scopes the events belong to. It
names no party and holds no event, so a listener learns only which streams to wake."""

import asyncio
import json
import logging
from collections.abc import Callable, Collection, Iterator
from typing import Final

import psycopg
from psycopg.conninfo import make_conninfo
from sqlalchemy import Connection
from sqlalchemy.engine import make_url

from accord.store import driver

CHANNEL: Final = "accord_events"
# NOTIFY refuses a payload of 8000 bytes or more; keys are short, so this is rarely split.
MAX_PAYLOAD_BYTES: Final = 7000
RECONNECT_SECONDS: Final = (0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
# libpq keepalives, so that a connection that silently went away is noticed within a minute.
KEEPALIVES: Final = {
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
}

log = logging.getLogger("accord.events")

Heard = Callable[[frozenset[str] | None], None]
"""Called with the keys of committed events, or None when any may have been missed."""


def payloads(keys: Collection[str]) -> Iterator[str]:
    """The keys as as few payloads as fit NOTIFY's limit."""
    batch: list[str] = []
    size = 2
    for key in sorted(keys):
        cost = len(json.dumps(key).encode()) + 1
        if batch and size + cost > MAX_PAYLOAD_BYTES:
            yield json.dumps(batch, separators=(",", ":"))
            batch, size = [], 2
        batch.append(key)
        size += cost
    if batch:
        yield json.dumps(batch, separators=(",", ":"))


def parse(payload: str) -> frozenset[str] | None:
    """The keys of a payload; None for one this version cannot read (wake everything)."""
    try:
        keys = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        return None
    return frozenset(keys)


def publish(conn: Connection, keys: Collection[str]) -> None:
    """Announce `keys` at this transaction's commit (PostgreSQL; SQLite has no NOTIFY)."""
    if conn.dialect.name != "postgresql" or not keys:
        return
    driver.execute(
        conn,
        "SELECT pg_notify(:channel, :payload)",
        [{"channel": CHANNEL, "payload": p} for p in payloads(keys)],
    )


def conninfo(database_url: str) -> str:
    """libpq's form of a SQLAlchemy URL (`postgresql+psycopg://…` → `postgresql://…`), with
    keepalives."""
    url = make_url(database_url).set(drivername="postgresql")
    return make_conninfo(url.render_as_string(hide_password=False), **KEEPALIVES)


async def listen(
    database_url: str, heard: Heard, *, on_listening: Callable[[], None] | None = None
) -> None:
    """LISTEN on a dedicated connection until cancelled, reconnecting when it drops.

    After every (re)connection `heard(None)` runs first: events committed while nobody was
    listening were announced to no one, so every stream must read again."""
    failures = 0
    while True:
        try:
            async with await psycopg.AsyncConnection.connect(
                conninfo(database_url), autocommit=True
            ) as conn:
                await conn.execute(f"LISTEN {CHANNEL}")
                if failures:
                    log.warning("listening for events again")
                failures = 0
                heard(None)
                if on_listening is not None:
                    on_listening()
                async for note in conn.notifies():
                    heard(parse(note.payload))
            problem = "the connection closed"
        except psycopg.Error as exc:
            problem = str(exc) or type(exc).__name__
        delay = RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS) - 1)]
        failures += 1
        log.warning("event listener lost its connection (%s); retrying in %.1f s", problem, delay)
        await asyncio.sleep(delay)

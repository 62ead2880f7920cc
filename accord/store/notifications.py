"""PostgreSQL's announcement of committed events: NOTIFY in the appending transaction, so that
it is delivered exactly when the events are committed (and never for a rolled-back one), and
one LISTEN connection per process that hears every process's commits.

A payload is a JSON array of keys: the negotiation ids and scopes the events belong to. It
names no party and holds no event, so a listener learns only which streams to wake."""

import contextlib
import json
import logging
import secrets
import select
import threading
from collections.abc import Callable, Collection, Iterator
from typing import Final

import orjson
import psycopg
from psycopg.conninfo import make_conninfo
from psycopg.pq.abc import PGconn
from sqlalchemy import Connection
from sqlalchemy.engine import make_url

from accord.store import driver

CHANNEL: Final = "accord_events"
# NOTIFY refuses a payload of 8000 bytes or more; keys are short, so this is rarely split.
MAX_PAYLOAD_BYTES: Final = 7000
RECONNECT_SECONDS: Final = (0.2, 0.5, 1.0, 2.0, 5.0, 10.0)
# The longest a listener waits without looking whether it is asked to stop.
STOP_SECONDS: Final = 1.0
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


def parse(payload: str | bytes) -> frozenset[str] | None:
    """The keys of a payload; None for one this version cannot read (wake everything)."""
    try:
        keys = orjson.loads(payload)
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


class Listener:
    """LISTEN on a dedicated connection, in a thread of its own, until stopped; reconnecting
    when the connection drops.

    A thread and a blocking wait, not a task on the event loop: every process hears every
    commit of every process, so with N workers a move is heard N times, and an asyncio wake-up
    per notification cost each worker more than the rest of hearing it. `heard` runs on this
    thread (the notifier's subscribers are safe from any thread).

    After every (re)connection `heard(None)` runs first: events committed while nobody was
    listening were announced to no one, so every stream must read again."""

    def __init__(
        self, database_url: str, heard: Heard, *, on_listening: Callable[[], None] | None = None
    ) -> None:
        self._conninfo = conninfo(database_url)
        self._heard = heard
        self._on_listening = on_listening
        self._stopping = threading.Event()
        # A channel of this listener's own: `stop` announces on it to end the wait at once.
        self._stop_channel = f"accord_stop_{secrets.token_hex(8)}"
        self._thread = threading.Thread(target=self._run, name="accord-event-listener", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """End the wait and the thread (within `STOP_SECONDS` if the store cannot be reached
        to announce it)."""
        self._stopping.set()
        with (
            contextlib.suppress(psycopg.Error),
            psycopg.connect(self._conninfo, autocommit=True, connect_timeout=2) as conn,
        ):
            conn.execute("SELECT pg_notify(%s, '')", (self._stop_channel,))
        self._thread.join(timeout=STOP_SECONDS + 1)

    def _hear(self, pgconn: PGconn) -> None:
        """Until stopped: every notification that arrived together, heard as one set of keys.
        Straight through libpq (`consume_input`, `notifies`): what arrives together is read in
        one go, and the subscribers are told once per wake-up, not once per commit."""
        channel = CHANNEL.encode()
        poll = select.poll()  # not select(): a busy server's descriptors pass 1024
        poll.register(pgconn.socket, select.POLLIN)
        while not self._stopping.is_set():
            if not poll.poll(STOP_SECONDS * 1000):
                continue
            pgconn.consume_input()  # raises once the connection is gone
            keys: set[str] | None = set()
            heard = False
            while (note := pgconn.notifies()) is not None:
                if note.relname != channel:
                    continue  # this listener's own stop channel
                heard = True
                parsed = parse(note.extra)
                if parsed is None:
                    keys = None
                elif keys is not None:
                    keys |= parsed
            if heard:
                self._tell(None if keys is None else frozenset(keys))

    def _tell(self, keys: frozenset[str] | None) -> None:
        """`heard`, which must not end the listening when it fails: every stream relies on it."""
        try:
            self._heard(keys)
        except Exception:
            log.exception("a subscriber failed to hear a commit")

    def _run(self) -> None:
        failures = 0
        while not self._stopping.is_set():
            try:
                with psycopg.connect(self._conninfo, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    conn.execute(f"LISTEN {self._stop_channel}")
                    if failures:
                        log.warning("listening for events again")
                    failures = 0
                    self._tell(None)
                    if self._on_listening is not None:
                        self._on_listening()
                    self._hear(conn.pgconn)
                    return
            except (psycopg.Error, OSError) as exc:
                problem = str(exc) or type(exc).__name__
            if self._stopping.is_set():
                return
            delay = RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS) - 1)]
            failures += 1
            log.warning(
                "event listener lost its connection (%s); retrying in %.1f s", problem, delay
            )
            self._stopping.wait(delay)

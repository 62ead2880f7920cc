"""PostgreSQL's announcement of committed events: NOTIFY in the appending transaction, so that
it is delivered exactly when the events are committed (and never for a rolled-back one), and
one LISTEN connection per process that hears the commits it has a use for.

A commit is announced on each of its keys' channels (`channel`) and once more on `CHANNEL`,
which carries every key. A process listens on the channels of the keys its streams and
subscribers follow, and on `CHANNEL` only while one of them wants everything: so a commit
wakes the processes that follow it, not every process, and the database does the sorting.

A payload is a JSON array of keys: the negotiation ids and scopes the events belong to. It
names no party and holds no event, so a listener learns only which streams to wake."""

import contextlib
import functools
import hashlib
import json
import logging
import os
import select
import threading
from collections.abc import Callable, Collection, Iterator
from typing import Any, Final

import orjson
import psycopg
from psycopg.conninfo import make_conninfo
from sqlalchemy import Connection
from sqlalchemy.engine import make_url

from accord.store import driver

CHANNEL: Final = "accord_events"
"""Every commit's keys: heard by a process only while it wants everything."""
GROUPED: Final = frozenset({"intent"})
"""Key kinds (`<kind>:<id>`) that share one channel: a follower of any of them follows all."""
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
    whole = orjson.dumps(sorted(keys))
    if len(whole) <= MAX_PAYLOAD_BYTES:  # nearly always: a commit has a key or two
        yield whole.decode()
        return
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


@functools.lru_cache(maxsize=4096)
def channel(key: str) -> str:
    """The channel `key` is announced on: its kind's for a grouped kind, else its own (a
    digest: a channel is an identifier of at most 63 bytes, a key may be longer)."""
    kind, colon, _ = key.partition(":")
    if colon and kind in GROUPED:
        return f"accord_{kind}"
    return "accord_" + hashlib.blake2b(key.encode(), digest_size=12).hexdigest()


def announcements(keys: Collection[str]) -> list[tuple[str, str]]:
    """(channel, payload) pairs announcing `keys`: `CHANNEL` with all of them, and each key's
    own channel with the keys that share it."""
    by_channel: dict[str, list[str]] = {CHANNEL: list(keys)}
    for key in keys:
        by_channel.setdefault(channel(key), []).append(key)
    return [(name, payload) for name, some in by_channel.items() for payload in payloads(some)]


def publish(conn: Connection, keys: Collection[str]) -> None:
    """Announce `keys` at this transaction's commit (PostgreSQL; SQLite has no NOTIFY), in
    one statement of scalar parameters (cheaper to send than arrays)."""
    if conn.dialect.name != "postgresql" or not keys:
        return
    pairs = announcements(keys)
    params: dict[str, str] = {}
    for i, (name, payload) in enumerate(pairs):
        params[f"c_{i}"], params[f"p_{i}"] = name, payload
    driver.execute(conn, _notify_sql(len(pairs)), params)


@functools.lru_cache(maxsize=16)
def _notify_sql(count: int) -> str:
    return "SELECT " + ", ".join(f"pg_notify(:c_{i}, :p_{i})" for i in range(count))


def conninfo(database_url: str) -> str:
    """libpq's form of a SQLAlchemy URL (`postgresql+psycopg://…` → `postgresql://…`), with
    keepalives."""
    url = make_url(database_url).set(drivername="postgresql")
    return make_conninfo(url.render_as_string(hide_password=False), **KEEPALIVES)


class Listener:
    """LISTEN on a dedicated connection, in a thread of its own, until stopped; reconnecting
    when the connection drops.

    A thread and a blocking wait, not a task on the event loop: an asyncio wake-up per
    notification cost a worker more than the rest of hearing it. `heard` runs on this thread
    (the notifier's subscribers are safe from any thread).

    It listens on `wanted()`'s channels, asked again after each `changed()`; once a channel
    is newly listened on, `listened` is told of it, since a commit made just before was
    announced to no one here: what follows that channel reads the store again. After every
    (re)connection `heard(None)` runs first, for the same reason."""

    def __init__(
        self,
        database_url: str,
        heard: Heard,
        *,
        wanted: Callable[[], frozenset[str]] = lambda: frozenset({CHANNEL}),
        listened: Callable[[frozenset[str]], None] = lambda channels: None,
        on_listening: Callable[[], None] | None = None,
    ) -> None:
        self._conninfo = conninfo(database_url)
        self._heard = heard
        self._wanted = wanted
        self._listened = listened
        self._on_listening = on_listening
        self._listening: frozenset[str] = frozenset()
        self._backlog: list[str | bytes] = []
        """Payloads psycopg read while this thread ran a statement."""
        self._stopping = threading.Event()
        # Written to wake the wait at once: to stop, or to listen on other channels.
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_write, False)
        self._thread = threading.Thread(target=self._run, name="accord-event-listener", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def changed(self) -> None:
        """`wanted()` may answer otherwise now: listen again, at once."""
        with contextlib.suppress(BlockingIOError):  # a wake-up is pending already
            os.write(self._wake_write, b"\0")

    def stop(self) -> None:
        """End the wait and the thread."""
        self._stopping.set()
        self.changed()
        self._thread.join(timeout=STOP_SECONDS + 1)
        if not self._thread.is_alive():
            os.close(self._wake_read)
            os.close(self._wake_write)

    def _listen(self, conn: psycopg.Connection[Any]) -> frozenset[str]:
        """LISTEN on what is wanted, then no longer on the rest (so that nothing goes unheard
        in between); the channels whose commits went unheard until now (none while `CHANNEL`
        carried them all)."""
        wanted, before = self._wanted(), self._listening
        added, dropped = wanted - before, before - wanted
        if added or dropped:
            statements = [f'LISTEN "{name}"' for name in sorted(added)]
            statements += [f'UNLISTEN "{name}"' for name in sorted(dropped)]
            conn.execute("; ".join(statements))
            self._listening = wanted
        return frozenset() if CHANNEL in before else added

    def _hear(self, conn: psycopg.Connection[Any]) -> None:
        """Until stopped: every notification that arrived together, heard as one set of keys.
        Straight through libpq (`consume_input`, `notifies`): what arrives together is read in
        one go, and the subscribers are told once per wake-up, not once per commit."""
        pgconn = conn.pgconn
        poll = select.poll()  # not select(): a busy server's descriptors pass 1024
        poll.register(pgconn.socket, select.POLLIN)
        poll.register(self._wake_read, select.POLLIN)
        while not self._stopping.is_set():
            ready = poll.poll(STOP_SECONDS * 1000)
            if not ready:
                continue
            added: frozenset[str] = frozenset()
            if any(fd == self._wake_read for fd, _ in ready):
                os.read(self._wake_read, 4096)
                if self._stopping.is_set():
                    return
                added = self._listen(conn)
            pgconn.consume_input()  # raises once the connection is gone
            notes, self._backlog = self._backlog, []
            while (note := pgconn.notifies()) is not None:
                notes.append(note.extra)
            if notes:
                self._tell(_keys(notes))
            if added:
                try:
                    self._listened(added)
                except Exception:
                    log.exception("a subscriber failed to read again what it follows")

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
                    conn.add_notify_handler(lambda note: self._backlog.append(note.payload))
                    self._listening = frozenset()
                    self._listen(conn)
                    if failures:
                        log.warning("listening for events again")
                    failures = 0
                    self._backlog.clear()  # heard(None) says more than they would
                    self._tell(None)
                    if self._on_listening is not None:
                        self._on_listening()
                    self._hear(conn)
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


def _keys(payloads: Collection[str | bytes]) -> frozenset[str] | None:
    """The keys of payloads heard together; None if one of them cannot be read."""
    keys: set[str] = set()
    for payload in payloads:
        parsed = parse(payload)
        if parsed is None:
            return None
        keys |= parsed
    return frozenset(keys)

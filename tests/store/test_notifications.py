"""PostgreSQL's announcement of commits: keys packed into payloads under NOTIFY's limit and read
back whole, and the listener thread that hears them (on PostgreSQL only)."""

import contextlib
import os
import queue
import secrets
import time
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Connection, text

from accord.store import notifications
from accord.store.database import Database

WAIT_SECONDS = 10.0  # a safety net: each wait ends at what it waits for

Heard = frozenset[str] | None

keys_strategy = st.sets(st.text(min_size=1, max_size=300), max_size=200)


@given(keys_strategy)
def test_payloads_carry_every_key_and_each_fits_notify(keys: set[str]) -> None:
    payloads = list(notifications.payloads(keys))
    assert all(len(p.encode()) < 8000 for p in payloads)
    parsed = [notifications.parse(p) for p in payloads]
    assert all(p is not None for p in parsed)
    assert set().union(*(p for p in parsed if p is not None)) == keys


@pytest.mark.parametrize(
    "payload", ["", "not json", "{}", '"a key"', '["a", 1]', "[null]", b"\xff\xfe", "[[]]"]
)
def test_a_payload_this_version_cannot_read_wakes_everything(payload: str | bytes) -> None:
    assert notifications.parse(payload) is None


@pytest.fixture
def postgres(db: Database) -> Database:
    if db.dialect != "postgresql":
        pytest.skip("NOTIFY exists only on PostgreSQL")
    return db


def _until(heard: "queue.Queue[Heard]", done: Callable[[list[Heard]], bool]) -> list[Heard]:
    """What the listener heard until `done(got)` holds."""
    got: list[Heard] = []
    deadline = time.monotonic() + WAIT_SECONDS
    while not done(got):
        got.append(heard.get(timeout=max(0.0, deadline - time.monotonic())))
    return got


def test_the_listener_hears_every_key_and_stops_at_once(postgres: Database) -> None:
    heard: queue.Queue[Heard] = queue.Queue()
    listening = queue.Queue[bool]()
    listener = notifications.Listener(
        postgres.url, heard.put, on_listening=lambda: listening.put(True)
    )
    listener.start()
    try:
        assert listening.get(timeout=WAIT_SECONDS)
        assert heard.get(timeout=WAIT_SECONDS) is None  # first: read everything again
        # Other tests' commits reach this listener too (NOTIFY spans the database): wait for
        # this test's own keys, enough of them for two payloads of one commit.
        mine = {f"{secrets.token_hex(8)}:{'k' * 100}:{n}" for n in range(100)}

        def announce(conn: Connection) -> None:
            notifications.publish(conn, mine)

        assert len(list(notifications.payloads(mine))) > 1
        postgres.write(announce)
        _until(heard, lambda got: mine <= set().union(*(g for g in got if g is not None)))

        with postgres.write_engine.begin() as conn:
            conn.execute(
                text("SELECT pg_notify(:channel, 'from another version')"),
                {"channel": notifications.CHANNEL},
            )
        _until(heard, lambda got: None in got)
    finally:
        started = time.monotonic()
        listener.stop()
        stopping = time.monotonic() - started
    # Told on its own channel, not left to find out at its next look.
    assert stopping < notifications.STOP_SECONDS


def test_the_listener_outlives_a_failing_subscriber_and_high_descriptors(
    postgres: Database,
) -> None:
    # Enough descriptors open that the listener's socket is past select()'s 1024.
    with contextlib.ExitStack() as held:
        for _ in range(1100):
            held.enter_context(open(os.devnull, "rb"))
        heard: queue.Queue[Heard] = queue.Queue()
        calls = 0

        def fails_first(keys: Heard) -> None:
            nonlocal calls
            calls += 1
            if calls == 1:
                raise RuntimeError("a subscriber's bug")
            heard.put(keys)

        listener = notifications.Listener(postgres.url, fails_first)
        listener.start()
        try:
            mine = {f"{secrets.token_hex(8)}:after-a-failure"}

            def announce(conn: Connection) -> None:
                notifications.publish(conn, mine)

            deadline = time.monotonic() + WAIT_SECONDS
            while calls == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            postgres.write(announce)
            _until(heard, lambda got: mine <= set().union(*(g for g in got if g is not None)))
        finally:
            listener.stop()


@given(keys_strategy)
def test_every_key_is_announced_on_its_own_channel_and_on_the_shared_one(keys: set[str]) -> None:
    on: dict[str, set[str]] = {}
    for name, payload in notifications.announcements(keys):
        assert len(payload.encode()) < 8000
        assert len(name.encode()) <= 63 and name.isidentifier() and name == name.lower()
        parsed = notifications.parse(payload)
        assert parsed is not None
        on.setdefault(name, set()).update(parsed)
    assert on.get(notifications.CHANNEL, set()) == keys
    for key in keys:
        assert key in on[notifications.channel(key)]


@pytest.mark.parametrize(
    ("one", "other", "shared"),
    [
        ("intent:int_1", "intent:int_2", True),  # the discovery index follows every intent
        ("room_1", "room_2", False),
        ("tenant:ten_1:live", "tenant:ten_2:live", False),
        ("principal:prn_1", "principal:prn_2", False),
        ("adviser:links", "intent:int_1", False),
        ("intent", "intent:", False),  # no kind without its colon
        ("k" * 500, "k" * 501, False),  # a long key still has a channel of its own
    ],
)
def test_only_grouped_kinds_share_a_channel(one: str, other: str, shared: bool) -> None:
    assert (notifications.channel(one) == notifications.channel(other)) is shared


def test_the_listener_hears_only_the_channels_it_is_asked_for(postgres: Database) -> None:
    heard: queue.Queue[Heard] = queue.Queue()
    listened: queue.Queue[frozenset[str]] = queue.Queue()
    followed, unfollowed = f"room_{secrets.token_hex(8)}", f"room_{secrets.token_hex(8)}"
    wanted = {notifications.channel(followed)}
    listener = notifications.Listener(
        postgres.url, heard.put, wanted=lambda: frozenset(wanted), listened=listened.put
    )

    def announce(*keys: str) -> None:
        postgres.write(lambda conn: notifications.publish(conn, set(keys)))

    listener.start()
    try:
        assert heard.get(timeout=WAIT_SECONDS) is None  # first: read everything again
        announce(unfollowed)
        announce(followed)  # delivered in commit order: after the other, had it been heard
        assert heard.get(timeout=WAIT_SECONDS) == frozenset({followed})
        wanted.add(notifications.channel(unfollowed))
        listener.changed()
        assert listened.get(timeout=WAIT_SECONDS) == {notifications.channel(unfollowed)}
        announce(unfollowed)
        assert heard.get(timeout=WAIT_SECONDS) == frozenset({unfollowed})
        wanted.clear()
        listener.changed()
        time.sleep(0.2)  # no way to see an UNLISTEN land but by what is heard after it
        announce(followed, unfollowed)
        time.sleep(0.5)
        assert heard.empty()
    finally:
        listener.stop()


def test_the_listener_outlives_a_failure_to_read_again(postgres: Database) -> None:
    heard: queue.Queue[Heard] = queue.Queue()
    told: queue.Queue[frozenset[str]] = queue.Queue()
    key = f"room_{secrets.token_hex(8)}"
    wanted: set[str] = set()

    def fails(channels: frozenset[str]) -> None:
        told.put(channels)
        raise RuntimeError("a subscriber's bug")

    listener = notifications.Listener(
        postgres.url, heard.put, wanted=lambda: frozenset(wanted), listened=fails
    )
    listener.start()
    try:
        assert heard.get(timeout=WAIT_SECONDS) is None
        wanted.add(notifications.channel(key))
        listener.changed()
        assert told.get(timeout=WAIT_SECONDS) == {notifications.channel(key)}
        postgres.write(lambda conn: notifications.publish(conn, {key}))
        assert heard.get(timeout=WAIT_SECONDS) == frozenset({key})
    finally:
        listener.stop()

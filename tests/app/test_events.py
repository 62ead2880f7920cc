"""Audiences and `follow` (interfaces A7), on the real store, SQLite or PostgreSQL: who reads
which event, and a stream that reads the store only when a commit touched its audience."""

import asyncio
import json
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import make_url

from accord.app.events import (
    Audience,
    Events,
    Level,
    PrincipalAudience,
    ScopeAudience,
    SeatAudience,
)
from accord.app.notifier import Notifier
from accord.app.principal_events import principal_scope
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.store import records
from accord.store.database import Database
from accord.store.events import EventRow, NewEvent, insert_events

# Unique to this process: PostgreSQL's NOTIFY reaches every schema of the database, so tests
# running side by side must not share keys.
_RUN = secrets.token_hex(4)
ROOM, OTHER_ROOM = f"room_a{_RUN}", f"room_b{_RUN}"
TENANT, OTHER_TENANT = f"tenant:ten_1{_RUN}:test", f"tenant:ten_2{_RUN}:test"
INTRO = f"neg_i{_RUN}"
ADA, BOB = f"prn_ada{_RUN}", f"prn_bob{_RUN}"
WAIT_SECONDS = 10.0  # a safety net: each wait ends at the event it waits for
IDLE_SECONDS = 1.5  # longer than the poll interval a stream could hide behind

# (label, negotiation, party, owner_only, scope)
ROWS = [
    ("public", ROOM, None, False, TENANT),
    ("opener_notice", ROOM, "opener", False, TENANT),
    ("joiner_notice", ROOM, "joiner", False, TENANT),
    ("public_owner_only", ROOM, None, True, TENANT),
    ("opener_owner_only", ROOM, "opener", True, TENANT),
    ("other_room_public", OTHER_ROOM, None, False, OTHER_TENANT),
    ("other_room_opener", OTHER_ROOM, "opener", False, OTHER_TENANT),
    # An intro negotiation, each seat held by its principal; and a principal's own event.
    ("ada_seat", INTRO, "initiator", False, principal_scope(ADA)),
    ("ada_seat_owner_only", INTRO, "initiator", True, principal_scope(ADA)),
    ("bob_seat", INTRO, "responder", False, principal_scope(BOB)),
    ("ada_own", None, None, False, principal_scope(ADA)),
]


def _row(
    label: str,
    negotiation_id: str | None,
    party: str | None,
    owner_only: bool,
    scope: str | None,
    kind: str = "notification",
) -> NewEvent:
    data = json.dumps({"type": label})
    return NewEvent(
        negotiation_id=negotiation_id,
        party=party,
        owner_only=owner_only,
        kind=kind,
        data=data,
        scope=scope,
    )


def _negotiations(db: Database, *ids: str) -> None:
    def txn(conn: Any) -> None:
        for negotiation_id in ids:
            records.insert_negotiation(
                conn, negotiation_id, "rooms", name=None, now="2026-11-30T12:00:00Z"
            )

    db.write(txn)


def _append(db: Database, notifier: Notifier, *rows: NewEvent) -> None:
    """As a writer does: insert in a transaction, then notify with the keys once committed."""
    keys = db.write(lambda conn: insert_events(conn, rows))
    notifier.notify(keys)


def _labels(rows: list[EventRow]) -> list[str]:
    return [json.loads(row.data)["type"] for row in rows]


@pytest.fixture
def store(db: Database) -> Events:
    _negotiations(db, ROOM, OTHER_ROOM, INTRO)
    events = Events(db)
    _append(db, events.notifier, *(_row(*row) for row in ROWS))
    # An envelope is never a principal's, whatever scope it names.
    envelope = _row("ada_envelope", INTRO, None, False, principal_scope(ADA), kind="envelope")
    _append(db, events.notifier, envelope)
    return events


@pytest.mark.parametrize(
    ("audience", "expected"),
    [
        pytest.param(
            SeatAudience(ROOM, "opener", Level.AGENT),
            ["public", "opener_notice"],
            id="seat_agent",
        ),
        pytest.param(
            SeatAudience(ROOM, "opener", Level.OWNER),
            ["public", "opener_notice", "public_owner_only", "opener_owner_only"],
            id="seat_owner",
        ),
        pytest.param(
            SeatAudience(ROOM, "joiner", Level.AGENT), ["public", "joiner_notice"], id="other_seat"
        ),
        pytest.param(
            SeatAudience(ROOM, "joiner", Level.OWNER),
            ["public", "joiner_notice", "public_owner_only"],
            id="other_seat_owner",
        ),
        pytest.param(
            SeatAudience(OTHER_ROOM, "opener", Level.OWNER),
            ["other_room_public", "other_room_opener"],
            id="other_negotiation",
        ),
        pytest.param(ScopeAudience(TENANT, Level.AGENT), ["public"], id="scope_agent"),
        pytest.param(
            ScopeAudience(TENANT, Level.OWNER),
            ["public", "public_owner_only"],
            id="scope_owner",
        ),
        pytest.param(
            ScopeAudience(OTHER_TENANT, Level.OWNER), ["other_room_public"], id="other_scope"
        ),
        pytest.param(ScopeAudience("tenant:ten_3:live", Level.OWNER), [], id="unknown_scope"),
        pytest.param(
            PrincipalAudience(ADA, Level.OWNER),
            ["ada_seat", "ada_seat_owner_only", "ada_own"],
            id="principal_owner",
        ),
        pytest.param(
            PrincipalAudience(ADA, Level.AGENT), ["ada_seat", "ada_own"], id="principal_agent"
        ),
        pytest.param(PrincipalAudience(BOB, Level.AGENT), ["bob_seat"], id="other_principal"),
        pytest.param(PrincipalAudience("prn_cy", Level.OWNER), [], id="unknown_principal"),
        pytest.param(
            SeatAudience(INTRO, "initiator", Level.OWNER),
            ["ada_seat", "ada_seat_owner_only", "ada_envelope"],
            id="a_held_seat_as_a_seat",
        ),
    ],
)
def test_each_audience_reads_exactly_its_events(
    store: Events, audience: Audience, expected: list[str]
) -> None:
    assert _labels(store.read(audience, 0)) == expected


def test_reads_resume_after_an_id_in_order(store: Events) -> None:
    audience = SeatAudience(ROOM, "opener", Level.OWNER)
    every = store.read(audience, 0)
    assert [row.id for row in every] == sorted(row.id for row in every)
    assert store.read(audience, every[1].id) == every[2:]
    assert store.read(audience, every[-1].id) == []
    assert len(store.read(audience, 0, limit=2)) == 2


@contextmanager
def counting_event_reads(db: Database) -> Iterator[list[str]]:
    """Every statement that reads the events table, as the database driver receives it."""
    seen: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "FROM events" in statement:
            seen.append(statement)

    event.listen(db.read_engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(db.read_engine, "before_cursor_execute", count)


async def _next(stream: AsyncIterator[EventRow]) -> EventRow:
    return await asyncio.wait_for(anext(stream), WAIT_SECONDS)


def test_follow_reads_only_when_a_commit_touches_its_audience(db: Database) -> None:
    _negotiations(db, ROOM, OTHER_ROOM)
    events = Events(db)
    _append(db, events.notifier, _row("before", ROOM, None, False, None))

    async def scenario() -> None:
        async with events.listening():
            stream = events.follow(SeatAudience(ROOM, "opener", Level.AGENT), 0)
            with counting_event_reads(db) as reads:
                assert _labels([await _next(stream)]) == ["before"]
                waiting = asyncio.ensure_future(_next(stream))
                await asyncio.sleep(IDLE_SECONDS)
                # On PostgreSQL it reads once more once its room's channel is listened on:
                # a commit just before was announced to no one here.
                settled = 2 if db.dialect == "postgresql" else 1
                assert len(reads) == settled
                for n in range(5):  # another room's commits wake nobody here
                    row = _row(f"elsewhere_{n}", OTHER_ROOM, None, False, OTHER_TENANT)
                    await asyncio.to_thread(_append, db, events.notifier, row)
                await asyncio.sleep(IDLE_SECONDS)
                assert len(reads) == settled and not waiting.done()
                await asyncio.to_thread(
                    _append, db, events.notifier, _row("after", ROOM, "opener", False, None)
                )
                assert _labels([await waiting]) == ["after"]
                assert len(reads) == settled + 1
            await stream.aclose()

    asyncio.run(scenario())


def test_follow_a_scope_wakes_on_its_scope(db: Database) -> None:
    _negotiations(db, ROOM, OTHER_ROOM)
    events = Events(db)

    async def scenario() -> None:
        async with events.listening():
            stream = events.follow(ScopeAudience(TENANT, Level.AGENT), 0)
            waiting = asyncio.ensure_future(_next(stream))
            rows = [_row("other", OTHER_ROOM, None, False, OTHER_TENANT)]
            await asyncio.to_thread(_append, db, events.notifier, *rows)
            rows = [_row("mine", ROOM, None, False, TENANT)]
            await asyncio.to_thread(_append, db, events.notifier, *rows)
            assert _labels([await waiting]) == ["mine"]
            await stream.aclose()

    asyncio.run(scenario())


def test_follow_delivers_a_room_move_made_through_the_service(accord: Accord) -> None:
    events, rooms = accord.events, accord.rooms
    schema = {"n": {"type": "int"}}
    opened = rooms.open(OpenRequest(subject_schema=schema, subject={"n": 1}))
    room_id = opened["room"]["room_id"]
    joined = rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    audience = SeatAudience(room_id, "opener", Level.AGENT)
    backlog = events.read(audience, 0)

    async def scenario() -> None:
        async with events.listening():
            stream = events.follow(audience, backlog[-1].id)
            waiting = asyncio.ensure_future(_next(stream))
            move = MoveRequest(type="counter", terms={"n": 2})
            await asyncio.to_thread(rooms.move, joined["seat_token"], room_id, move)
            got = await waiting
            assert (got.kind, json.loads(got.data)["type"]) == ("envelope", "move.counter")
            await stream.aclose()

    asyncio.run(scenario())


# -- PostgreSQL: one listener per process hears every process's commits ----------------------


@pytest.fixture
def postgres(db: Database) -> Database:
    if db.dialect != "postgresql":
        pytest.skip("NOTIFY exists only on PostgreSQL")
    return db


def test_an_append_through_another_engine_reaches_the_stream_by_notify(
    postgres: Database,
) -> None:
    _negotiations(postgres, ROOM)
    events = Events(postgres)
    elsewhere = Database(postgres.url, apply_migrations=False)  # another process's engines
    try:

        async def scenario() -> None:
            async with events.listening():
                stream = events.follow(SeatAudience(ROOM, "joiner", Level.AGENT), 0)
                waiting = asyncio.ensure_future(_next(stream))
                # The other process's notifier knows nothing of this stream.
                rows = [_row("from_elsewhere", ROOM, None, False, None)]
                await asyncio.to_thread(_append, elsewhere, Notifier(), *rows)
                assert _labels([await waiting]) == ["from_elsewhere"]
                await stream.aclose()

        asyncio.run(scenario())
    finally:
        elsewhere.close()


def test_the_listener_reconnects_and_misses_nothing(settings: Settings, postgres: Database) -> None:
    name = f"accord_listener_{id(settings)}"
    url = make_url(postgres.url).update_query_dict({"application_name": name})
    listening_db = Database(url.render_as_string(hide_password=False), apply_migrations=False)
    _negotiations(postgres, ROOM)
    events = Events(listening_db)
    try:

        async def scenario() -> None:
            async with events.listening():
                stream = events.follow(SeatAudience(ROOM, "opener", Level.AGENT), 0)
                waiting = asyncio.ensure_future(_next(stream))
                deadline = time.monotonic() + WAIT_SECONDS
                ended: list[Any] = []
                while not ended and time.monotonic() < deadline:  # once the room is listened on
                    await asyncio.sleep(0.02)
                    with postgres.write_engine.begin() as conn:
                        ended = list(
                            conn.execute(
                                text(
                                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                    "WHERE application_name = :name AND query LIKE 'LISTEN%'"
                                ),
                                {"name": name},
                            )
                        )
                assert len(ended) == 1
                rows = [_row("while_away", ROOM, None, False, None)]
                await asyncio.to_thread(_append, postgres, Notifier(), *rows)
                assert _labels([await waiting]) == ["while_away"]
                rows = [_row("once_back", ROOM, None, False, None)]
                await asyncio.to_thread(_append, postgres, Notifier(), *rows)
                assert _labels([await _next(stream)]) == ["once_back"]
                await stream.aclose()

        asyncio.run(scenario())
    finally:
        listening_db.close()


def test_a_process_hears_nothing_of_the_commits_it_does_not_follow(postgres: Database) -> None:
    """With several processes, a commit wakes the ones that follow its keys: the database
    sorts the announcements by channel, so the others are not woken to drop them."""
    _negotiations(postgres, ROOM, OTHER_ROOM)
    events = Events(postgres)
    heard: list[frozenset[str] | None] = []
    events.notifier.subscribe(heard.append, lambda: frozenset({ROOM}))

    async def scenario() -> None:
        async with events.listening():
            for n in range(5):
                row = _row(f"elsewhere_{n}", OTHER_ROOM, None, False, OTHER_TENANT)
                await asyncio.to_thread(_append, postgres, Notifier(), row)
            mine = _row("mine", ROOM, None, False, None)
            await asyncio.to_thread(_append, postgres, Notifier(), mine)
            deadline = time.monotonic() + WAIT_SECONDS
            while frozenset({ROOM}) not in heard and time.monotonic() < deadline:
                await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert heard == [None, frozenset({ROOM})]  # on connecting, then its room's commit only


def test_a_subscriber_that_follows_everything_hears_every_commit(postgres: Database) -> None:
    _negotiations(postgres, OTHER_ROOM)
    events = Events(postgres)
    heard: list[frozenset[str] | None] = []
    events.notifier.subscribe(heard.append)

    async def scenario() -> None:
        async with events.listening():
            row = _row("elsewhere", OTHER_ROOM, None, False, OTHER_TENANT)
            await asyncio.to_thread(_append, postgres, Notifier(), row)
            deadline = time.monotonic() + WAIT_SECONDS
            while not any(h and OTHER_ROOM in h for h in heard) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert frozenset({OTHER_ROOM, OTHER_TENANT}) in heard

"""The sweeper: records due expiries once, whoever runs it and however many run at once."""

import threading
from functools import partial

from accord.app.rooms import Rooms
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.protocols.rooms.moves import JoinRequest, OpenRequest
from accord.store import records
from accord.store.database import Database
from tests.conftest import FakeClock, swept

SCHEMA = {"n": {"type": "int"}}


def _types(db: Database, room_id: str) -> list[str]:
    return [e.type for e in db.read(lambda conn: records.read_log(conn, room_id))]


def test_sweep_expires_drafts_live_rooms_and_deadlines_with_their_reason(
    accord: Accord, rooms: Rooms, db: Database, clock: FakeClock
) -> None:
    draft = rooms.open(OpenRequest(subject_schema=SCHEMA))["room"]["room_id"]
    live = rooms.open(OpenRequest(subject_schema=SCHEMA, subject={"n": 1}))
    rooms.join(JoinRequest(invite_token=live["invite"]["token"]))
    dated = rooms.open(
        OpenRequest(subject_schema=SCHEMA, subject={"n": 2}, deadline="2026-11-30T13:00:00Z")
    )["room"]["room_id"]
    assert swept(accord) == []
    clock.advance(hours=2)
    assert swept(accord) == [dated]
    clock.advance(hours=71)
    assert swept(accord) == [draft]
    clock.advance(days=5)
    assert swept(accord) == [live["room"]["room_id"]]
    assert swept(accord) == []
    reasons = {
        room_id: db.read(partial(records.read_log, negotiation_id=room_id))[-1].payload["reason"]
        for room_id in (draft, dated, live["room"]["room_id"])
    }
    assert reasons == {draft: "invite", dated: "deadline", live["room"]["room_id"]: "idle"}


def test_concurrent_sweepers_expire_each_room_once(
    rooms: Rooms, db: Database, settings: Settings, clock: FakeClock
) -> None:
    opened = [rooms.open(OpenRequest(subject_schema=SCHEMA))["room"]["room_id"] for _ in range(12)]
    clock.advance(days=4)
    others = [Database(settings.database, apply_migrations=False) for _ in range(3)]
    sweepers = [Accord(settings, clock=clock, db=other) for other in others]
    results: list[list[str]] = []
    barrier = threading.Barrier(len(sweepers))

    def run(sweeper: Accord) -> None:
        barrier.wait()
        results.append(swept(sweeper))

    threads = [threading.Thread(target=run, args=(s,)) for s in sweepers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for other in others:
        other.close()
    expired = sorted(room for result in results for room in result)
    assert expired == sorted(opened)
    for room_id in opened:
        assert _types(db, room_id) == ["room.opened", "room.expired"]

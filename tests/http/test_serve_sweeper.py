"""The sweeper inside the server expires a room nobody comes back to."""

import time

from accord.app.settings import Settings
from accord.store import records
from accord.store.database import Database
from tests.conftest import FakeClock, serve_in_thread


def test_the_server_sweeps_on_its_interval_without_any_access(
    settings: Settings, clock: FakeClock
) -> None:
    live = settings.model_copy(update=dict(sweep_interval=0.05))
    with serve_in_thread(live, clock) as server, server.client() as anyone:
        opened = anyone.post("/v1/rooms", json={"subject_schema": {"n": {"type": "int"}}})
        room_id = opened.json()["room"]["room_id"]
        clock.advance(hours=73)
        db = Database(settings.database, apply_migrations=False)
        try:
            deadline = time.monotonic() + 10
            types: list[str] = []
            while time.monotonic() < deadline:
                types = [e.type for e in db.read(lambda c: records.read_log(c, room_id))]
                if types[-1] == "room.expired":
                    break
                time.sleep(0.02)
        finally:
            db.close()
    assert types == ["room.opened", "room.expired"]

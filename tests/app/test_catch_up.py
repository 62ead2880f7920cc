"""Two processes on one store, a room's moves landing on each in turn: each process carries its
cached state on with the moves the other appended (reading those, not the log's whole tail),
and answers exactly what a process that never saw the room reads from the store."""

from collections.abc import Iterator
from typing import Any

import pytest

from accord.app.root import Accord
from accord.app.settings import Settings
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.protocols.rooms.state import RECENT_MOVES, TAIL
from accord.store import records
from accord.store.database import Database
from tests.conftest import FakeClock

SCHEMA = {"price": {"type": "money", "currency": "EUR"}, "note": {"type": "string"}}


def _terms(amount: int) -> dict[str, Any]:
    return {"price": {"amount_minor": amount, "currency": "EUR"}, "note": f"at {amount}"}


@pytest.fixture
def processes(settings: Settings, clock: FakeClock) -> Iterator[list[Accord]]:
    """Three processes' services on the test's store: two that move, one that only reads."""
    dbs = [Database(settings.database, apply_migrations=i == 0) for i in range(3)]
    yield [Accord(settings, clock=clock, db=db) for db in dbs]
    for db in dbs:
        db.close()


def test_moves_alternating_between_processes_answer_what_the_store_holds(
    processes: list[Accord], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second, reader = processes
    opened = first.rooms.open(OpenRequest(subject_schema=SCHEMA, subject=_terms(90_000)))
    joined = first.rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    room_id = opened["room"]["room_id"]
    tokens = [joined["seat_token"], opened["seat_token"]]
    tails: list[int] = []
    read_log_tail = records.read_log_tail

    def counted(*args: Any, size: int, **kwargs: Any) -> Any:
        tails.append(size)
        return read_log_tail(*args, size=size, **kwargs)

    monkeypatch.setattr(records, "read_log_tail", counted)
    for count in range(RECENT_MOVES + 10):  # past the moves a view shows
        process = (first, second)[count % 2]
        token = tokens[count % 2]
        tails.clear()
        move = MoveRequest(type="counter", terms=_terms(50_000 + count))
        status, answer = process.rooms.move(token, room_id, move)
        assert status == 200
        # The opener's process has the room cached; the other reads the whole tail once, then
        # each reads only the one move the other made.
        assert tails == ([] if count == 0 else [TAIL] if count == 1 else [1]), count
        assert answer["room"] == reader.rooms.show(token, room_id)
    assert len(answer["room"]["moves"]) == RECENT_MOVES

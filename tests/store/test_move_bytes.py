"""What a move writes stays the size of the move: the stored state, the answer kept for a retry
and the rows it appends are no bigger at a room's 2,000th move than at its first."""

from collections.abc import Callable
from functools import partial

import pytest
from sqlalchemy import Connection

from accord.app.root import Accord
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.store.footprint import footprint, written

SCHEMA = {"price": {"type": "int"}, "note": {"type": "string", "optional": True}}
HISTORY = 2_000
BATCH = 250


def _counter(n: int) -> MoveRequest:
    return MoveRequest(
        type="counter", terms={"price": 100_000 + n, "note": f"move {n}"}, message_id=f"m{n}"
    )


@pytest.fixture
def room(accord: Accord) -> tuple[str, tuple[str, str]]:
    opened = accord.rooms.open(OpenRequest(subject_schema=SCHEMA, subject={"price": 1}))
    joined = accord.rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    return opened["room"]["room_id"], (joined["seat_token"], opened["seat_token"])


def _moves(accord: Accord, room: tuple[str, tuple[str, str]], numbers: range) -> None:
    """Counters in turn, many to a transaction: a long history, fast."""
    room_id, tokens = room
    txns: list[Callable[[Connection], object]] = [
        accord.rooms._move_txn(tokens[n % 2], room_id, _counter(n)) for n in numbers
    ]
    for start in range(0, len(txns), BATCH):
        accord.negotiations.write(partial(_all, txns[start : start + BATCH]))


def _all(txns: list[Callable[[Connection], object]], conn: Connection) -> list[object]:
    return [txn(conn) for txn in txns]


def _one_move(accord: Accord, room: tuple[str, tuple[str, str]], n: int) -> dict[str, int]:
    room_id, tokens = room
    before = accord.negotiations.read(lambda conn: footprint(conn, room_id))
    status, _ = accord.rooms.move(tokens[n % 2], room_id, _counter(n))
    assert status == 200
    return written(before, accord.negotiations.read(lambda conn: footprint(conn, room_id)))


def test_a_move_writes_as_much_at_move_2000_as_at_move_1(
    accord: Accord, room: tuple[str, tuple[str, str]]
) -> None:
    first = _one_move(accord, room, 0)
    _moves(accord, room, range(1, HISTORY - 1))
    late = _one_move(accord, room, HISTORY - 1)
    assert late["envelopes"] > 0 and late["idempotency"] > 0 and late["seen"] > 0
    assert sum(late.values()) <= 1.5 * sum(first.values()), (first, late)
    assert late["state"] <= 1.5 * first["state"], (first, late)
    assert late["idempotency"] <= 1.5 * first["idempotency"], (first, late)


def test_a_retry_after_the_room_moved_on_answers_as_the_first_time(
    accord: Accord, room: tuple[str, tuple[str, str]]
) -> None:
    """The retry record keeps no moves; they are read back from the log up to the answer's
    seq, never beyond it."""
    room_id, tokens = room
    first = accord.rooms.move(tokens[0], room_id, _counter(0))
    _moves(accord, room, range(1, 60))
    assert accord.rooms.move(tokens[0], room_id, _counter(0)) == first

"""A move as views show it, encoded once (`MoveEntry.shown_json`): the same bytes as encoding
`shown` in place, so that a move's answer is what it was before the cache."""

import orjson
import pytest

from accord.protocols.rooms.state import MoveEntry, Seat


@pytest.mark.parametrize(
    "entry",
    [
        MoveEntry(
            seq=3,
            seat=Seat.OPENER,
            type="counter",
            via="agent",
            at="2026-12-05T10:00:00Z",
            terms={"price": {"amount": "10.00", "currency": "EUR"}, "note": "é \u2028"},
            subject_hash="sha256:" + "a" * 64,
            message="ok",
            deadline="2026-12-09T10:00:00Z",
        ),
        MoveEntry(seq=4, seat=Seat.JOINER, type="approve", via="owner", at="2026-12-05T10:00:01Z"),
    ],
    ids=["every_member", "absent_members_omitted"],
)
def test_shown_json_is_shown_encoded(entry: MoveEntry) -> None:
    inline = orjson.dumps({"moves": [entry.shown], "n": 1})
    assert orjson.dumps({"moves": [entry.shown_json], "n": 1}) == inline
    assert b'"via"' not in inline

"""An owner's history of a room (interfaces.md, Web pages, a room's item 7): each move with the
door it came through, and the fields each new table changed against the one before it."""

from typing import Any

import pytest

from accord.protocols.rooms.state import MoveEntry, Seat
from accord.protocols.rooms.views import history

AT = "2026-12-01T10:00:00Z"


def move(kind: str, terms: dict[str, Any] | None = None, via: str = "agent") -> MoveEntry:
    seat = Seat.OPENER if kind == "offer" else Seat.JOINER
    return MoveEntry.model_validate(
        {"seq": 1, "seat": seat, "type": kind, "via": via, "at": AT, "terms": terms}
    )


OFFER = {"price": 450, "day": "sat"}


@pytest.mark.parametrize(
    ("moves", "changed"),
    [
        ([move("offer", OFFER)], [None]),  # the first terms in sight: nothing to compare
        ([move("offer", OFFER), move("counter", {"price": 420, "day": "sat"})], [None, ["price"]]),
        (
            [move("offer", OFFER), move("counter", {"price": 420, "day": "sun"})],
            [None, ["price", "day"]],
        ),
        ([move("offer", OFFER), move("counter", dict(OFFER))], [None, []]),  # the same again
        ([move("offer", OFFER), move("counter", {"price": 450})], [None, ["day"]]),  # one gone
        (  # an approve puts no terms: the next counter compares with the last terms
            [move("offer", OFFER), move("approve"), move("counter", {"price": 1, "day": "sat"})],
            [None, None, ["price"]],
        ),
        ([move("need_more_detail"), move("counter", OFFER)], [None, None]),
    ],
)
def test_which_fields_each_move_changed(moves: list[MoveEntry], changed: list[Any]) -> None:
    assert [entry["changed"] for entry in history(moves)] == changed


@pytest.mark.parametrize("via", ["agent", "owner", "confirmed"])
def test_each_move_says_its_door(via: str) -> None:
    (told,) = history([move("offer", OFFER, via=via)])
    assert told["via"] == via
    assert told == {**move("offer", OFFER, via=via).shown, "via": via, "changed": None}

"""A view's `available_moves` (A1): what the seat may do now, the very list a
`move_not_allowed` refusal gives as `allowed`, at each point of a room's life."""

from typing import Final

import httpx

from tests.http.support import Room, assert_error, move, open_room, terms, view

ANSWERING: Final = ["counter", "need_more_detail", "approve", "reject", "cancel"]


def _moves(client: httpx.Client, room: Room, who: str) -> list[str]:
    moves: list[str] = view(client, room, who)["available_moves"]
    return moves


def test_available_moves_follow_the_turn_and_agree_with_refusals(client: httpx.Client) -> None:
    draft = open_room(client, join=False, subject=None)
    assert _moves(client, draft, "opener_seat") == ["cancel"]

    room = open_room(client)
    assert _moves(client, room, "joiner_seat") == ANSWERING  # the opener's offer is on the table
    assert _moves(client, room, "joiner_owner") == ANSWERING  # the same seat, as its owner
    assert _moves(client, room, "opener_seat") == ["cancel"]  # not its turn
    offer = {"type": "offer", "terms": terms(9500)}  # a table is there: counter it instead
    refused = assert_error(move(client, room, "joiner_seat", offer), "move_not_allowed")
    assert refused["allowed"] == _moves(client, room, "joiner_seat")

    countered = move(client, room, "joiner_seat", {"type": "counter", "terms": terms(9000)})
    subject_hash = countered.json()["room"]["table"]["subject_hash"]
    assert _moves(client, room, "opener_owner") == ANSWERING
    move(client, room, "opener_owner", {"type": "approve", "subject_hash": subject_hash})
    assert _moves(client, room, "joiner_seat") == ANSWERING  # its turn to agree
    approved = move(client, room, "joiner_owner", {"type": "approve", "subject_hash": subject_hash})
    assert approved.json()["room"]["state"] == "agreed"
    for who in ("opener_seat", "opener_owner", "joiner_seat", "joiner_owner"):
        assert _moves(client, room, who) == []
    final = assert_error(move(client, room, "joiner_seat", {"type": "cancel"}), "room_final")
    assert final["code"] == "room_final"

"""A room from open to agreement over a real server: the walk-through of the README."""

from typing import Any

from tests.conftest import LiveServer

SCHEMA = {"price": {"type": "money", "currency": "EUR"}, "day": {"type": "date"}}


def terms(amount: int) -> dict[str, Any]:
    return {"price": {"amount_minor": amount, "currency": "EUR"}, "day": "2026-12-10"}


def test_open_join_counter_approve_agree(server: LiveServer) -> None:
    with server.client() as anyone:
        opened = anyone.post("/v1/rooms", json={"subject_schema": SCHEMA, "subject": terms(10000)})
        assert opened.status_code == 201, opened.text
        o = opened.json()
        joined = anyone.post("/v1/rooms/join", json={"invite_token": o["invite"]["token"]})
        assert joined.status_code == 200, joined.text
        j = joined.json()
    room_id = o["room"]["room_id"]
    with server.client(j["seat_token"]) as joiner, server.client(o["owner_token"]) as opener:
        countered = joiner.post(
            f"/v1/rooms/{room_id}/moves", json={"type": "counter", "terms": terms(9000)}
        )
        assert countered.status_code == 200, countered.text
        subject_hash = countered.json()["room"]["table"]["subject_hash"]
        approved = opener.post(
            f"/v1/rooms/{room_id}/moves", json={"type": "approve", "subject_hash": subject_hash}
        )
        assert approved.status_code == 200
        assert approved.json()["room"]["state"] == "awaiting"
    with server.client(j["owner_token"]) as joiner_owner:
        agreed = joiner_owner.post(
            f"/v1/rooms/{room_id}/moves", json={"type": "approve", "subject_hash": subject_hash}
        )
        assert agreed.json()["room"]["state"] == "agreed"
        log = joiner_owner.get(f"/v1/rooms/{room_id}/log").json()["envelopes"]
    assert [e["type"] for e in log][-3:] == ["move.approve", "move.approve", "room.agreed"]

"""Webhooks through a real server and a real receiver on 127.0.0.1 (docs/webhooks.md): every
event of the registering credential's audience arrives, at least once and exactly once per
`webhook-id` that succeeded, despite failed first attempts; every signature verifies (`v1` with
the `standardwebhooks` library, `v1a` against the served public keys); an agent-level endpoint
never sees what only the owner may; a rotation's old and new secrets sign side by side, and so,
for a day, do the old and new webhook keys of `v1a`; `410` disables the endpoint."""

import json
from collections import Counter
from typing import Any

import httpx
from sqlalchemy import func, select
from standardwebhooks import Webhook

from accord.app.events import Level, SeatAudience, events
from accord.sdk import AccordError, verify_webhook
from accord.store.database import Database
from accord.store.tables import events as event_table
from accord.trust.keys import keyring_path, rotate
from tests.conftest import FakeClock, LiveServer
from tests.http.support import Room, auth, open_room, terms
from tests.webhooks.conftest import Received, Receiver, eventually, library_clock


def _register(client: httpx.Client, token: str, url: str, **body: Any) -> dict[str, Any]:
    made = client.post("/v1/webhooks", json={"url": url, **body}, headers=auth(token))
    assert made.status_code == 201, made.text
    answer: dict[str, Any] = made.json()
    return answer


def _audience_ids(server: LiveServer, audience: SeatAudience, after: int) -> list[str]:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        rows = db.read(lambda conn: events(conn, audience, after=after))
    finally:
        db.close()
    return [f"evt_{row.id}" for row in rows]


def _last_event(server: LiveServer) -> int:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        last = db.read(lambda c: c.execute(select(func.max(event_table.c.id))).scalar_one())
    finally:
        db.close()
    return int(last or 0)


def _join_and_play(client: httpx.Client, room: Room) -> Room:
    joined = client.post("/v1/rooms/join", json={"invite_token": room.invite})
    assert joined.status_code == 200, joined.text
    room = Room(**{**room.__dict__, "joiner_seat": joined.json()["seat_token"]})
    countered = client.post(
        room.moves,
        json={"type": "counter", "terms": terms(9000)},
        headers=auth(room.joiner_seat),
    )
    assert countered.status_code == 200, countered.text
    subject_hash = countered.json()["room"]["table"]["subject_hash"]
    asked = client.post(
        room.moves,
        json={"type": "approve", "subject_hash": subject_hash},
        headers=auth(room.opener_seat),
    )
    assert asked.status_code == 202, asked.text  # the opener's owner is asked to confirm
    return room


def test_every_event_arrives_signed_once_per_id_through_failures(
    hooked: LiveServer, now_clock: FakeClock, receiver: Receiver
) -> None:
    # Each event's first two attempts fail; the third succeeds.
    receiver.plan = lambda _id, n: 500 if n <= 2 else 204
    with hooked.client() as client:
        room = open_room(client, join=False)
        after = _last_event(hooked)
        agent = _register(client, room.opener_seat, receiver.url + "/agent")
        owner = _register(client, room.opener_owner, receiver.url + "/owner", signature="v1a")
        assert agent["secret"].startswith("whsec_") and "secret" not in owner
        assert agent["scope"] == {
            "kind": "seat",
            "negotiation_id": room.room_id,
            "party": "opener",
            "level": "agent",
        }
        _join_and_play(client, room)
        keys = client.get("/.well-known/webhook-keys.json").json()

    as_agent = _audience_ids(hooked, SeatAudience(room.room_id, "opener", Level.AGENT), after)
    as_owner = _audience_ids(hooked, SeatAudience(room.room_id, "opener", Level.OWNER), after)
    assert set(as_agent) < set(as_owner)  # the owner also hears of the confirmation it owes

    def tried(times: int) -> bool:
        return len(receiver.at("/agent")) == times * len(as_agent) and len(
            receiver.at("/owner")
        ) == times * len(as_owner)

    eventually(lambda: tried(1))  # the first attempts, failed
    now_clock.advance(seconds=6)
    eventually(lambda: tried(2))
    now_clock.advance(seconds=331)
    eventually(lambda: tried(3))

    for path, expected in (("/agent", as_agent), ("/owner", as_owner)):
        delivered = Counter(r.headers["webhook-id"] for r in receiver.succeeded(path))
        assert sorted(delivered) == sorted(expected)
        assert set(delivered.values()) == {1}
        tries = Counter(r.headers["webhook-id"] for r in receiver.at(path))
        assert set(tries.values()) == {3}

    for received in receiver.at("/agent"):
        with library_clock(received):
            event = Webhook(agent["secret"]).verify(received.body, received.headers)
            assert event["id"] == received.headers["webhook-id"]
            assert received.headers["webhook-signature"].startswith("v1,")
    for received in receiver.at("/owner"):
        at = int(received.headers["webhook-timestamp"])
        event = verify_webhook(
            received.body, received.headers, public_keys=[k["key"] for k in keys["keys"]], now=at
        )
        assert event.data["negotiation_id"] == room.room_id and event.data["protocol"] == "rooms"
    types = {json.loads(r.body)["type"] for r in receiver.succeeded("/owner")}
    assert {"envelope.room.joined", "envelope.move.counter"} <= types
    agent_types = {json.loads(r.body)["type"] for r in receiver.succeeded("/agent")}
    assert types - agent_types == {"notification.confirmation_needed"}

    # The delivery log tells the same story, attempt by attempt.
    with hooked.client(room.opener_seat) as client:
        log = client.get(f"/v1/webhooks/{agent['webhook_id']}/deliveries").json()["deliveries"]
    assert [d["event_id"] for d in log] == as_agent
    for delivery in log:
        assert delivery["status"] == "succeeded"
        assert [a["status_code"] for a in delivery["attempts"]] == [500, 500, 204]
        assert delivery["attempts"][0]["next_attempt_at"] is not None
        assert delivery["attempts"][-1]["next_attempt_at"] is None


def test_old_and_new_secrets_both_sign_during_a_rotation(
    hooked: LiveServer, now_clock: FakeClock, receiver: Receiver
) -> None:
    with hooked.client() as client:
        room = open_room(client, join=False)
        made = _register(client, room.opener_seat, receiver.url + "/r")
        rotated = client.post(
            f"/v1/webhooks/{made['webhook_id']}/rotate",
            json={"overlap_seconds": 3600},
            headers=auth(room.opener_seat),
        )
        assert rotated.status_code == 200, rotated.text
        new_secret = rotated.json()["secret"]
        assert new_secret != made["secret"]
        shown = client.get(f"/v1/webhooks/{made['webhook_id']}", headers=auth(room.opener_seat))
        assert "secret" not in shown.json()  # shown once, when made
        tested = client.post(
            f"/v1/webhooks/{made['webhook_id']}/test", headers=auth(room.opener_seat)
        )
        assert tested.status_code == 202, tested.text
        eventually(lambda: len(receiver.succeeded("/r")) == 1)
        first = receiver.succeeded("/r")[0]
        assert len(first.headers["webhook-signature"].split(" ")) == 2
        assert json.loads(first.body)["type"] == "webhook.test"
        with library_clock(first):
            for secret in (made["secret"], new_secret):
                Webhook(secret).verify(first.body, first.headers)

        now_clock.advance(hours=2)
        client.post(f"/v1/webhooks/{made['webhook_id']}/test", headers=auth(room.opener_seat))
        eventually(lambda: len(receiver.succeeded("/r")) == 2)
        second = receiver.succeeded("/r")[1]
        with library_clock(second):
            Webhook(new_secret).verify(second.body, second.headers)
            try:
                Webhook(made["secret"]).verify(second.body, second.headers)
            except Exception as refused:
                assert "signature" in str(refused)
            else:
                raise AssertionError("the old secret still signs after the overlap")


def test_gone_disables_the_endpoint_and_nothing_more_is_sent(
    hooked: LiveServer, receiver: Receiver
) -> None:
    receiver.plan = lambda _id, _n: 410
    with hooked.client() as client:
        room = open_room(client, join=False)
        made = _register(client, room.opener_owner, receiver.url + "/gone")
        client.post("/v1/rooms/join", json={"invite_token": room.invite})
        with hooked.client(room.opener_owner) as owner:

            def disabled() -> bool:
                found = owner.get(f"/v1/webhooks/{made['webhook_id']}").json()
                return bool(found["status"] == "disabled")

            eventually(disabled)
            endpoint = owner.get(f"/v1/webhooks/{made['webhook_id']}").json()
            assert endpoint["disabled_reason"] == "gone"
            sent = len(receiver.at("/gone"))
            owner.post(room.moves, json={"type": "counter", "terms": terms(9500)})
            owner.post(f"/v1/webhooks/{made['webhook_id']}/test")
    assert len(receiver.at("/gone")) == sent  # nothing reaches a disabled endpoint


def test_old_and_new_webhook_keys_both_sign_v1a_for_a_day_after_a_rotation(
    hooked: LiveServer, now_clock: FakeClock, receiver: Receiver
) -> None:
    settings = hooked.settings
    with hooked.client() as client:
        room = open_room(client, join=False)
        made = _register(client, room.opener_owner, receiver.url + "/k", signature="v1a")
        (old,) = client.get("/.well-known/webhook-keys.json").json()["keys"]
        # `accord keys rotate --webhook` on the running server's keyring: no restart.
        rotate(
            keyring_path(settings.key_file, settings.data_dir),
            "live",
            now=now_clock(),
            use="webhook",
        )
        served = client.get("/.well-known/webhook-keys.json").json()["keys"]
        assert [k["status"] for k in served] == ["retired", "active"]
        assert served[0]["key"] == old["key"]
        new = served[1]["key"]

        def sent(n: int) -> Received:
            tested = client.post(
                f"/v1/webhooks/{made['webhook_id']}/test", headers=auth(room.opener_owner)
            )
            assert tested.status_code == 202, tested.text
            eventually(lambda: len(receiver.succeeded("/k")) == n)
            return receiver.succeeded("/k")[n - 1]

        def signed_by(received: Received) -> list[str]:
            at = int(received.headers["webhook-timestamp"])
            by = []
            for key in (old["key"], new):
                try:
                    verify_webhook(received.body, received.headers, public_keys=[key], now=at)
                except AccordError:
                    continue
                by.append(key)
            return by

        during = sent(1)
        assert [s.split(",")[0] for s in during.headers["webhook-signature"].split(" ")] == [
            "v1a",
            "v1a",
        ]
        assert signed_by(during) == [old["key"], new]
        now_clock.advance(hours=25)
        assert signed_by(sent(2)) == [new]  # the day is over: the retired key signs no more

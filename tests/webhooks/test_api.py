"""Webhook endpoints over HTTP (docs/webhooks.md, Endpoints): what a registration refuses, who
sees which endpoint, changes, and the scopes of principals' and merchants' keys. A scope is the
credential's audience, level included: a seat's agent and its owner keep apart endpoints."""

import base64
import json
from typing import Any, Final

import pytest

from accord.app.merchants import Merchants
from accord.app.principals import Principals
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import assert_error, auth, open_room
from tests.sessions.conftest import POLICY
from tests.webhooks.conftest import Receiver, eventually

HOOK: Final = "https://hooks.example.com/accord"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "http://hooks.example.com/"}, "url"),
        ({"url": "https://127.0.0.1/hook"}, "url"),
        ({"url": "https://[::1]/hook"}, "url"),
        ({"url": "https://localhost/hook"}, "url"),
        ({"url": "https://me:pw@hooks.example.com/"}, "url"),
        ({"url": "https://hooks.invalid/"}, "url"),  # resolves to nothing
        ({"url": "https://x.example/" + "a" * 2048}, "url"),
        ({"url": HOOK, "event_types": ["Envelope.*"]}, "event_types.0"),
        ({"url": HOOK, "event_types": []}, "event_types"),
        ({"url": HOOK, "signature": "v2"}, "signature"),
        ({"url": HOOK, "colour": "blue"}, "colour"),
    ],
)
def test_a_registration_is_refused_field_by_field(
    server: LiveServer, body: dict[str, Any], field: str
) -> None:
    with server.client() as client:
        room = open_room(client, join=False)
        refused = client.post("/v1/webhooks", json=body, headers=auth(room.opener_seat))
    error = assert_error(refused, "invalid_request")
    assert refused.status_code == 400
    assert field in error["fields"], error


def test_endpoints_belong_to_one_scope_and_level(hooked: LiveServer, receiver: Receiver) -> None:
    with hooked.client() as client:
        room = open_room(client)
        made = client.post(
            "/v1/webhooks",
            json={"url": receiver.url, "event_types": ["envelope.*"], "description": "ops"},
            headers=auth(room.opener_seat),
        )
        assert made.status_code == 201, made.text
        webhook_id = made.json()["webhook_id"]
        path = f"/v1/webhooks/{webhook_id}"
        for other in (room.opener_owner, room.joiner_seat, room.joiner_owner):
            for method, url in (
                ("GET", path),
                ("PATCH", path),
                ("POST", path + "/rotate"),
                ("POST", path + "/test"),
                ("GET", path + "/deliveries"),
                ("POST", path + "/deliveries/evt_1/retry"),
            ):
                body: dict[str, Any] | None = {} if method != "GET" else None
                answer = client.request(method, url, json=body, headers=auth(other))
                assert_error(answer, "webhook_not_found")
            listed = client.get("/v1/webhooks", headers=auth(other)).json()
            assert listed == {"webhooks": []}
        mine = client.get("/v1/webhooks", headers=auth(room.opener_seat)).json()["webhooks"]
        assert [(w["webhook_id"], w["event_types"], w["description"]) for w in mine] == [
            (webhook_id, ["envelope.*"], "ops")
        ]
        assert "secret" not in mine[0]


def test_an_endpoint_is_changed_disabled_and_enabled_again(
    hooked: LiveServer, receiver: Receiver
) -> None:
    with hooked.client() as client:
        room = open_room(client)
        owner = auth(room.opener_owner)
        made = client.post("/v1/webhooks", json={"url": receiver.url}, headers=owner).json()
        path = f"/v1/webhooks/{made['webhook_id']}"
        changed = client.patch(
            path,
            json={"url": receiver.url + "/v2", "event_types": ["notification.*"]},
            headers=owner,
        )
        assert changed.status_code == 200, changed.text
        assert (changed.json()["url"], changed.json()["event_types"]) == (
            receiver.url + "/v2",
            ["notification.*"],
        )
        off = client.patch(path, json={"status": "disabled"}, headers=owner).json()
        assert (off["status"], off["disabled_reason"]) == ("disabled", "by_request")
        on = client.patch(path, json={"status": "enabled"}, headers=owner).json()
        assert (on["status"], on["disabled_reason"]) == ("enabled", None)
        assert_error(
            client.patch(path, json={"status": "paused"}, headers=owner), "invalid_request"
        )
        assert_error(
            client.post(path + "/rotate", json={"overlap_seconds": 8 * 86_400}, headers=owner),
            "invalid_request",
        )
        assert_error(
            client.get(path + "/deliveries", params={"status": "lost"}, headers=owner),
            "invalid_request",
        )
        assert_error(
            client.post(path + "/deliveries/evt_404/retry", headers=owner), "webhook_not_found"
        )


def test_a_v1a_endpoint_has_no_secret_to_rotate(hooked: LiveServer, receiver: Receiver) -> None:
    with hooked.client() as client:
        room = open_room(client)
        made = client.post(
            "/v1/webhooks",
            json={"url": receiver.url, "signature": "v1a"},
            headers=auth(room.opener_seat),
        ).json()
        assert made["signature"] == "v1a" and "secret" not in made
        refused = client.post(
            f"/v1/webhooks/{made['webhook_id']}/rotate", json={}, headers=auth(room.opener_seat)
        )
        assert assert_error(refused, "invalid_request")["fields"] == {
            "signature": "v1a has no secret"
        }


def test_a_scope_holds_sixteen_endpoints(hooked: LiveServer, receiver: Receiver) -> None:
    with hooked.client() as client:
        room = open_room(client)
        for n in range(16):
            made = client.post(
                "/v1/webhooks", json={"url": f"{receiver.url}/{n}"}, headers=auth(room.opener_seat)
            )
            assert made.status_code == 201, made.text
        refused = client.post(
            "/v1/webhooks", json={"url": receiver.url}, headers=auth(room.opener_seat)
        )
        assert_error(refused, "invalid_request")
        other = client.post(
            "/v1/webhooks", json={"url": receiver.url}, headers=auth(room.opener_owner)
        )
        assert other.status_code == 201  # the owner's scope is its own


def test_a_secret_key_hears_its_modes_sessions_and_a_principal_key_its_own(
    hooked: LiveServer, receiver: Receiver
) -> None:
    db = Database(hooked.settings.database, apply_migrations=False)
    try:
        keys = Merchants(db, hooked.settings, clock=hooked.clock).create_tenant("hook-shop")["keys"]
        principal = Principals(db, clock=hooked.clock).create("hooked-principal")
    finally:
        db.close()
    with hooked.client() as client:
        shop = client.post(
            "/v1/webhooks",
            json={"url": receiver.url + "/shop", "event_types": ["envelope.session.*"]},
            headers=auth(keys["secret_test"]),
        ).json()
        assert shop["scope"]["kind"] == "scope" and shop["scope"]["scope"].endswith(":test")
        person = client.post(
            "/v1/webhooks",
            json={"url": receiver.url + "/person"},
            headers={"x-api-key": principal["owner_key"]},
        ).json()
        assert person["scope"]["kind"] == "principal" and person["scope"]["level"] == "owner"
        stored = client.put(
            f"/v1/policies/{POLICY['sku']}", json=POLICY, headers=auth(keys["secret_test"])
        )
        assert stored.status_code == 200, stored.text
        live = client.post(
            "/v1/webhooks", json={"url": receiver.url + "/live"}, headers=auth(keys["secret_live"])
        )
        assert live.status_code == 201
        opened = client.post(
            "/v1/sessions",
            json={"sku": POLICY["sku"], "buyer": {"agent_id": "hook-buyer"}},
            headers=auth(keys["publishable_test"]),
        )
        assert opened.status_code == 201, opened.text
        session_id = opened.json()["session_id"]
        client.post(
            f"/v1/webhooks/{person['webhook_id']}/test",
            headers={"x-api-key": principal["owner_key"]},
        )
    eventually(lambda: len(receiver.succeeded("/shop")) >= 1)
    eventually(lambda: len(receiver.succeeded("/person")) == 1)
    for received in receiver.succeeded("/shop"):
        event = json.loads(received.body)
        assert event["type"].startswith("envelope.session.")
        assert event["data"]["protocol"] == "arbitrated"
        assert event["data"]["negotiation_id"] == session_id
    assert json.loads(receiver.succeeded("/person")[0].body)["type"] == "webhook.test"
    assert receiver.at("/live") == []  # a test-mode session is not the live key's


def test_the_public_keys_are_served_and_are_not_receipt_keys(server: LiveServer) -> None:
    with server.client() as client:
        keys = client.get("/.well-known/webhook-keys.json").json()["keys"]
        jwks = client.get("/.well-known/jwks.json").json()["keys"]
    assert [k["status"] for k in keys] == ["active"]
    assert keys[0]["key"].startswith("whpk_")
    raw = base64.b64decode(keys[0]["key"].removeprefix("whpk_"))
    assert all(base64.urlsafe_b64decode(j["x"] + "=") != raw for j in jwks)

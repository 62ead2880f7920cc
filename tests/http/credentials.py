"""One credential of every kind Accord issues, made on a live server: a joined room's seat
and owner tokens, a draft room's unused invite, a session token, a merchant's keys, and a
principal's keys with an intent of its own and an opportunity it opened with a peer."""

from dataclasses import dataclass
from typing import Any

import httpx

from accord.app.merchants import Merchants
from accord.app.principals import Principals
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import Room, auth, open_room
from tests.sessions.conftest import POLICY


@dataclass(frozen=True)
class Credentials:
    room: Room
    draft: Room
    session_id: str
    session_token: str
    merchant: dict[str, str]
    principal_owner: str
    principal_agent: str
    intent_id: str
    opportunity_id: str
    case_id: str

    @property
    def sku(self) -> str:
        return str(POLICY["sku"])


def make_credentials(server: LiveServer, client: httpx.Client, name: str) -> Credentials:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        tenant = Merchants(db, server.settings, clock=server.clock).create_tenant(name)
        principal = Principals(db, clock=server.clock).create(name)
        peer = Principals(db, clock=server.clock).create(f"{name}-peer")
    finally:
        db.close()
    keys: dict[str, str] = tenant["keys"]
    stored = client.put(
        f"/v1/policies/{POLICY['sku']}", json=POLICY, headers=auth(keys["secret_test"])
    )
    assert stored.status_code == 200, stored.text
    opened = client.post("/v1/sessions", json=open_body(), headers=auth(keys["publishable_test"]))
    assert opened.status_code == 201, opened.text
    session: dict[str, Any] = opened.json()
    intent_id, peer_intent_id = (
        post_intent(client, who["owner_key"], f"An intent of {name}'s") for who in (principal, peer)
    )
    opened = client.post(
        f"/api/intents/{intent_id}/opportunities",
        json={"candidates": [peer_intent_id]},  # the same statement: mutual
        headers=auth(principal["owner_key"]),
    )
    assert opened.status_code == 200, opened.text
    case = client.post(
        "/v1/adviser/cases", json={"title": f"{name}'s case"}, headers=auth(principal["owner_key"])
    )
    assert case.status_code == 201, case.text
    return Credentials(
        room=open_room(client),
        draft=open_room(client, join=False),
        session_id=session["session_id"],
        session_token=session["session_token"],
        merchant=keys,
        principal_owner=principal["owner_key"],
        principal_agent=principal["agent_key"],
        intent_id=intent_id,
        opportunity_id=opened.json()["opportunities"][0]["opportunity_id"],
        case_id=case.json()["case_id"],
    )


def post_intent(client: httpx.Client, owner_key: str, statement: str) -> str:
    body = {"statement": statement, "visibility": "public"}
    made = client.post("/api/intents", json=body, headers=auth(owner_key))
    assert made.status_code == 201, made.text
    intent_id: str = made.json()["intent"]["intent_id"]
    return intent_id


def open_body() -> dict[str, Any]:
    return {"sku": POLICY["sku"], "buyer": {"agent_id": "buyer-agent"}}

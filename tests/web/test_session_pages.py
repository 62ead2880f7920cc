"""A buyer's session for the buyer's person: the `person_link` a buyer agent got at open opens
it in a browser, with every verdict in words; the person accepts the merchant's standing offer
and is shown the checkout, once."""

import re

import httpx

from accord.app.merchants import Merchants
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import auth
from tests.sessions.conftest import POLICY


def test_the_person_accepts_on_the_page_and_sees_the_checkout(server: LiveServer) -> None:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        keys = Merchants(db, server.settings, clock=server.clock).create_tenant("web-shop")["keys"]
    finally:
        db.close()
    with server.client() as api:
        stored = api.put(
            f"/v1/policies/{POLICY['sku']}", json=POLICY, headers=auth(keys["secret_test"])
        )
        assert stored.status_code == 200, stored.text
        opened = api.post(
            "/v1/sessions",
            json={"sku": POLICY["sku"], "buyer": {"agent_id": "web-buyer"}},
            headers=auth(keys["publishable_test"]),
        ).json()
        session_id, token = opened["session_id"], opened["session_token"]
        fair = api.post(
            f"/v1/sessions/{session_id}/messages",
            json={"type": "offer", "price_minor": 39_905, "message_id": "fair"},
            headers=auth(token),
        )
        assert fair.status_code == 200, fair.text
        link = api.post("/v1/links", json={}, headers=auth(token)).json()
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as person:
        assert person.get(f"/sessions/{session_id}").status_code == 401
        claimed = person.post("/claim", data={"code": link["code"]})
        assert (
            claimed.status_code == 303 and claimed.headers["location"] == f"/sessions/{session_id}"
        )
        page = person.get(f"/sessions/{session_id}").text
        assert "A test session" in page and "Round 1 of 5" in page
        assert "<td>1</td><td>your agent</td><td>399.05 USD</td>" in page
        assert "<td>fair</td>" in page
        standing = re.search(
            r"On the table, from the merchant: <strong>([0-9.,]+ USD)</strong>", page
        )
        assert standing is not None  # the merchant's answer
        accepted = person.post(
            f"/sessions/{session_id}/moves", data={"type": "accept", "message_id": "person-1"}
        )
        assert accepted.status_code == 303
        page = person.get(f"/sessions/{session_id}").text
        assert "Agreed." in page and "Show the checkout" in page
        shown = person.post(f"/sessions/{session_id}/handoff/claim")
        assert shown.status_code == 200
        assert "https://shop.example/checkout" in shown.text and 'class="secret"' in shown.text
        walked = person.post(f"/sessions/{session_id}/moves", data={"type": "reject"})
        assert walked.status_code == 409 and "session_ended" in walked.text

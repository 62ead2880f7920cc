"""A merchant's pages: sign in with the secret key, its mode's sessions with every verdict in
words, reveal the committed floor after the end; what signing in refuses."""

import httpx

from accord.app.merchants import Merchants
from accord.app.principals import Principals
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import auth
from tests.sessions.conftest import POLICY


def test_a_merchant_signs_in_and_reads_its_sessions(server: LiveServer) -> None:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        keys = Merchants(db, server.settings, clock=server.clock).create_tenant("pages-shop")[
            "keys"
        ]
        principal = Principals(db, clock=server.clock).create("pages-principal")
    finally:
        db.close()
    with server.client() as api:
        api.put(f"/v1/policies/{POLICY['sku']}", json=POLICY, headers=auth(keys["secret_test"]))
        opened = api.post(
            "/v1/sessions",
            json={"sku": POLICY["sku"], "buyer": {"agent_id": "pages-buyer"}},
            headers=auth(keys["publishable_test"]),
        ).json()
        session_id, token = opened["session_id"], opened["session_token"]
        api.post(
            f"/v1/sessions/{session_id}/messages",
            json={"type": "offer", "price_minor": 39_905},
            headers=auth(token),
        )
        accepted = api.post(
            f"/v1/sessions/{session_id}/messages", json={"type": "accept"}, headers=auth(token)
        )
        assert accepted.json()["state"] == "agreed", accepted.text
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as shop:
        assert shop.get("/merchant").status_code == 401
        for wrong in (keys["publishable_test"], principal["agent_key"], "acc_sk_unknown"):
            refused = shop.post("/login", data={"secret": wrong})
            assert refused.status_code in (401, 403), (wrong[:7], refused.status_code)
        signed = shop.post("/login", data={"secret": keys["secret_test"]})
        assert signed.status_code == 303 and signed.headers["location"] == "/merchant?mode=test"
        listed = shop.get("/merchant").text
        assert "test mode" in listed and f'href="/merchant/sessions/{session_id}"' in listed
        page = shop.get(f"/merchant/sessions/{session_id}").text
        assert "Agreed." in page and "<td>the buyer&#39;s agent</td>" in page
        # an automatic policy publishes at the agreement: the page says so, with no form
        assert "The hand-off is published" in page and 'id="handoff-form"' not in page
        revealed = shop.post(f"/merchant/sessions/{session_id}/reveal")
        assert revealed.status_code == 200 and "Revealed:" in revealed.text
        assert "38000" in revealed.text  # the floor the server committed to, now opened
        again = shop.post(
            f"/merchant/sessions/{session_id}/handoff",
            data={"kind": "discount_code", "value": "X", "checkout_url": "https://s.example",
                  "expires_at": "2026-12-31T00:00:00Z"},
        )  # fmt: skip
        assert again.status_code == 409 and "handoff_published" in again.text
        assert shop.get("/merchant/sessions/ses_unknown").status_code == 404
        out = shop.post("/logout")
        assert out.status_code == 303
    with httpx.Client(base_url=server.url, timeout=30) as cross:
        forged = cross.post(
            "/login", data={"secret": keys["secret_test"]}, headers={"Origin": "https://x.example"}
        )
        assert forged.status_code == 403 and "set-cookie" not in forged.headers

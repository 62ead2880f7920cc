"""Pages that follow what they show (`GET {page}/events`): a session (the buyer's person's page
and the merchant's), an introduction and an adviser case each stream `event: changed` for the
viewer's own events that concern the page, are refused without their cookie, and say in the
page which region follows."""

from collections.abc import Callable

import httpx

from accord.app.merchants import Merchants
from accord.store.database import Database
from tests.adviser.test_cases_http import add, open_case, send
from tests.conftest import LiveServer
from tests.http.support import auth
from tests.intro.test_turns_http import opened, took
from tests.sessions.conftest import POLICY
from tests.web.test_principal_pages import _principal


def _hears_a_change(person: httpx.Client, url: str, act: Callable[[], None]) -> None:
    with person.stream("GET", url, timeout=10) as stream:
        assert stream.status_code == 200
        assert stream.headers["cache-control"] == "no-store"
        act()
        for line in stream.iter_lines():
            if line.startswith("event:"):
                assert line == "event: changed"
                return
    raise AssertionError("the stream ended without a change")


def test_a_session_page_follows_the_session(server: LiveServer) -> None:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        merchants = Merchants(db, server.settings, clock=server.clock)
        keys = merchants.create_tenant("live-shop")["keys"]
        stranger = merchants.create_tenant("other-shop")["keys"]
    finally:
        db.close()
    with server.client() as api:
        api.put(f"/v1/policies/{POLICY['sku']}", json=POLICY, headers=auth(keys["secret_test"]))
        made = api.post(
            "/v1/sessions",
            json={"sku": POLICY["sku"], "buyer": {"agent_id": "live-buyer"}},
            headers=auth(keys["publishable_test"]),
        ).json()
        session_id, token = made["session_id"], made["session_token"]
        link = api.post("/v1/links", json={}, headers=auth(token)).json()

    def offer(price_minor: int) -> None:
        with server.client() as api:
            sent = api.post(
                f"/v1/sessions/{session_id}/messages",
                json={"type": "offer", "price_minor": price_minor, "message_id": f"o{price_minor}"},
                headers=auth(token),
            )
            assert sent.status_code == 200, sent.text

    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as person:
        assert person.get(f"/sessions/{session_id}/events").status_code == 401
        person.post("/claim", data={"code": link["code"]})
        page = person.get(f"/sessions/{session_id}").text
        assert f'sse-connect="/sessions/{session_id}/events"' in page
        assert 'hx-select="#live"' in page and 'aria-live="polite"' in page

        _hears_a_change(person, f"/sessions/{session_id}/events", lambda: offer(39_905))

    merchant_page = f"/merchant/sessions/{session_id}"
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as shop:
        assert shop.get(f"{merchant_page}/events").status_code == 401
        shop.post("/login", data={"secret": stranger["secret_test"]})
        assert shop.get(f"{merchant_page}/events").status_code == 404  # another tenant's
        shop.cookies.clear()
        shop.post("/login", data={"secret": keys["secret_test"]})
        page = shop.get(merchant_page).text
        assert f'sse-connect="{merchant_page}/events"' in page and 'hx-select="#live"' in page

        _hears_a_change(shop, f"{merchant_page}/events", lambda: offer(40_500))


def test_an_introduction_and_a_case_follow_what_they_show(server: LiveServer) -> None:
    ada, bob = _principal(server, "ada-live"), _principal(server, "bob-live")
    with server.client() as api:
        opportunity_id = opened(api, ada, bob)
        case_id = open_case(api, ada)["case_id"]
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as person:
        assert person.get(f"/opportunities/{opportunity_id}/events").status_code == 401
        person.post("/login", data={"secret": ada.owner_key})
        page = person.get(f"/opportunities/{opportunity_id}").text
        assert f'sse-connect="/opportunities/{opportunity_id}/events"' in page

        def turn() -> None:
            with server.client() as api:
                took(
                    api, ada.agent_key, opportunity_id,
                    action="propose", message="Saturdays?", expected_turn_count=0,
                )  # fmt: skip

        _hears_a_change(person, f"/opportunities/{opportunity_id}/events", turn)

        page = person.get(f"/adviser/cases/{case_id}").text
        assert f'sse-connect="/adviser/cases/{case_id}/events"' in page
        assert 'hx-select="#live-brief"' in page

        def patch() -> None:
            with server.client() as api:
                patched = send(
                    api, ada, case_id, 1,
                    add("b", "/alternatives/user/batna/value", "USD 125,000.00"),
                )  # fmt: skip
                assert patched.status_code == 200, patched.text

        _hears_a_change(person, f"/adviser/cases/{case_id}/events", patch)
        assert person.get("/adviser/cases/case_unknown/events").status_code == 404
    with httpx.Client(base_url=server.url, timeout=30) as other:
        other.post("/login", data={"secret": bob.owner_key}, headers={"Origin": server.url})
        assert other.get(f"/adviser/cases/{case_id}/events").status_code == 404  # not his

"""The person's pages through a real server (interfaces.md, Web pages): an agent working over
MCP asks, and its person, who claimed the owner link in a browser, confirms on the room's page;
the page's own moves (counter from fields, approve, ask, the second page before an ending) with
refusals kept beside their fields; and what keeps the page the person's: the cookie, the Origin
check, the headers, text from the other side shown as text."""

import re
from typing import Any

import httpx
import pytest
from mcp import Client

from tests.conftest import LiveServer
from tests.http.support import auth

SCHEMA: dict[str, Any] = {
    "price": {"type": "money", "currency": "EUR", "label": "Price"},
    "day": {"type": "date", "label": "Pickup day"},
}


def _terms(amount: int) -> dict[str, Any]:
    return {"price": {"amount_minor": amount, "currency": "EUR"}, "day": "2026-12-12"}


def browser(server: LiveServer) -> httpx.Client:
    """A browser on the server's own pages: its forms send the page's Origin."""
    return httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30)


def claim(page: httpx.Client, owner_link: dict[str, Any]) -> str:
    code = owner_link["url"].rsplit("#", 1)[1]
    claimed = page.post("/claim", data={"code": code})
    assert claimed.status_code == 303, claimed.text
    location: str = claimed.headers["location"]
    return location


def confirmation_id(html: str) -> str:
    found = re.search(r'action="/rooms/[^/]+/confirmations/([^"]+)"', html)
    assert found is not None, html
    return found.group(1)


def hidden(html: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert found is not None, name
    return found.group(1)


@pytest.mark.anyio
async def test_an_agent_asks_over_mcp_and_its_person_confirms_on_the_page(
    server: LiveServer,
) -> None:
    async with Client(f"{server.url}/mcp") as agent:
        opened = (
            await agent.call_tool(
                "room_open",
                {"subject_schema": SCHEMA, "subject": _terms(45_000),
                 "limits": {"price": {"min": _terms(44_000)["price"]}}},
            )
        ).structured_content  # fmt: skip
        assert opened is not None
        joined = await agent.call_tool("room_join", {"invite": opened["invite"]["url"]})
        bob = joined.structured_content
        assert bob is not None
        countered = await agent.call_tool(
            "room_propose",
            {"seat_token": bob["seat_token"], "type": "counter", "terms": _terms(42_000),
             "message": "<b>420</b>, I collect"},
        )  # fmt: skip
        subject_hash = countered.structured_content["room"]["table"]["subject_hash"]
        asked = await agent.call_tool(
            "room_respond",
            {
                "seat_token": opened["seat_token"],
                "decision": "approve",
                "subject_hash": subject_hash,
            },
        )
        owner_url = asked.structured_content["owner_url"]

        with browser(server) as alice:
            assert alice.get(owner_url).status_code == 401  # not claimed yet
            location = claim(alice, opened["owner_link"])
            assert f"{server.url}{location}" == owner_url
            page = alice.get(location)
            assert page.status_code == 200
            assert "Your agent asks you to confirm" in page.text
            assert "Outside your limits" in page.text  # 420 is below her floor; no number shown
            assert "&lt;b&gt;420&lt;/b&gt;" in page.text and "<b>420</b>" not in page.text
            assert (
                "<strong>They, by their agent</strong> countered: "
                "Price 420.00 EUR <em>(changed)</em>, Pickup day 2026-12-12." in page.text
            )
            assert "<strong>You</strong> offered: Price 450.00 EUR," in page.text
            decided = alice.post(
                f"{location}/confirmations/{confirmation_id(page.text)}",
                data={"decision": "confirm"},
            )
            assert decided.status_code == 303
            after = alice.get(location).text
            assert "<strong>You, by your agent, confirmed by you</strong> approved." in after
        read = await agent.call_tool("room_read", {"seat_token": opened["seat_token"]})
        approvals = read.structured_content["approvals"]
        assert approvals == [{"seat": "opener", "subject_hash": subject_hash}]


def _room(server: LiveServer) -> tuple[str, dict[str, Any], dict[str, Any]]:
    with server.client() as api:
        opened = api.post(
            "/v1/rooms",
            json={"subject_schema": SCHEMA, "subject": _terms(45_000), "owner_delivery": "link"},
        ).json()
        joined = api.post(
            "/v1/rooms/join",
            json={"invite_token": opened["invite"]["token"], "owner_delivery": "link"},
        ).json()
    return opened["room"]["room_id"], opened, joined


def test_the_person_moves_from_the_page(server: LiveServer) -> None:
    room_id, _, joined = _room(server)
    with browser(server) as bob:
        location = claim(bob, joined["owner_link"])
        page = bob.get(location).text
        assert "Your turn." in page
        form = {
            "type": "counter",
            "expected_seq": hidden(page, "expected_seq"),
            "message_id": hidden(page, "message_id"),
            "price": "420.50",
            "day": "2026-12-13",
            "message": "Saturday instead?",
        }
        first = bob.post(f"{location}/moves", data=form)
        assert first.status_code == 303
        again = bob.post(f"{location}/moves", data=form)  # a double submit is one move
        assert again.status_code == 303
        with server.client() as api:
            log = api.get(f"/v1/rooms/{room_id}/log", headers=auth(joined["seat_token"])).json()[
                "envelopes"
            ]
        counters = [e for e in log if e["type"] == "move.counter"]
        assert [c["payload"]["terms"]["price"]["amount_minor"] for c in counters] == [42_050]
        page = bob.get(location).text
        assert "Waiting for them." in page and "Saturday instead?" in page
        assert (
            "<strong>You, yourself</strong> countered: Price 420.50 EUR <em>(changed)</em>, "
            "Pickup day 2026-12-13 <em>(changed)</em>." in page
        )


def test_a_refused_form_comes_back_with_its_entries_and_errors(server: LiveServer) -> None:
    _, _, joined = _room(server)
    with browser(server) as bob:
        location = claim(bob, joined["owner_link"])
        page = bob.get(location).text
        form = {
            "type": "counter",
            "expected_seq": hidden(page, "expected_seq"),
            "message_id": hidden(page, "message_id"),
            "price": "four hundred",
            "day": "2026-12-13",
        }
        refused = bob.post(f"{location}/moves", data=form)
        assert refused.status_code == 422
        assert 'class="error-summary"' in refused.text and "invalid_terms" in refused.text
        assert 'value="four hundred"' in refused.text and 'aria-invalid="true"' in refused.text
        assert 'href="#field-price"' in refused.text
        stale = bob.post(f"{location}/moves", data={**form, "price": "430", "expected_seq": "0"})
        assert stale.status_code == 409 and "raced" in stale.text
        assert 'value="430"' in stale.text  # the entries are kept


def test_an_ending_asks_twice(server: LiveServer) -> None:
    _, opened, _ = _room(server)
    with browser(server) as alice:
        location = claim(alice, opened["owner_link"])
        assert "Withdraw from the room…" in alice.get(location).text
        second = alice.get(f"{location}/end", params={"type": "cancel"})
        assert "This closes the room for both of you." in second.text
        ended = alice.post(
            f"{location}/moves",
            data={"type": "cancel", "message_id": hidden(second.text, "message_id")},
        )
        assert ended.status_code == 303
        assert "The room is closed." in alice.get(location).text
        receipt = alice.get(f"{location}/receipt").text  # nothing agreed: unsigned, no failure
        assert 'class="result unsigned"' in receipt and "Not valid" not in receipt
        assert "Unsigned: nothing was agreed, so nothing was signed</h2>" in receipt


def test_what_keeps_a_page_its_persons(server: LiveServer) -> None:
    room_id, opened, _ = _room(server)
    with browser(server) as alice:
        claimed = alice.post("/claim", data={"code": opened["owner_link"]["url"].rsplit("#", 1)[1]})
        cookie = claimed.headers["set-cookie"]
        assert f"acc_{room_id}=" in cookie
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
        assert "Secure" not in cookie  # http: a Secure cookie would never come back
        page = alice.get(f"/rooms/{room_id}")
        assert page.headers["cache-control"] == "no-store"
        assert page.headers["content-security-policy"].startswith("default-src 'self'")
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert page.headers["referrer-policy"] == "no-referrer"
        cookies = alice.cookies
    with httpx.Client(base_url=server.url, cookies=cookies, timeout=30) as other:
        forged = other.post(
            f"/rooms/{room_id}/moves",
            data={"type": "cancel"},
            headers={"Origin": "https://attacker.example"},
        )
        assert forged.status_code == 403
        bare = other.post(f"/rooms/{room_id}/moves", data={"type": "cancel"})
        assert bare.status_code == 403  # no Origin and no Sec-Fetch-Site: same-origin
        same = other.get(f"/rooms/{room_id}/end", headers={"Sec-Fetch-Site": "same-origin"})
        assert same.status_code == 200
    with httpx.Client(base_url=server.url, timeout=30) as stranger:
        assert stranger.get(f"/rooms/{room_id}").status_code == 401
        assert stranger.get("/rooms/room_unknown").status_code == 401  # 401 before 404
    with browser(server) as alice:
        alice.cookies = cookies
        forgotten = alice.post("/forget")
        assert forgotten.status_code == 303
        assert f'acc_{room_id}=""' in forgotten.headers["set-cookie"]


def test_a_used_or_unknown_code_is_one_refusal(server: LiveServer) -> None:
    _, opened, _ = _room(server)
    with browser(server) as alice:
        claim(alice, opened["owner_link"])
        used = alice.post("/claim", data={"code": opened["owner_link"]["url"].rsplit("#", 1)[1]})
        assert used.status_code == 410 and "link_invalid" in used.text
        unknown = alice.post("/claim", data={"code": "x" * 32})
        assert unknown.status_code == 410
        page = alice.get("/claim")
        assert 'id="field-code"' in page.text and "<label" in page.text


def test_another_device_gets_its_own_link_and_the_page_says_when_it_was_used(
    server: LiveServer,
) -> None:
    room_id, opened, joined = _room(server)
    with browser(server) as laptop:
        claim(laptop, opened["owner_link"])
        shown = laptop.post(f"/rooms/{room_id}/links")
        assert shown.status_code == 200
        found = re.search(r'<code class="secret">([^<]+/claim#[^<]+)</code>', shown.text)
        assert found is not None
        with browser(server) as phone:
            claim(phone, {"url": found.group(1)})
            assert "Your turn" not in phone.get(f"/rooms/{room_id}").text  # the opener waits
        page = laptop.get(f"/rooms/{room_id}").text
        assert page.count("in a browser</li>") == 2  # the first claim and the phone's
    with browser(server) as bob:
        claim(bob, joined["owner_link"])
        theirs = bob.get(f"/rooms/{room_id}").text
        assert theirs.count("in a browser</li>") == 1  # only his own seat's links


def test_the_receipt_in_words_and_its_files(server: LiveServer) -> None:
    room_id, opened, joined = _room(server)
    with browser(server) as alice, browser(server) as bob:
        claim(alice, opened["owner_link"])
        claim(bob, joined["owner_link"])
        page = bob.get(f"/rooms/{room_id}").text
        assert alice.get(f"/rooms/{room_id}/receipt").status_code == 409  # room_open
        for who in (bob, alice):
            page = who.get(f"/rooms/{room_id}").text
            approved = who.post(
                f"/rooms/{room_id}/moves",
                data={
                    "type": "approve",
                    "subject_hash": hidden(page, "subject_hash"),
                    "message_id": hidden(page, "message_id"),
                },
            )
            assert approved.status_code == 303, approved.text
        assert "The room is agreed." in alice.get(f"/rooms/{room_id}").text
        shown = alice.get(f"/rooms/{room_id}/receipt")
        assert shown.status_code == 200
        assert "Valid: valid" in shown.text and "450.00 EUR" in shown.text
        receipt = alice.get(f"/rooms/{room_id}/receipt.json")
        assert receipt.headers["content-disposition"].endswith(f'{room_id}-receipt.json"')
        assert receipt.json()["final_terms"]["price"]["amount_minor"] == 45_000
        log = alice.get(f"/rooms/{room_id}/log.json").json()
        assert log["envelopes"][-1]["type"] == "room.agreed"


def test_the_page_follows_the_room_live(server: LiveServer) -> None:
    room_id, opened, joined = _room(server)
    with browser(server) as alice:
        claim(alice, opened["owner_link"])
        page = alice.get(f"/rooms/{room_id}").text
        assert f'sse-connect="/rooms/{room_id}/events"' in page
        assert 'hx-trigger="sse:changed"' in page and 'aria-live="polite"' in page
        part = alice.get(
            f"/rooms/{room_id}", params={"part": "table"}, headers={"HX-Request": "true"}
        )
        assert part.text.startswith('<div id="part-table"') and "<html" not in part.text
        assert "<html" in alice.get(f"/rooms/{room_id}", params={"part": "table"}).text
        for name in ("htmx.min.js", "htmx-ext-sse.js"):
            script = alice.get(f"/static/{name}")
            assert script.status_code == 200
            assert script.headers["content-type"].startswith("text/javascript")
        with alice.stream("GET", f"/rooms/{room_id}/events", timeout=10) as stream:
            assert stream.status_code == 200
            with server.client() as api:
                countered = api.post(
                    f"/v1/rooms/{room_id}/moves",
                    json={"type": "counter", "terms": _terms(44_000)},
                    headers=auth(joined["seat_token"]),
                )
                assert countered.status_code == 200, countered.text
            lines = stream.iter_lines()
            for line in lines:
                if line.startswith("event:"):
                    assert line == "event: changed"
                    break
    with httpx.Client(base_url=server.url, timeout=10) as stranger:
        assert stranger.get(f"/rooms/{room_id}/events").status_code == 401

"""Starting from a browser: the invite URL opens the join page (the server never sees the
invite: it is the fragment), which shows the room first (A6) and joins with the person's
private limits; the schema builder opens a room; `/rooms` lists this browser's rooms. Joining or
opening makes the browser the seat's owner, and a panel shown once gives the tokens."""

import re

import httpx

from tests.conftest import FakeClock, LiveServer
from tests.http.support import SCHEMA, terms


def _browser(server: LiveServer) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30)


def test_the_invite_url_opens_a_page_that_says_how_to_join(server: LiveServer) -> None:
    with server.client() as client:
        opened = client.post("/v1/rooms", json={"subject_schema": SCHEMA, "subject": terms(9000)})
        assert opened.status_code == 201, opened.text
        invite = opened.json()["invite"]
        url = httpx.URL(invite["url"])
        assert (url.path, url.fragment) == ("/rooms/join", invite["token"])
        page = client.get(url)  # as a browser does: the fragment is not sent
        assert page.status_code == 200, page.text
        assert page.headers["content-type"].startswith("text/html")
        assert page.headers["Referrer-Policy"] == "no-referrer"
        text = page.text
        assert '<html lang="en">' in text and "<title>" in text and "<main" in text
        assert invite["token"] not in text
        assert f"accord rooms join --server {server.url}" in text
        assert f"curl -X POST {server.url}/v1/rooms/join" in text
        # the page read nothing: the invite still works
        assert client.get(url).text == text


def test_a_person_sees_the_room_then_joins_with_private_limits(server: LiveServer) -> None:
    with server.client() as client:
        opened = client.post(
            "/v1/rooms", json={"subject_schema": SCHEMA, "subject": terms(9000), "title": "Desk"}
        ).json()
    invite = opened["invite"]["url"]
    with _browser(server) as bob:
        preview = bob.post("/rooms/join/preview", data={"invite": invite})
        assert preview.status_code == 200
        assert "Desk" in preview.text and "90.00 EUR" in preview.text  # their offer, as it is
        limits = {"invite": invite.rsplit("#", 1)[1], "limit.price.max": "95"}
        joined = bob.post("/rooms/join", data=limits)
        assert joined.status_code == 200, joined.text
        tokens = re.findall(r'<code class="secret">([^<]+)</code>', joined.text)
        assert [t.split("_")[0] for t in tokens] == ["seat", "owner"]  # shown once, here
        room_id = opened["room"]["room_id"]
        assert f"acc_{room_id}=" in joined.headers["set-cookie"]
        page = bob.get(f"/rooms/{room_id}")
        assert "at most 95.00 EUR" in page.text  # the limits committed, read back
        again = bob.post("/rooms/join/preview", data={"invite": invite})
        assert again.status_code == 410 and "invite_invalid" in again.text
        listed = bob.get("/rooms")
        assert f'href="/rooms/{room_id}"' in listed.text and "Your turn" in listed.text
    with server.client(tokens[0]) as agent:
        view = agent.get(f"/v1/rooms/{room_id}").json()
        assert view["your_limits"] == {"price": {"max": {"amount_minor": 9500, "currency": "EUR"}}}


def test_a_preview_refuses_an_expired_invite(server: LiveServer, clock: FakeClock) -> None:
    with server.client() as client:
        opened = client.post("/v1/rooms", json={"subject_schema": SCHEMA}).json()
    server.clock.advance(hours=73)
    with _browser(server) as late:
        refused = late.post("/rooms/join/preview", data={"invite": opened["invite"]["token"]})
        assert refused.status_code == 410 and "invite_invalid" in refused.text


def test_a_room_opened_from_the_builder(server: LiveServer) -> None:
    with _browser(server) as alice:
        assert alice.get("/rooms/new").status_code == 200
        empty = alice.post("/rooms/new", data={"step": "fields"})
        assert empty.status_code == 400 and "name at least one field" in empty.text
        for target in re.findall(r'<a href="#([^"]+)"', empty.text):  # the summary's links land
            assert f'id="{target}"' in empty.text, target
        fields = {
            "step": "fields",
            "field.0.name": "price", "field.0.label": "Price", "field.0.type": "money",
            "field.0.currency": "EUR",
            "field.1.name": "colour", "field.1.type": "enum", "field.1.values": "red, blue",
        }  # fmt: skip
        second = alice.post("/rooms/new", data=fields)
        assert second.status_code == 200 and 'name="schema"' in second.text
        schema = re.search(r'name="schema" value="([^"]+)"', second.text)
        assert schema is not None
        offer = {
            "step": "terms",
            "schema": schema.group(1).replace("&#34;", '"'),
            "title": "Bike",
            "price": "450",
            "colour": "blue",
            "limit.price.min": "400",
            "limit.colour.one_of": ["red", "blue"],
        }
        opened = alice.post("/rooms/new", data=offer)
        assert opened.status_code == 200, opened.text
        assert "/rooms/join#" in opened.text  # the invite, once
        room_id = re.search(r'href="/rooms/(room_[^"]+)"', opened.text)
        assert room_id is not None
        page = alice.get(f"/rooms/{room_id.group(1)}")
        assert "450.00 EUR" in page.text and "at least 400.00 EUR" in page.text
        assert "one of blue, red" in page.text
        assert "<strong>You</strong> offered: Price 450.00 EUR, colour blue." in page.text
    with server.client() as client:
        refused = client.post("/rooms/new", data={"step": "fields"})
        assert refused.status_code == 403  # no Origin: not this server's own form

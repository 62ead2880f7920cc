"""The invite URL that opening a room prints is a page a browser can open: it says what the
invite is and how to join with it, and the server never sees the token (it is the fragment)."""

import httpx

from tests.conftest import LiveServer
from tests.http.support import SCHEMA


def test_the_invite_url_opens_a_page_that_says_how_to_join(server: LiveServer) -> None:
    with server.client() as client:
        opened = client.post("/v1/rooms", json={"subject_schema": SCHEMA})
        assert opened.status_code == 201, opened.text
        invite = opened.json()["invite"]
        url = httpx.URL(invite["url"])
        assert (url.path, url.fragment) == ("/rooms/join", invite["token"])
        page = client.get(url)  # as a browser does: the fragment is not sent
        assert page.status_code == 200, page.text
        assert page.headers["content-type"].startswith("text/html")
        assert "script-src" not in page.headers["Content-Security-Policy"]
        assert page.headers["Referrer-Policy"] == "no-referrer"
        text = page.text
        assert '<html lang="en">' in text and "<title>" in text and "<main>" in text
        assert "<script" not in text.lower()
        assert invite["token"] not in text
        assert f"accord rooms join --server {server.url}" in text
        assert f"curl -X POST {server.url}/v1/rooms/join" in text
        assert '"invite_token"' in text
        # the page read nothing: the invite still works, once
        joined = client.post("/v1/rooms/join", json={"invite_token": invite["token"]})
        assert joined.status_code == 200, joined.text


def test_the_page_is_the_same_for_every_invite(server: LiveServer) -> None:
    with server.client() as client:
        first = client.get("/rooms/join#inv_one")
        second = client.get("/rooms/join?x=1#inv_two")
    assert first.status_code == second.status_code == 200
    assert first.text == second.text

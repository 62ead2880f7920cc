"""The README's "The person's pages", run as written by the walk-through runner: its curl opens
a room, and the owner link it prints, opened in a browser, claims the room once and shows it;
what the section says of that page holds (the cookie, 401 without it, 403 from elsewhere, the
headers, "Forget this browser")."""

import json
import subprocess
from pathlib import Path
from typing import Any, Final

from tests.cli.test_walkthroughs import README, script
from tests.conftest import LiveServer
from tests.web import test_browser

SECTION: Final = (
    README.read_text(encoding="utf-8").split("## The person's pages", 1)[1].split("\n## ", 1)[0]
)

pytestmark = test_browser.pytestmark
browser = test_browser.browser  # the same headless chromium, as a fixture of this module


def test_the_owner_link_opens_the_room_once(
    server: LiveServer, browser: Any, tmp_path: Path
) -> None:
    text, left_out = script(SECTION, server.url)
    assert left_out == [] and text.count("curl -s -X POST") == 1, text
    ran = subprocess.run(
        ["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    opened = json.loads(ran.stdout)  # the shape the block's comment shows
    room_id = opened["room"]["room_id"]
    assert opened["seat_token"].startswith("seat_")
    link = opened["owner_link"]["url"]
    assert link.startswith(f"{server.url}/claim#")

    page = browser.new_context().new_page()
    for room in (room_id, "room_00000000000000000000"):  # 401 whether or not the room exists
        shut = page.goto(f"{server.url}/rooms/{room}")
        assert shut is not None and shut.status == 401
        assert page.text_content("h1") == "Open your link"

    page.goto(link)  # "Open owner_link.url in your browser and press Continue"
    assert "#" not in page.url  # the code left the address bar for the form
    with page.expect_navigation() as claimed:
        page.click("button:text-is('Continue')")
    assert page.url == f"{server.url}/rooms/{room_id}"
    shown = claimed.value
    assert shown is not None and shown.status == 200
    assert shown.headers["cache-control"] == "no-store"
    assert shown.headers["referrer-policy"] == "no-referrer"
    assert "default-src 'self'" in shown.headers["content-security-policy"]
    assert opened["room"]["name"] in page.text_content("h1")
    assert "Waiting for the other side to join." in page.text_content("#part-status")
    cookie = next(c for c in page.context.cookies() if c["name"] == f"acc_{room_id}")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax" and not cookie["secure"]  # http
    page.goto(f"{server.url}/rooms")  # this browser's rooms
    assert page.locator(f"a[href='/rooms/{room_id}']").count() == 1

    forged = page.request.post(  # the room's cookie goes along, the Origin is not the server's
        f"{server.url}/rooms/{room_id}/moves",
        form={"type": "cancel"},
        headers={"Origin": "https://attacker.example"},
    )
    assert forged.status == 403

    again = browser.new_context().new_page()  # once: the same link opens nothing elsewhere
    again.goto(link)
    again.click("button:text-is('Continue')")
    again.wait_for_selector(".error-summary")
    assert again.goto(f"{server.url}/rooms/{room_id}").status == 401

    page.click("button:text('Forget this browser')")
    page.wait_for_url(f"{server.url}/")
    assert [c for c in page.context.cookies() if c["name"].startswith("acc_")] == []
    assert page.goto(f"{server.url}/rooms/{room_id}").status == 401

"""The person's pages in a real browser (headless Debian chromium, driven by Playwright): a room
opened from the builder, joined from a second browser through the invite link, countered,
approved by both, the agreement seen live on both pages, its receipt opened and checked again
on /verify; what an agent asks confirmed and declined on the page; a refused move shows its
error summary, focused; a room's notices and a stale form refused `raced`; a session's
corrective round, a walk-away and a manual hand-off; and axe-core finds no WCAG 2.2 AA
violation on any page. Screenshots are kept in `artifacts/screenshots/`."""

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from accord.app.merchants import Merchants
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import auth
from tests.intro.conftest import key
from tests.intro.test_turns_http import opened, took
from tests.sessions import support as sessions
from tests.sessions.conftest import POLICY
from tests.web.test_principal_pages import _principal

CHROMIUM: Final = "/usr/bin/chromium"
AXE: Final = (Path(__file__).parent / "axe" / "axe.min.js").read_text()
SHOTS: Final = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
WCAG: Final = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
FLAGS: Final = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="Debian's chromium is not installed (.ci/run does)"
)


@pytest.fixture
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()


def accessible(page: Any, name: str) -> None:
    """axe-core on the page as it is now: no WCAG 2.2 AA violation; and a screenshot."""
    page.evaluate(AXE)  # through the DevTools protocol: the page's CSP does not apply
    result = page.evaluate(
        "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG
    )
    violations = [(v["id"], [n["target"] for n in v["nodes"]]) for v in result["violations"]]
    assert violations == [], (name, violations)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_two_people_agree_in_two_browsers(server: LiveServer, browser: Any) -> None:
    alice = browser.new_context().new_page()
    alice.goto(f"{server.url}/")
    accessible(alice, "home")
    alice.goto(f"{server.url}/rooms/new")
    accessible(alice, "new-fields")
    alice.click("text=Next: your offer and limits")  # no field named yet: refused
    alice.wait_for_selector(".error-summary >> text=name at least one field")
    accessible(alice, "new-fields-refused")
    alice.fill("#f0-name", "price")
    alice.fill("#f0-label", "Price")
    alice.select_option("#f0-type", "money")
    alice.fill("#f0-currency", "EUR")
    alice.fill("#f1-name", "day")
    alice.fill("#f1-label", "Pickup day")
    alice.select_option("#f1-type", "date")
    alice.click("text=Next: your offer and limits")
    accessible(alice, "new-terms")
    alice.fill("#field-title", "Blue bicycle")
    alice.fill("#field-price", "four fifty")
    alice.fill("#field-day", "2026-12-12")
    alice.fill("#limit-price-min", "400")
    alice.click("text=Open the room")
    alice.wait_for_selector(".error-summary >> a[href='#field-price']")
    assert alice.get_attribute("#field-price", "aria-invalid") == "true"
    accessible(alice, "new-terms-refused")
    alice.fill("#field-price", "450")
    alice.click("text=Open the room")
    accessible(alice, "opened")
    invite = alice.locator("code.secret").first.inner_text()
    assert "/rooms/join#" in invite
    alice.click("text=Go to the room")
    accessible(alice, "room-draft")

    bob = browser.new_context().new_page()
    bob.goto(invite)
    assert "#" not in bob.url  # the invite moved off the address bar into the form
    accessible(bob, "join")
    bob.click("text=See the room")
    accessible(bob, "join-preview")
    bob.fill("#limit-price-max", "440")
    bob.click("text=Join the room")
    accessible(bob, "joined")
    bob.click("text=Go to the room")
    bob.fill("#field-price", "420")
    bob.click("button:text('Counter')")
    bob.wait_for_selector("text=Waiting for them.")
    accessible(bob, "room-countered")

    alice.wait_for_selector("#part-table >> text=420.00 EUR")  # live, without a reload
    accessible(alice, "room-live")
    alice.reload()  # forms are never swapped: the page is read again for its new moves
    alice.click("text=Approve these terms")
    bob.wait_for_selector("#part-table >> text=Approved by: them")
    bob.reload()
    bob.click("text=Approve these terms")
    for page in (alice, bob):
        page.wait_for_selector("text=The room is agreed.")
    accessible(alice, "room-agreed")

    alice.click("text=The receipt")
    alice.wait_for_selector("text=Valid: valid")
    accessible(alice, "receipt")
    receipt = alice.request.get(re.sub(r"/receipt$", "/receipt.json", alice.url)).text()
    alice.goto(f"{server.url}/verify")
    accessible(alice, "verify-form")
    alice.fill("#field-receipt", receipt)
    alice.click("button:text('Verify')")
    alice.wait_for_selector("text=Valid: valid")
    accessible(alice, "verify")
    forged = json.loads(receipt)
    forged["payload"] = {**forged.get("payload", {}), "forged": True}
    alice.fill("#field-receipt", json.dumps(forged))
    alice.click("button:text('Verify')")
    alice.wait_for_selector("text=Not valid")
    accessible(alice, "verify-failed")
    alice.fill("#field-receipt", "a receipt, in words")
    alice.click("button:text('Verify')")
    alice.wait_for_selector(".error-summary >> text=invalid_request")
    accessible(alice, "verify-refused")


def test_a_refused_move_shows_its_error_summary(server: LiveServer, browser: Any) -> None:
    with server.client() as api:
        opened = api.post(
            "/v1/rooms",
            json={
                "subject_schema": {"price": {"type": "money", "currency": "EUR"}},
                "subject": {"price": {"amount_minor": 45_000, "currency": "EUR"}},
            },
        ).json()
        joined = api.post(
            "/v1/rooms/join",
            json={"invite_token": opened["invite"]["token"], "owner_delivery": "link"},
        ).json()
    bob = browser.new_context().new_page()
    bob.goto(f"{server.url}/claim#{joined['owner_link']['url'].rsplit('#', 1)[1]}")
    bob.click("text=Continue")
    bob.fill("#field-price", "four hundred")
    bob.click("button:text('Counter')")
    summary = bob.locator(".error-summary")
    assert summary.is_visible()
    assert bob.evaluate("document.activeElement.classList.contains('error-summary')")
    assert bob.get_attribute("#field-price", "aria-invalid") == "true"
    accessible(bob, "room-refused")


def _money(amount_minor: int) -> dict[str, Any]:
    return {"amount_minor": amount_minor, "currency": "EUR"}


def _claimed(browser: Any, owner_link: dict[str, Any]) -> Any:
    """A browser of its own that opened an owner link and pressed Continue: the room's page."""
    page = browser.new_context().new_page()
    page.goto(owner_link["url"])
    page.click("button:text-is('Continue')")
    page.wait_for_selector("#part-status")
    return page


def test_a_person_confirms_and_declines_what_their_agent_asks(
    server: LiveServer, browser: Any
) -> None:
    schema = {"price": {"type": "money", "currency": "EUR", "label": "Price"}}
    with server.client() as api:
        opened = api.post(
            "/v1/rooms",
            json={"subject_schema": schema, "subject": {"price": _money(45_000)},
                  "limits": {"price": {"min": _money(44_000)}}, "owner_delivery": "link"},
        ).json()  # fmt: skip
        room_id = opened["room"]["room_id"]
        joined = api.post(
            "/v1/rooms/join",
            json={"invite_token": opened["invite"]["token"], "owner_delivery": "link"},
        ).json()
        alice_agent, bob_agent = auth(opened["seat_token"]), auth(joined["seat_token"])
        countered = api.post(
            f"/v1/rooms/{room_id}/moves",
            json={"type": "counter", "terms": {"price": _money(42_000)}, "message": "420?"},
            headers=bob_agent,
        )
        subject_hash = countered.json()["room"]["table"]["subject_hash"]
        asked = api.post(  # a seat token's approval waits for its owner
            f"/v1/rooms/{room_id}/moves",
            json={"type": "approve", "subject_hash": subject_hash},
            headers=alice_agent,
        )
        assert asked.status_code == 202, asked.text
        waiting = asked.json()["room"]
        assert waiting["your_turn"] is True and waiting["approvals"] == []  # nothing moved yet

    stranger = browser.new_context().new_page()
    shut = stranger.goto(f"{server.url}/rooms/{room_id}")
    assert shut is not None and shut.status == 401  # no cookie: "open your link"
    stranger.wait_for_selector("h1:text('Open your link')")
    accessible(stranger, "room-no-cookie")
    stranger.goto(f"{server.url}/rooms/join#{opened['invite']['token']}")  # used by Bob's agent
    stranger.click("text=See the room")
    stranger.wait_for_selector(".error-summary")
    accessible(stranger, "join-refused")

    alice = _claimed(browser, opened["owner_link"])
    assert "Your agent asks you to confirm." in alice.text_content("#part-status")
    asking = alice.locator(".confirmation")
    assert "approve these terms" in asking.inner_text()
    assert "Outside your limits" in asking.inner_text()  # 420 is below her floor, never shown
    accessible(alice, "room-confirmation")
    asking.locator("button:text-is('Confirm')").click()
    alice.wait_for_selector("#part-table >> text=Approved by: you")
    assert "Waiting for them." in alice.text_content("#part-status")
    assert alice.locator(".confirmation").count() == 0
    with server.client() as api:
        room = api.get(f"/v1/rooms/{room_id}", headers=alice_agent).json()
        assert room["approvals"] == [{"seat": "opener", "subject_hash": subject_hash}]
        assert room["your_turn"] is False and room["state"] == "awaiting"

    alice.click("text=Withdraw from the room…")  # the second page, then back without ending
    alice.wait_for_selector("text=This closes the room for both of you.")
    accessible(alice, "room-end-withdraw")
    alice.click("text=Keep the room open")
    alice.click("button:text('Open on another device')")
    alice.wait_for_selector("code.secret")
    accessible(alice, "room-link")
    alice.goto(f"{server.url}/rooms")
    alice.wait_for_selector(f"a[href='/rooms/{room_id}']")
    accessible(alice, "rooms-listed")

    with server.client() as api:  # Bob's agent asks to reject; his person declines
        asked = api.post(f"/v1/rooms/{room_id}/moves", json={"type": "reject"}, headers=bob_agent)
        assert asked.status_code == 202, asked.text
    bob = _claimed(browser, joined["owner_link"])
    assert "reject the terms on the table" in bob.locator(".confirmation").inner_text()
    bob.locator(".confirmation button:text-is('Decline')").click()
    bob.wait_for_selector("#part-status >> text=Your turn.")  # the turn stays where it was
    assert bob.locator(".confirmation").count() == 0
    with server.client() as api:
        room = api.get(f"/v1/rooms/{room_id}", headers=bob_agent).json()
        assert room["state"] == "awaiting" and room["your_turn"] is True
        log = api.get(f"/v1/rooms/{room_id}/log", headers=bob_agent).json()["envelopes"]
        assert "move.reject" not in [envelope["type"] for envelope in log]

    bob.click("text=Reject the terms…")  # the person ends it himself, behind the second page
    bob.wait_for_selector("text=This closes the room for both of you.")
    accessible(bob, "room-end-reject")
    bob.click("button:text-is('Reject the terms')")
    bob.wait_for_selector("text=The room is closed.")
    accessible(bob, "room-closed")
    bob.click("text=The receipt")
    bob.wait_for_selector("text=Nothing was agreed.")
    accessible(bob, "receipt-closed")

    again = browser.new_context().new_page()  # an owner link works once
    again.goto(opened["owner_link"]["url"])
    again.click("button:text-is('Continue')")
    again.wait_for_selector(".error-summary")
    accessible(again, "claim-refused")


def test_a_room_whose_limits_cannot_meet_goes_in_circles(server: LiveServer, browser: Any) -> None:
    """The two notices of a room, and a form left open while the room moved on: refused
    `raced`, shown again with the new table and the person's entries."""
    schema = {"price": {"type": "money", "currency": "EUR", "label": "Price"}}
    with server.client() as api:
        opened = api.post(
            "/v1/rooms",
            json={"subject_schema": schema, "subject": {"price": _money(45_000)},
                  "limits": {"price": {"min": _money(40_000)}}, "owner_delivery": "link"},
        ).json()  # fmt: skip
        room_id = opened["room"]["room_id"]
        joined = api.post(  # at most 380 against her at least 400
            "/v1/rooms/join",
            json={"invite_token": opened["invite"]["token"],
                  "limits": {"price": {"max": _money(38_000)}}},
        ).json()  # fmt: skip
    alice_agent, bob_agent = auth(opened["seat_token"]), auth(joined["seat_token"])

    def countered(agent: dict[str, str], amount_minor: int) -> None:
        with server.client() as api:
            moved = api.post(
                f"/v1/rooms/{room_id}/moves",
                json={"type": "counter", "terms": {"price": _money(amount_minor)}},
                headers=agent,
            )
            assert moved.status_code == 200, moved.text

    alice = _claimed(browser, opened["owner_link"])
    assert "cannot meet on: price" in alice.text_content("#part-status")
    accessible(alice, "room-limits-incompatible")
    countered(bob_agent, 36_000)
    alice.reload()
    alice.wait_for_selector("#part-status >> text=Your turn.")
    # While her counter form is open, her agent and theirs trade two prices back and forth:
    # her form goes stale, and four moves with no new terms make the room circle.
    for agent, amount_minor in ((alice_agent, 45_000), (bob_agent, 37_000)) * 3:
        countered(agent, amount_minor)
    alice.fill("#field-price", "460")
    alice.click("button:text('Counter')")
    alice.wait_for_selector(".error-summary >> text=raced")
    assert alice.input_value("#field-price") == "460"  # her entry, kept
    assert "370.00 EUR" in alice.text_content("#part-table")  # the table as it now stands
    accessible(alice, "room-raced")
    alice.goto(f"{server.url}/rooms/{room_id}")
    alice.wait_for_selector("#part-status >> text=the room is circling")
    accessible(alice, "room-circling")


def _watching(browser: Any) -> Any:
    """A page in a context of its own that notes when its event stream opens
    (`window.streamOpen`), so a test acts only once the page is listening."""
    context = browser.new_context()
    context.add_init_script(
        "document.addEventListener('htmx:sseOpen', () => { window.streamOpen = true; });"
    )
    return context.new_page()


def _shop_keys(server: LiveServer, name: str) -> dict[str, str]:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        keys: dict[str, str] = Merchants(db, server.settings, clock=server.clock).create_tenant(
            name
        )["keys"]
    finally:
        db.close()
    return keys


def _signed_in(browser: Any, server: LiveServer, secret: str) -> Any:
    """A browser of its own, signed in on /login with a key."""
    page = browser.new_context().new_page()
    page.goto(f"{server.url}/login")
    page.fill("#field-secret", secret)
    page.click("button:text('Sign in')")
    page.wait_for_url(re.compile(r"/(merchant|opportunities)"))
    return page


def test_the_shop_pages_are_accessible(server: LiveServer, browser: Any) -> None:
    keys = _shop_keys(server, "a11y")
    with server.client() as api:
        api.put(f"/v1/policies/{POLICY['sku']}", json=POLICY, headers=auth(keys["secret_test"]))
        opened = api.post(
            "/v1/sessions",
            json={"sku": POLICY["sku"], "buyer": {"agent_id": "a11y-buyer"}},
            headers=auth(keys["publishable_test"]),
        ).json()
        api.post(
            f"/v1/sessions/{opened['session_id']}/messages",
            json={"type": "offer", "price_minor": 39_905},
            headers=auth(opened["session_token"]),
        )
        link = api.post("/v1/links", json={}, headers=auth(opened["session_token"])).json()
    person = _watching(browser)
    person.goto(link["web_url"])
    accessible(person, "claim")
    person.click("text=Continue")
    person.wait_for_selector("text=What the arbiter said")
    accessible(person, "session")
    person.wait_for_function("window.streamOpen === true")  # the page's event stream is open
    with server.client() as api:  # the buyer's agent offers again: the page follows, unasked
        again = api.post(
            f"/v1/sessions/{opened['session_id']}/messages",
            json={"type": "offer", "price_minor": 39_950},
            headers=auth(opened["session_token"]),
        )
        assert again.status_code == 200, again.text
    person.wait_for_selector("td:text('399.50 USD')", timeout=10_000)
    assert "The session changed" in person.text_content("#announce")
    merchant = _watching(browser)
    merchant.goto(f"{server.url}/login")
    accessible(merchant, "login")
    merchant.fill("#field-secret", "sk_test_not_a_key")
    merchant.click("button:text('Sign in')")
    merchant.wait_for_selector(".error-summary")
    accessible(merchant, "login-refused")
    merchant.fill("#field-secret", keys["secret_test"])
    merchant.click("button:text('Sign in')")
    merchant.wait_for_selector("text=test mode")
    accessible(merchant, "merchant")
    merchant.click(f"text={opened['session_id']}")
    merchant.wait_for_selector("text=What the arbiter said")
    accessible(merchant, "merchant-session")
    merchant.wait_for_function("window.streamOpen === true")
    with server.client() as api:  # the merchant's page follows the session too
        third = api.post(
            f"/v1/sessions/{opened['session_id']}/messages",
            json={"type": "offer", "price_minor": 39_990},
            headers=auth(opened["session_token"]),
        )
        assert third.status_code == 200, third.text
    merchant.wait_for_selector("td:text('399.90 USD')", timeout=10_000)
    assert "The session changed" in merchant.text_content("#announce")
    person.reload()  # the person takes the merchant's standing offer, then the checkout
    person.click("button:text('Accept')")
    person.wait_for_selector("text=Agreed.")
    accessible(person, "session-agreed")
    person.click("button:text('Show the checkout')")
    person.wait_for_selector("code.secret")
    accessible(person, "session-checkout")
    merchant.reload()  # after the end: the floor revealed, a hand-off to publish
    merchant.wait_for_selector("text=Agreed.")
    accessible(merchant, "merchant-session-ended")
    merchant.click("button:text('Reveal the committed floor')")
    merchant.wait_for_selector("text=Revealed:")
    accessible(merchant, "merchant-revealed")
    merchant.goto(f"{server.url}/rooms")
    accessible(merchant, "rooms")


def test_a_session_refused_as_unfair_walked_away_and_a_manual_hand_off(
    server: LiveServer, browser: Any
) -> None:
    keys = _shop_keys(server, "a11y-manual")
    with server.client() as api:
        sessions.put_policy(
            api, keys["secret_test"], handoff=POLICY["handoff"] | {"publish": "manual"}
        )
        unfair = sessions.open_session(api, keys["publishable_test"])
        assert sessions.offer(api, unfair, sessions.UNFAIR)["state"] == "corrective"
        link = api.post("/v1/links", json={}, headers=auth(unfair.token)).json()
        agreed, _ = sessions.agree(api, keys["publishable_test"])
    person = browser.new_context().new_page()
    person.goto(link["web_url"])
    person.click("text=Continue")
    person.wait_for_selector("text=one corrective offer is due")
    accessible(person, "session-corrective")
    person.click("button:text('Walk away')")
    person.wait_for_selector("text=Ended without a deal: your side walked away.")
    accessible(person, "session-walked-away")

    merchant = _signed_in(browser, server, keys["secret_test"])
    merchant.goto(f"{server.url}/merchant/sessions/{agreed.session_id}")
    merchant.fill("#field-value", "MANUAL-A11Y-7731")
    merchant.fill("#field-checkout_url", "https://shop.example/pay")
    merchant.fill("#field-expires_at", "2026-12-01T12:00:00Z")
    with merchant.expect_navigation():
        merchant.click("button:text('Publish')")
    assert merchant.url.endswith(f"/merchant/sessions/{agreed.session_id}")  # not refused
    merchant.wait_for_selector("text=The hand-off is published")
    assert merchant.locator("#handoff-form").count() == 0
    accessible(merchant, "merchant-handoff-published")
    with server.client() as api:  # the buyer's side can now claim it
        claimed = api.post(f"{agreed.url}/handoff/claim", headers=auth(agreed.token))
        assert claimed.status_code == 200 and claimed.json()["value"] == "MANUAL-A11Y-7731"


def test_the_principal_pages_are_accessible(server: LiveServer, browser: Any) -> None:
    ada, bob = _principal(server, "ada-a11y"), _principal(server, "bob-a11y")
    with server.client() as api:
        opportunity_id = opened(api, ada, bob)
        took(
            api, ada.agent_key, opportunity_id,
            action="propose", message="Saturday rehearsals?", expected_turn_count=0,
        )  # fmt: skip
        api.post(
            f"/api/opportunities/{opportunity_id}/negotiation/questions",
            json={
                "questions": [
                    {"question": "Mornings?", "options": ["yes", "no"], "why": "Saturdays"}
                ]
            },
            headers=key(ada.agent_key),
        )
        case = api.post(
            "/v1/adviser/cases", json={"title": "Salary"}, headers=key(ada.owner_key)
        ).json()
        reviewed = api.post(  # the page then shows the eight tests and the override form
            f"/v1/adviser/cases/{case['case_id']}/deal-review",
            json={"offer": {"terms": {}, "text": "120k, start in March"}},
            headers=key(ada.owner_key),
        )
        assert reviewed.status_code == 200, reviewed.text
    person = _signed_in(browser, server, ada.owner_key)
    person.wait_for_selector("text=Your introductions")
    accessible(person, "opportunities")
    person.goto(f"{server.url}/opportunities/{opportunity_id}")
    accessible(person, "opportunity")
    person.check("input[name=answer][value=yes]")  # the agent's question, answered
    person.click("button:text('Answer')")
    person.wait_for_selector("text=Your agent asks you", state="detached")
    accessible(person, "opportunity-answered")
    person.click("text=Talk to your agent")
    person.fill("#field-message", "Saturdays only")
    person.click("button:text('Send')")
    person.wait_for_selector("blockquote:text('Saturdays only')")
    accessible(person, "chat")
    with server.client() as api:  # their agent accepts: the introduction waits for the people
        took(
            api, bob.agent_key, opportunity_id,
            action="accept", message="Yes", expected_turn_count=1,
        )  # fmt: skip
    person.goto(f"{server.url}/opportunities/{opportunity_id}")
    person.wait_for_selector("text=The agents agree it is worth it: you and they decide.")
    assert person.locator("button:text('Pass')").count() == 1  # beside Accept introduction
    accessible(person, "opportunity-pending")
    person.goto(f"{server.url}/adviser/cases")
    accessible(person, "cases")
    person.goto(f"{server.url}/adviser/cases/{case['case_id']}")
    accessible(person, "case")
    asked = person.locator("form[action$='/answers']").first  # the intake asks for text first
    question_id = asked.locator("[name=question_id]").get_attribute("value")
    asked.locator("[name=answer]").fill("Stay where I am")
    asked.locator("button:text('Answer')").click()
    person.wait_for_selector(f"input[value='{question_id}']", state="detached")
    assert person.locator("button:text('Mark seen')").count() > 0  # the answer changed the case
    accessible(person, "case-answered")
    person.fill("#field-reason", "   ")  # blank to the server, though the field is required
    person.click("button:text('Accept against the review')")
    person.wait_for_selector(".error-summary")
    accessible(person, "case-override-refused")
    person.fill("#field-reason", "The team is worth it")
    person.click("button:text('Accept against the review')")
    person.wait_for_selector("text=You accepted against the review")
    accessible(person, "case-overridden")


def test_a_form_sent_from_another_site_is_refused_in_words(
    server: LiveServer, browser: Any
) -> None:
    """Another site's page posts a form to this server (here `localhost`, another origin than
    the server's `127.0.0.1`): the browser lands on a 403 page that says why, and the person's
    sign-in is untouched."""
    keys = _shop_keys(server, "forged")
    page = _signed_in(browser, server, keys["secret_test"])
    signed_in = page.url
    port = server.url.rsplit(":", 1)[1]
    attacker = f"http://localhost:{port}/attack"
    page.route(
        attacker,
        lambda route: route.fulfill(
            content_type="text/html",
            body=f'<form method="post" action="{server.url}/logout"></form>'
            "<script>document.forms[0].submit()</script>",
        ),
    )
    with page.expect_response(f"{server.url}/logout") as answered:
        page.goto(attacker)
    assert answered.value.status == 403
    page.wait_for_load_state()
    assert "not sent from this server's own page" in page.inner_text(".error-summary")
    assert page.inner_text("h1") == "Nothing was forgotten"
    accessible(page, "cross-site-form")
    page.goto(signed_in)
    assert page.url == signed_in  # still signed in: the forged "forget" did nothing

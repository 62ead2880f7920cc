"""`accord adviser link` through the real entry point against a live server: a room seat
followed with a token given or the one `accord rooms` stored, the offers and the review shown,
F09 run by hand, and mistakes said before anything is sent."""

from pathlib import Path

from accord.cli import credentials as store
from tests.adviser.test_links_http import SALARY, counter, room
from tests.cli.intro_support import ok, refused, said
from tests.cli.test_adviser import Someone, ada, clients, new_case, patch_file, principals

__all__ = ["ada", "clients", "principals"]  # fixtures

TOPIC = [
    {
        "patch_id": "salary",
        "operation": "ADD",
        "path": "/topics_targets_tradeoffs/topics/-",
        "proposed_value": SALARY,
    }
]


def test_a_room_seat_followed_from_the_terminal(ada: Someone, tmp_path: Path) -> None:
    case_id = new_case(ada)
    ok(ada.owner("patch", case_id, "--file", patch_file(tmp_path, TOPIC), "--json"))
    with ada.server.client() as client:
        table = room(client, 120_000)
        printed = said(
            ada.owner("link", case_id, "rooms", table["room_id"], "--token", table["candidate"])
        )
        assert printed.startswith("linked link_")
        assert f"case {case_id} follows rooms {table['room_id']} as joiner" in printed
        shown = said(ada.agent("show", case_id))
        assert f"linked: rooms {table['room_id']} as joiner" in shown
        assert "their offer: salary: USD 120,000.00; start: 2027-02-01" in shown
        assert "deal review: " in shown
        counter(client, table["candidate"], table["room_id"], 150_000)
        counter(client, table["employer"], table["room_id"], 135_000, "Our best")
    # the follower may have read the two counters already; the run reads what it has not
    ran = said(ada.owner("run", case_id, "F09"))
    assert ran.startswith(("F09: Read the linked tables: ", "F09: The linked tables have nothing"))
    shown = said(ada.agent("show", case_id))
    assert "your offer: salary: USD 150,000.00; start: 2027-02-01" in shown
    assert "counterpart  topic-1  USD 120,000.00 → USD 135,000.00  reciprocal False" in shown
    refused(
        ada.owner("link", case_id, "rooms", table["room_id"], "--token", table["candidate"]),
        "already_linked",
    )
    refused(ada.agent("link", case_id, "rooms", table["room_id"], "--token", "x"), "forbidden")


def test_the_token_accord_rooms_stored_is_used(ada: Someone, tmp_path: Path) -> None:
    case_id = new_case(ada)
    with ada.server.client() as client:
        table = room(client, 120_000)
    saved = tmp_path / "credentials.json"
    stored = store.Credential(
        "joiner", table["candidate"], table["candidate_owner"], "a room", ada.server.url
    )
    store.remember(saved, table["room_id"], stored)
    linked = ok(
        ada.owner("link", case_id, "rooms", table["room_id"], "--credentials", str(saved), "--json")
    )
    assert linked["seat"] == "joiner"


def test_mistakes_are_said_before_anything_is_sent(ada: Someone, tmp_path: Path) -> None:
    case_id = new_case(ada)
    empty = str(tmp_path / "none.json")
    missing = ada.owner("link", case_id, "rooms", "room_x", "--credentials", empty)
    assert missing.exit_code == 1 and "pass --token" in missing.stderr
    session = ada.owner("link", case_id, "arbitrated", "ses_x")
    assert session.exit_code == 1 and "session token" in session.stderr
    intro = ada.owner("link", case_id, "intro", "opp_x", "--token", "t")
    assert intro.exit_code == 1 and "leave --token out" in intro.stderr
    refused(ada.owner("link", case_id, "intro", "opp_x"), "not_found")

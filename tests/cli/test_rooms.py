"""`accord rooms` against a real server: people at terminals, each with a credentials file."""

import json
import re
import stat
from typing import Any

import httpx
import pytest

from accord.cli import credentials as store
from accord.cli.main import app
from tests.cli.conftest import Person
from tests.conftest import LiveServer

SCHEMA = "price:money:EUR,day:date"
LIMITS_BOB = '{"price": {"max": {"amount_minor": 9500, "currency": "EUR"}}}'


def _ok(result: Any) -> Any:
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def stored(person: Person) -> dict[str, store.Credential]:
    return store.load(person.credentials)


def open_and_join(alice: Person, bob: Person) -> str:
    opened = json.loads(
        _ok(
            alice("open", "--schema", SCHEMA, "--subject", "price=100,day=2026-12-10", "--json")
        ).stdout
    )
    _ok(bob("join", opened["invite"]["token"], "--limits", LIMITS_BOB))
    return str(opened["room"]["room_id"])


def test_a_room_from_open_to_agreement(alice: Person, bob: Person) -> None:
    opened = _ok(
        alice(
            "open",
            "--schema",
            "price:money:EUR,day:date,size:enum:S|M|L",
            "--subject",
            "price=100.00,day=2026-12-10",
            "--subject",
            "size=M",
            "--title",
            "A desk",
        )
    )
    (room_id,) = stored(alice)
    assert room_id in opened.stdout
    assert "100.00 EUR" in opened.stdout
    assert "A desk" in opened.stdout
    invite_url = re.search(r"url\s+(\S+)", opened.stdout)
    assert invite_url is not None
    assert "saved in" in opened.stderr

    joined = _ok(bob("join", invite_url.group(1), "--limits", LIMITS_BOB))
    assert "you are the joiner" in joined.stdout
    assert "your turn" in joined.stdout
    assert "price at most 95.00 EUR" in joined.stdout  # the limits opening, for Bob only

    countered = _ok(bob("move", room_id, "counter", "--terms", "price=90,day=2026-12-10,size=M"))
    assert "90.00 EUR" in countered.stdout
    assert "their turn (opener)" in countered.stdout

    approved = _ok(alice("move", room_id, "approve"))
    assert "approving the terms on the table" in approved.stderr  # says which hash it quoted
    assert "approved by opener" in approved.stdout

    agreed = _ok(bob("move", room_id, "approve"))
    assert "agreed" in agreed.stdout
    shown = _ok(alice("show", room_id))
    assert "agreed" in shown.stdout
    assert "receipt:" in shown.stdout


def test_json_is_exactly_the_api_json(alice: Person, bob: Person, server: LiveServer) -> None:
    opened = json.loads(
        _ok(
            alice("open", "--schema", SCHEMA, "--subject", "price=100,day=2026-12-10", "--json")
        ).stdout
    )
    assert set(opened) == {"room", "seat_token", "owner_token", "limits_opening", "invite"}
    room_id = opened["room"]["room_id"]
    assert stored(alice)[room_id].owner_token == opened["owner_token"]
    joined = json.loads(_ok(bob("join", opened["invite"]["token"], "--json")).stdout)
    assert stored(bob)[room_id].seat_token == joined["seat_token"]

    moved = json.loads(
        _ok(bob("move", room_id, "counter", "--terms", "price=90,day=2026-12-10", "--json")).stdout
    )
    with server.client(joined["owner_token"]) as api:
        assert moved["room"] == api.get(f"/v1/rooms/{room_id}").json()
        assert moved["move"] == api.get(f"/v1/rooms/{room_id}/log").json()["envelopes"][-1]
        shown = json.loads(_ok(bob("show", room_id, "--json")).stdout)
        assert shown == api.get(f"/v1/rooms/{room_id}").json()
    listed = json.loads(_ok(bob("list", "--json")).stdout)
    with server.client() as api:
        body = {"tokens": [joined["owner_token"]], "include_closed": False}
        assert listed == api.post("/v1/rooms/list", json=body).json()


def test_an_agents_approve_waits_for_the_owner(alice: Person, bob: Person) -> None:
    room_id = open_and_join(alice, bob)
    _ok(bob("move", room_id, "counter", "--terms", "price=90,day=2026-12-10"))

    asked = _ok(alice("move", room_id, "approve", "--as", "agent"))
    assert "waits for the owner's confirmation" in asked.stderr
    declined = json.loads(_ok(alice("confirm", room_id, "--decline", "--json")).stdout)
    assert declined["room"]["pending_confirmation"] is None
    assert declined["room"]["approvals"] == []

    asked = json.loads(_ok(alice("move", room_id, "approve", "--as", "agent", "--json")).stdout)
    confirmation_id = asked["confirmation"]["id"]
    confirmed = _ok(alice("confirm", room_id, confirmation_id))  # --confirm is the default
    assert "approved by opener" in confirmed.stdout

    nothing = alice("confirm", room_id, "--confirm")
    assert nothing.exit_code == 1
    assert "(confirmation_not_found)" in nothing.stderr


def test_a_refusal_exits_1_with_the_code(alice: Person, bob: Person, server: LiveServer) -> None:
    room_id = open_and_join(alice, bob)
    refused = alice("move", room_id, "counter", "--terms", "price=90,day=2026-12-10")
    assert refused.exit_code == 1
    assert isinstance(refused.exception, SystemExit)  # a refusal, not a crash
    assert refused.stdout == ""
    assert re.fullmatch(r"error: .+ \(not_your_turn\)\n", refused.stderr)

    as_json = alice("move", room_id, "counter", "--terms", "price=90,day=2026-12-10", "--json")
    assert as_json.exit_code == 1
    with server.client(stored(alice)[room_id].owner_token) as api:
        body = {"type": "counter", "terms": {"price": {"amount_minor": 9000, "currency": "EUR"},
                                             "day": "2026-12-10"}}  # fmt: skip
        direct = api.post(f"/v1/rooms/{room_id}/moves", json=body)
    assert as_json.stdout == ""  # an error is never mistaken for an answer
    assert json.loads(as_json.stderr) == direct.json()
    assert direct.json()["error"]["code"] == "not_your_turn"


def test_a_refused_open_and_join(alice: Person, bob: Person) -> None:
    bad_schema = alice("open", "--schema", "price:money:XYZ")
    assert bad_schema.exit_code == 1
    assert "(invalid_request)" in bad_schema.stderr
    assert not alice.credentials.exists()

    used = bob("join", "invite_not-a-real-one")
    assert used.exit_code == 1
    assert "(invite_invalid)" in used.stderr


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["move", "room_x", "haggle"], id="unknown_move_type"),
        pytest.param(["open"], id="open_without_schema"),
        pytest.param(["open", "--schema", "price"], id="schema_without_type"),
        pytest.param(["open", "--schema", "{not json"], id="schema_bad_json"),
        pytest.param(["open", "--schema", SCHEMA, "--subject", "cost=5"], id="unknown_field"),
        pytest.param(["open", "--schema", SCHEMA, "--subject", "price=1.234"], id="too_precise"),
        pytest.param(["open", "--schema", SCHEMA, "--limits", "[1]"], id="limits_not_object"),
        pytest.param(["confirm", "room_x", "--decline", "--maybe"], id="unknown_option"),
        pytest.param(["show", "room_not_stored"], id="no_stored_token"),
        pytest.param(["show"], id="missing_room_id"),
    ],
)
def test_usage_errors_exit_2(alice: Person, args: list[str]) -> None:
    result = alice(*args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == ""


def test_the_credentials_file_is_private(alice: Person, bob: Person) -> None:
    room_id = open_and_join(alice, bob)
    for person, seat in ((alice, "opener"), (bob, "joiner")):
        assert stat.S_IMODE(person.credentials.stat().st_mode) == 0o600
        assert stat.S_IMODE(person.credentials.parent.stat().st_mode) == 0o700
        raw = json.loads(person.credentials.read_text())
        assert set(raw) == {room_id}
        assert set(raw[room_id]) == {"seat", "seat_token", "owner_token", "name", "server"}
        assert raw[room_id]["seat"] == seat
        assert raw[room_id]["server"] == alice.server.url
    assert list(alice.credentials.parent.iterdir()) == [alice.credentials]  # no temporary left


def test_tokens_are_never_printed_after_creation(alice: Person, bob: Person) -> None:
    room_id = open_and_join(alice, bob)
    tokens = stored(alice)[room_id]
    for args in (["show", room_id], ["list"], ["show", room_id, "--json"], ["list", "--json"]):
        result = _ok(alice(*args))
        for token in (tokens.owner_token, tokens.seat_token):
            assert token not in result.stdout + result.stderr
    assert tokens.owner_token not in repr(tokens)


def test_a_stored_token_goes_only_to_its_server(
    alice: Person, bob: Person, server: LiveServer
) -> None:
    room_id = open_and_join(alice, bob)
    elsewhere = alice.runner.invoke(
        app,
        ["rooms", "show", room_id, "--credentials", str(alice.credentials),
         "--server", "http://127.0.0.1:9"],
    )  # fmt: skip
    assert elsewhere.exit_code == 2
    assert "not sent to http://127.0.0.1:9" in elsewhere.stderr
    # Without --server, the room's own server is asked.
    default = alice.runner.invoke(
        app, ["rooms", "show", room_id, "--credentials", str(alice.credentials)]
    )
    assert default.exit_code == 0, default.stderr


def test_token_overrides_the_credentials_file(alice: Person, bob: Person, tmp_path: Any) -> None:
    room_id = open_and_join(alice, bob)
    stranger = Person(alice.runner, alice.server, tmp_path / "nobody.json")
    seat_token = stored(bob)[room_id].seat_token
    shown = json.loads(_ok(stranger("show", room_id, "--token", seat_token, "--json")).stdout)
    assert shown["seat"] == "joiner"
    wrong = stranger("show", room_id, "--token", "owner_wrong")
    assert wrong.exit_code == 1
    assert "(unauthenticated)" in wrong.stderr


def test_joining_into_the_openers_own_file_keeps_both(alice: Person) -> None:
    opened = json.loads(_ok(alice("open", "--schema", SCHEMA, "--json")).stdout)
    room_id = opened["room"]["room_id"]
    joined = alice("join", opened["invite"]["token"])
    assert joined.exit_code == 1
    assert "own --credentials file" in joined.stderr
    assert re.search(r"owner_token:\s+owner_", joined.stderr)  # shown once rather than lost
    assert stored(alice)[room_id].seat == "opener"


def test_list_all_includes_finished_rooms(alice: Person, bob: Person) -> None:
    room_id = open_and_join(alice, bob)
    _ok(bob("move", room_id, "cancel"))
    assert json.loads(_ok(alice("list", "--json")).stdout) == {"rooms": []}
    everything = json.loads(_ok(alice("list", "--all", "--json")).stdout)["rooms"]
    assert [(r["room_id"], r["state"]) for r in everything] == [(room_id, "closed")]
    assert room_id in _ok(alice("list", "--all")).stdout


def test_another_partys_text_cannot_drive_the_terminal(alice: Person, bob: Person) -> None:
    room_id = open_and_join(alice, bob)
    hostile = "[red]x[/red] \x1b[2J\u202e"
    _ok(bob("move", room_id, "counter", "--terms", "price=90,day=2026-12-10", "--message", hostile))
    shown = _ok(alice("show", room_id)).stdout
    assert "[red]x[/red]" in shown
    assert "\\x1b[2J" in shown
    assert "\x1b" not in shown
    assert "\u202e" not in shown


def test_server_and_credentials_from_the_environment(
    alice: Person, server: LiveServer, tmp_path: Any
) -> None:
    env = {"ACCORD_SERVER": server.url, "ACCORD_CREDENTIALS": str(tmp_path / "env.json")}
    opened = alice.runner.invoke(app, ["rooms", "open", "--schema", SCHEMA, "--json"], env=env)
    assert opened.exit_code == 0, opened.stderr
    room_id = json.loads(opened.stdout)["room"]["room_id"]
    assert store.load(tmp_path / "env.json")[room_id].server == server.url


def test_a_link_opens_the_room_in_a_browser_as_its_owner(
    alice: Person, bob: Person, server: LiveServer
) -> None:
    room_id = open_and_join(alice, bob)
    made = _ok(alice("link", room_id))
    url = made.stdout.strip()
    assert url.startswith(f"{server.url}/claim#") and "keep it to yourself" in made.stderr
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}) as browser:
        claimed = browser.post("/claim", data={"code": url.rsplit("#", 1)[1]})
        assert claimed.headers["location"] == f"/rooms/{room_id}"
        assert "You hold the opener seat." in browser.get(f"/rooms/{room_id}").text
    as_agent = alice("link", room_id, "--as", "agent")
    assert as_agent.exit_code == 1 and "forbidden" in as_agent.stderr  # only a person's own

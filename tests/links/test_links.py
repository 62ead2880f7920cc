"""Link codes (interfaces A4) and owner links (A5): a person's credential handed on once, never
kept in the clear, one refusal for a used, expired or unknown code; and a room opened or joined
with `owner_delivery: "link"`, whose owner token never leaves the server."""

import json
import re
from typing import Any

import pytest
from sqlalchemy import select

from accord.app.identity import CredentialKind, SeatCaller
from accord.app.principals import Principals
from accord.app.root import Accord
from accord.core.refusals import Refused
from accord.protocols.rooms.moves import JoinRequest, OpenRequest
from accord.store.tables import links as link_table
from tests.conftest import FakeClock, LiveServer
from tests.http.support import assert_error, auth, open_room

SCHEMA = {"n": {"type": "int"}}
CODE = re.compile(r"[A-Za-z0-9_-]{32}")


def _code(url: str) -> str:
    base, _, code = url.partition("#")
    assert base.endswith("/claim") and CODE.fullmatch(code), url
    return code


def _refused(accord: Accord, code: str) -> str:
    with pytest.raises(Refused) as refused:
        accord.links.redeem(code, "web")
    return str(refused.value.refusal.code)


def test_a_code_hands_on_the_same_credential_once(accord: Accord, clock: FakeClock) -> None:
    opened = accord.rooms.open(OpenRequest(subject_schema=SCHEMA, subject={"n": 1}))
    owner = opened["owner_token"]
    minted = accord.links.mint(owner)
    assert minted["expires_at"] == "2026-11-30T13:00:00Z"  # an hour
    code = _code(minted["web_url"])
    assert minted["code"] == code

    stored = accord.db.read(lambda conn: conn.execute(select(link_table)).all())
    assert owner not in json.dumps([list(map(str, row)) for row in stored])  # sealed, not kept
    assert code not in json.dumps([list(map(str, row)) for row in stored])  # only its hash

    redeemed = accord.links.redeem(code, "web")
    assert redeemed.token == owner
    assert redeemed.caller == SeatCaller(opened["room"]["room_id"], "opener", is_owner=True)
    assert _refused(accord, code) == "link_invalid"  # once
    assert _refused(accord, "A" * 32) == "link_invalid"  # unknown: the same refusal

    late = _code(accord.links.mint(owner)["web_url"])
    clock.advance(hours=1)
    assert _refused(accord, late) == "link_invalid"  # expired: the same refusal
    redemptions = accord.links.redemptions(opened["room"]["room_id"])
    assert [(r["party"], r["via"]) for r in redemptions] == [("opener", "web"), ("opener", None)]


@pytest.mark.parametrize("delivery_for", ["open", "join"])
def test_an_owner_link_stands_in_for_the_owner_token(accord: Accord, delivery_for: str) -> None:
    opened = accord.rooms.open(
        OpenRequest(
            subject_schema=SCHEMA,
            subject={"n": 1},
            owner_delivery="link" if delivery_for == "open" else "token",
        )
    )
    joined = accord.rooms.join(
        JoinRequest(
            invite_token=opened["invite"]["token"],
            owner_delivery="link" if delivery_for == "join" else "token",
        )
    )
    answer: dict[str, Any] = opened if delivery_for == "open" else joined
    assert "owner_token" not in answer
    assert answer["owner_link"]["expires_at"] == "2026-12-03T12:00:00Z"  # 72 hours
    redeemed = accord.links.redeem(_code(answer["owner_link"]["url"]), "telegram")
    party = "opener" if delivery_for == "open" else "joiner"
    assert redeemed.caller == SeatCaller(opened["room"]["room_id"], party, is_owner=True)
    room_id = opened["room"]["room_id"]
    assert accord.rooms.pending(redeemed.token, room_id) == {"confirmations": []}  # an owner's


def test_only_a_persons_own_credential_makes_a_link(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client)
        made = client.post("/v1/links", json={}, headers=auth(room.joiner_owner))
        assert made.status_code == 201, made.text
        assert made.json()["web_url"].endswith("#" + made.json()["code"])
        for agent in (room.joiner_seat, room.invite):
            assert_error(client.post("/v1/links", json={}, headers=auth(agent)), "forbidden")
        assert_error(client.post("/v1/links", json={}), "unauthenticated")
        assert_error(
            client.post("/v1/links", json={"for": "x"}, headers=auth(room.joiner_owner)),
            "invalid_request",
        )
        opened = client.post(
            "/v1/rooms",
            json={"subject_schema": SCHEMA, "owner_delivery": "link"},
        ).json()
        assert set(opened) == {"room", "seat_token", "owner_link", "limits_opening", "invite"}
        assert_error(
            client.post("/v1/rooms", json={"subject_schema": SCHEMA, "owner_delivery": "email"}),
            "invalid_request",
        )


def test_a_principals_owner_key_makes_a_link_and_its_agent_key_does_not(
    accord: Accord, clock: FakeClock
) -> None:
    principal = Principals(accord.db, clock=clock).create("linked")
    minted = accord.links.mint(principal["owner_key"])
    with pytest.raises(Refused) as elsewhere:  # a door that shows rooms only leaves it unused
        accord.links.redeem(minted["code"], "web", kinds={CredentialKind.OWNER})
    assert elsewhere.value.refusal.code == "not_found"
    assert accord.links.redeem(minted["code"], "web").token == principal["owner_key"]
    with pytest.raises(Refused) as refused:
        accord.links.check(principal["agent_key"])
    assert refused.value.refusal.code == "forbidden"

"""Receipts and keys over the real server: the JWKS and an agreed room's receipt fetched over
HTTP verify together with the log fetched over HTTP; no receipt while open or without a token."""

from typing import Any

import httpx

from accord.core.commit import commit
from accord.trust.encoding import b64url_decode
from accord.trust.keys import kid_for
from accord.trust.verify import load_trusted, verify_receipt
from tests.conftest import LiveServer
from tests.http.support import Room, assert_error, auth, open_room, terms


def _agree(client: httpx.Client) -> Room:
    room = open_room(client)
    counter = terms(9500)
    moved = client.post(
        room.moves, json={"type": "counter", "terms": counter}, headers=auth(room.joiner_seat)
    )
    assert moved.status_code == 200, moved.text
    approve = {"type": "approve", "subject_hash": commit(counter)}
    for owner in (room.opener_owner, room.joiner_owner):
        approved = client.post(room.moves, json=approve, headers=auth(owner))
        assert approved.status_code == 200, approved.text
    assert approved.json()["room"]["state"] == "agreed"
    return room


def _get(client: httpx.Client, url: str, token: str | None = None) -> Any:
    response = client.get(url, headers=auth(token))
    assert response.status_code == 200, response.text
    return response.json()


def test_jwks_lists_the_live_and_the_test_key_with_their_mode(server: LiveServer) -> None:
    with server.client() as client:
        response = client.get("/.well-known/jwks.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    keys = response.json()["keys"]
    assert sorted(k["mode"] for k in keys) == ["live", "test"]
    for key in keys:
        assert (key["kty"], key["crv"], key["alg"], key["use"]) == (
            "OKP",
            "Ed25519",
            "EdDSA",
            "sig",
        )
        assert key["kid"] == kid_for(b64url_decode(key["x"]))
        assert "d" not in key  # never the private half
    assert len(load_trusted(response.json())) == 2


def test_agreed_receipt_over_http_verifies_with_the_jwks_and_log_over_http(
    server: LiveServer,
) -> None:
    with server.client() as client:
        room = _agree(client)
        url = f"/v1/rooms/{room.room_id}"
        receipt = _get(client, f"{url}/receipt", room.joiner_seat)
        log = _get(client, f"{url}/log", room.opener_seat)["envelopes"]
        jwks = _get(client, "/.well-known/jwks.json")
        assert _get(client, f"{url}/receipt", room.opener_owner) == receipt  # stored, stable
    verification = verify_receipt(receipt, trusted=load_trusted(jwks), log=log)
    assert (verification.status, verification.ok, verification.signer) == ("valid", True, "pinned")
    assert all(c.ok for c in verification.checks)
    assert receipt["session_id"] == room.room_id and receipt["chain"]["length"] == len(log)
    live = next(k for k in jwks["keys"] if k["mode"] == "live")
    assert verification.kid == live["kid"]


def test_no_receipt_while_the_room_is_open_nor_without_a_token(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client)
        url = f"/v1/rooms/{room.room_id}/receipt"
        assert_error(client.get(url, headers=auth(room.opener_seat)), "room_open")
        assert client.get(url, headers=auth(room.opener_seat)).status_code == 409
        unauthenticated = client.get(url)
        assert unauthenticated.status_code == 401
        assert_error(unauthenticated, "unauthenticated")
        agreed = _agree(client)
        assert client.get(f"/v1/rooms/{agreed.room_id}/receipt").status_code == 401

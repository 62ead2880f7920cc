"""`subscriptions/listen` (interfaces.md, Resources): a client listening to its room hears
`resources/updated` when the room changes, in memory and over HTTP; a URI the bearer may not
read refuses the whole request without naming it; nothing reaches a seat from the other seat's
private records."""

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated

from accord.app.root import Accord
from accord.mcp.subscriptions import UNREADABLE
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from tests.conftest import LiveServer
from tests.mcp.conftest import SCHEMA, body, connected, servers_for, terms
from tests.mcp.test_http import over_http
from tests.mcp.test_principal_tools import CELLIST, QUARTET, _intent
from tests.principals.conftest import make_principal

pytestmark = pytest.mark.anyio


def _room(accord: Accord) -> dict[str, Any]:
    opened = accord.rooms.open(OpenRequest(subject_schema=SCHEMA, subject=terms(100)))
    joined = accord.rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    return {**opened, "joiner_seat": joined["seat_token"], "joiner_owner": joined["owner_token"]}


async def _next(events: Any, seconds: float = 10) -> Any:
    with anyio.fail_after(seconds):
        return await events.__anext__()


@contextlib.asynccontextmanager
async def _listening(client: Client, *uris: str) -> AsyncIterator[Any]:
    async with client.listen(resource_subscriptions=list(uris)) as subscription:
        yield subscription.__aiter__()


async def test_a_seat_hears_its_room_change(accord: Accord) -> None:
    room = _room(accord)
    room_id = room["room"]["room_id"]
    uri = f"accord://rooms/{room_id}"
    servers = servers_for(accord, room["seat_token"])
    client = Client(servers.rooms, raise_exceptions=True)
    listener = accord.events.listening()  # PostgreSQL: commits are heard through NOTIFY
    async with listener, client, _listening(client, uri, f"{uri}/log") as events:
        counter = MoveRequest(type="counter", terms=terms(90))
        await anyio.to_thread.run_sync(
            lambda: accord.rooms.move(room["joiner_seat"], room_id, counter)
        )
        heard = {await _next(events), await _next(events)}
        assert heard == {ResourceUpdated(uri), ResourceUpdated(f"{uri}/log")}


async def test_an_unreadable_uri_refuses_the_listen_without_naming_it(accord: Accord) -> None:
    mine, theirs = _room(accord), _room(accord)
    servers = servers_for(accord, mine["seat_token"])
    async with Client(servers.rooms, raise_exceptions=True) as client:
        for uri in (
            f"accord://rooms/{theirs['room']['room_id']}",
            "accord://rooms/room_unknown",
            "accord://sessions/ses_x",
            "https://example.com/x",
        ):
            with pytest.raises(MCPError) as refused:
                async with client.listen(resource_subscriptions=[uri]):
                    pass
            assert str(refused.value.error.message) == UNREADABLE
            assert uri not in refused.value.error.model_dump_json()


async def test_the_other_seats_private_records_never_wake_a_listener(accord: Accord) -> None:
    room = _room(accord)
    room_id = room["room"]["room_id"]
    uri = f"accord://rooms/{room_id}"
    servers = servers_for(accord, room["seat_token"])
    client = Client(servers.rooms, raise_exceptions=True)
    async with accord.events.listening(), client, _listening(client, uri) as events:
        # The joiner's agent asks its owner to confirm a reject: a record of the joiner's own.
        # The opener's listener hears nothing of it.
        ask = MoveRequest(type="reject")
        status, _ = await anyio.to_thread.run_sync(
            lambda: accord.rooms.move(room["joiner_seat"], room_id, ask)
        )
        assert status == 202
        with pytest.raises(TimeoutError):
            await _next(events, seconds=1)


async def test_listening_over_http(server: LiveServer) -> None:
    with server.client() as api:
        opened = api.post("/v1/rooms", json={"subject_schema": SCHEMA, "subject": terms(100)})
        room = opened.json()
        joined = api.post("/v1/rooms/join", json={"invite_token": room["invite"]["token"]})
    room_id = room["room"]["room_id"]
    uri = f"accord://rooms/{room_id}"
    async with over_http(server, room["seat_token"]) as client, _listening(client, uri) as events:
        with server.client(joined.json()["seat_token"]) as joiner:
            countered = joiner.post(
                f"/v1/rooms/{room_id}/moves", json={"type": "counter", "terms": terms(90)}
            )
            assert countered.status_code == 200, countered.text
        assert await _next(events) == ResourceUpdated(uri)


async def test_a_principal_hears_its_introduction_and_reads_it(accord: Accord) -> None:
    ada = make_principal(accord.principals, "ada-listen")
    bob = make_principal(accord.principals, "bob-listen")
    mine, theirs = _intent(accord, ada, CELLIST), _intent(accord, bob, QUARTET)
    async with connected(accord, ada.agent_key, tool_set="principal") as agent:
        opened = body(
            await agent.call_tool("intro_open", {"intent_id": mine, "candidates": [theirs]})
        )
        opportunity_id = opened["opportunities"][0]["opportunity_id"]
        uri = f"accord://opportunities/{opportunity_id}"
        read = await agent.read_resource(uri)
        assert json.loads(read.contents[0].text)["opportunity"]["opportunity_id"] == opportunity_id  # type: ignore[union-attr]
        async with accord.events.listening(), _listening(agent, uri) as events:
            turn = {"opportunity_id": opportunity_id, "action": "propose",
                    "message": "Saturday rehearsals?", "expected_turn_count": 0}  # fmt: skip
            body(await agent.call_tool("intro_turn", turn))
            assert await _next(events) == ResourceUpdated(uri)
    async with connected(accord, bob.agent_key, tool_set="principal") as other:
        with pytest.raises(MCPError):  # not bob's to read: refused, no URI named
            async with other.listen(resource_subscriptions=["accord://adviser/cases/case_x"]):
                pass

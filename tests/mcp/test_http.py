"""The MCP door over streamable HTTP in a real server on 127.0.0.1 (interfaces.md, MCP,
Transports): both protocol eras, the bearer choosing the tool set, a bad bearer 401 and a
person's credential 403 `agent_door` before MCP, a foreign Host 421; a room taken to its
verified receipt, the people confirming in their browsers; and the shop tool set's whole
haggle, as a buyer agent runs it."""

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from accord.app.merchants import Merchants
from accord.app.principals import Principals
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.mcp.conftest import (
    Confirm,
    agreed_receipt,
    approve_both,
    body,
    open_room,
    refusal,
    terms,
)
from tests.sessions.conftest import POLICY

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def over_http(
    server: LiveServer, token: str | None = None, *, mode: str = "auto"
) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        transport = streamable_http_client(f"{server.url}/mcp", http_client=http)
        async with Client(transport, mode=mode, raise_exceptions=True) as client:
            yield client


def _names(listed: Any) -> set[str]:
    return {tool.name for tool in listed.tools}


def _confirm_in_a_browser(server: LiveServer) -> Confirm:
    """The person claims the owner link in a browser and confirms on `owner_url`, the room's
    page: the owner credential never passes through the agent's client."""

    def confirm(seat: dict[str, Any], asked: dict[str, Any]) -> None:
        page = asked["owner_url"]
        with httpx.Client(base_url=server.url, headers={"Origin": server.url}) as browser:
            code = seat["owner_link"]["url"].rsplit("#", 1)[1]
            claimed = browser.post("/claim", data={"code": code})
            assert claimed.status_code == 303, claimed.text
            assert f"{server.url}{claimed.headers['location']}" == page
            decided = browser.post(
                f"{page}/confirmations/{asked['confirmation']['id']}",
                data={"decision": "confirm"},
            )
            assert decided.status_code == 303, decided.text

    return confirm


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_rooms_over_http_in_both_eras(server: LiveServer, mode: str) -> None:
    async with over_http(server, mode=mode) as agent:
        assert "room_open" in _names(await agent.list_tools())
        opened = await open_room(agent)
        joined = body(await agent.call_tool("room_join", {"invite": opened["invite"]["url"]}))
        countered = body(
            await agent.call_tool(
                "room_propose",
                {"seat_token": joined["seat_token"], "type": "counter", "terms": terms(42_000)},
            )
        )
        assert countered["move"]["type"] == "move.counter"
        with pytest.raises(MCPError) as malformed:
            await agent.call_tool("room_read", {"seat_token": 5})
        assert malformed.value.code == INVALID_PARAMS
        first = body(
            await agent.call_tool(
                "room_wait", {"seat_token": opened["seat_token"], "timeout_seconds": 1}
            )
        )
        await approve_both(
            agent,
            [opened, joined],
            countered["room"]["table"]["subject_hash"],
            _confirm_in_a_browser(server),
            base_url=server.url,
        )
        waited = body(
            await agent.call_tool(
                "room_wait",
                {
                    "seat_token": opened["seat_token"],
                    "after": first["last_event_id"],
                    "timeout_seconds": 5,
                },
            )
        )
        assert "room.agreed" in {e["data"]["type"] for e in waited["events"]}, waited
        verified = await agreed_receipt(agent, joined["seat_token"])
        jwks = await agent.read_resource("accord://jwks")
        served = json.loads(jwks.contents[0].text)  # type: ignore[union-attr]
        assert verified["kid"] in {key["kid"] for key in served["keys"]}  # this server signed it
    async with over_http(server, opened["seat_token"], mode=mode) as seat:
        read = body(await seat.call_tool("room_read", {}))  # the bearer is the seat token
        assert (read["state"], read["table"]["terms"]) == ("agreed", terms(42_000))


async def test_the_bearer_picks_the_tool_set_and_owner_credentials_stay_out(
    server: LiveServer,
) -> None:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        keys = Merchants(db, server.settings, clock=server.clock).create_tenant("mcp-shop")["keys"]
        principal = Principals(db, clock=server.clock).create("mcp-principal")
    finally:
        db.close()
    async with over_http(server, keys["publishable_test"]) as shop:
        tools = _names(await shop.list_tools())
        assert "shop_open" in tools and "room_open" not in tools
    async with over_http(server, principal["agent_key"]) as agent:
        assert "room_open" in _names(await agent.list_tools())
    with httpx.Client(base_url=server.url, timeout=10) as http:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for token, status, reason in (
            ("acc_unknown", 401, None),
            (keys["secret_test"], 403, "agent_door"),
            (principal["owner_key"], 403, "agent_door"),
        ):
            answer = http.post(
                "/mcp", json=initialize, headers={"Authorization": f"Bearer {token}"}
            )
            assert answer.status_code == status, answer.text
            if reason:
                assert answer.json()["error"]["reason"] == reason
        foreign = http.post(
            "/mcp",
            json=initialize,
            headers={"Host": "attacker.example", "Accept": "application/json, text/event-stream"},
        )
        assert foreign.status_code == 421


async def test_a_buyer_agent_haggles_and_accepts_through_the_shop_tools(server: LiveServer) -> None:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        keys = Merchants(db, server.settings, clock=server.clock).create_tenant("mcp-buy")["keys"]
    finally:
        db.close()
    with httpx.Client(base_url=server.url, timeout=10) as http:
        stored = http.put(
            f"/v1/policies/{POLICY['sku']}",
            json=POLICY,
            headers={"Authorization": f"Bearer {keys['secret_test']}"},
        )
        assert stored.status_code == 200, stored.text
    async with over_http(server, keys["publishable_test"]) as buyer:
        catalogue = body(await buyer.call_tool("shop_catalogue", {}))
        assert [item["sku"] for item in catalogue["items"]] == [POLICY["sku"]]
        opened = body(
            await buyer.call_tool(
                "shop_open", {"sku": POLICY["sku"], "buyer": {"agent_id": "mcp-buyer"}}
            )
        )
        token = opened["session_token"]
        assert opened["person_link"]["url"].startswith(f"{server.url}/claim#")
        fair = -(-POLICY["reference_price_minor"] * 100 // 105)  # ceil(reference / 1.05)
        for round_ in range(POLICY["max_rounds"]):
            view = body(
                await buyer.call_tool(
                    "shop_offer",
                    {"session_token": token, "price_minor": fair, "message_id": f"r{round_}"},
                )
            )
            if view["state"] != "negotiating":
                break
        refused = refusal(await buyer.call_tool("shop_claim_handoff", {"session_token": "nope"}))
        assert refused["code"] == "unauthenticated"
        read = body(await buyer.call_tool("shop_read", {"session_token": token}))
        assert read["log"]
        if read["state"] == "negotiating":
            body(await buyer.call_tool("shop_accept", {"session_token": token}))
        receipt = body(await buyer.call_tool("shop_receipt", {"session_token": token}))
        verified = body(
            await buyer.call_tool(
                "receipt_verify",
                {"receipt": receipt["receipt"], "log": receipt["envelopes"], "allow_test": True},
            )
        )
        assert verified["ok"], verified

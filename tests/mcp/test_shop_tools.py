"""The shop tool set through the MCP SDK's in-memory client, over the real application: a buyer
agent opens a session with a publishable key, offers, walks away, and is refused a move on the
ended session with the REST code."""

import pytest

from accord.app.identity import MerchantCaller
from accord.app.root import Accord
from accord.protocols.arbitrated.policy import PolicyRequest
from tests.mcp.conftest import body, connected, refusal
from tests.sessions.conftest import POLICY

pytestmark = pytest.mark.anyio


async def test_a_buyer_agent_walks_away(accord: Accord) -> None:
    keys = accord.merchants.create_tenant("mcp-shop")["keys"]
    secret = accord.doors.identify(keys["secret_test"])
    assert isinstance(secret, MerchantCaller)
    accord.merchants.put_policy(secret, POLICY["sku"], PolicyRequest.model_validate(POLICY))
    async with connected(accord, keys["publishable_test"], tool_set="shop") as buyer:
        opened = body(
            await buyer.call_tool(
                "shop_open", {"sku": POLICY["sku"], "buyer": {"agent_id": "mcp-walker"}}
            )
        )
        token = opened["session_token"]
        offered = body(
            await buyer.call_tool(
                "shop_offer", {"session_token": token, "price_minor": 39_905, "message_id": "o1"}
            )
        )
        assert offered["state"] == "negotiating"
        walked = body(await buyer.call_tool("shop_reject", {"session_token": token}))
        assert walked["state"] == "closed"
        late = refusal(
            await buyer.call_tool(
                "shop_offer", {"session_token": token, "price_minor": 40_000, "message_id": "o2"}
            )
        )
        assert late["code"] == "session_ended", late
        read = body(await buyer.call_tool("shop_read", {"session_token": token}))
        assert read["state"] == "closed"

"""The rooms tool set through the MCP SDK's in-memory client, over the real application: the
whole way to an agreement, in which the agents only ask and the people confirm with credentials
the agents never held; and each tool's refusals, which keep the REST codes."""

from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from accord.app.root import Accord
from accord.protocols.rooms.moves import ConfirmRequest
from tests.mcp.conftest import (
    agreed_receipt,
    approve_both,
    body,
    connected,
    open_room,
    refusal,
    terms,
)

pytestmark = pytest.mark.anyio


def _owner(accord: Accord, opened: dict[str, Any]) -> str:
    """What the person does with the owner link: redeem it (as the claim page does)."""
    code = opened["owner_link"]["url"].rsplit("#", 1)[1]
    return accord.links.redeem(code, "web").token


async def test_two_agents_reach_an_agreement_their_people_confirm(accord: Accord) -> None:
    async with connected(accord) as agent:
        alice = await open_room(agent, limits={"price": {"min": terms(40_000)["price"]}})
        assert "owner_token" not in alice  # the agent never holds its person's credential
        assert alice["owner_link"]["url"].startswith("http://127.0.0.1:8000/claim#")
        bob = body(
            await agent.call_tool("room_join", {"invite": alice["invite"]["url"], "limits": {}})
        )
        assert "owner_token" not in bob
        room_id = alice["room"]["room_id"]

        countered = body(
            await agent.call_tool(
                "room_propose",
                {
                    "seat_token": bob["seat_token"],
                    "type": "counter",
                    "terms": terms(42_000),
                    "message": "420, I collect Saturday",
                    "expected_seq": bob["room"]["seq"],
                    "message_id": "bob-1",
                },
            )
        )
        subject_hash = countered["room"]["table"]["subject_hash"]
        read = body(await agent.call_tool("room_read", {"seat_token": alice["seat_token"]}))
        assert read["available_moves"] == [
            "counter",
            "need_more_detail",
            "approve",
            "reject",
            "cancel",
        ]
        assert read["your_limits"] == {"price": {"min": terms(40_000)["price"]}}

        def confirm(seat: dict[str, Any], asked: dict[str, Any]) -> None:
            owner = _owner(accord, seat)
            accord.rooms.confirm(
                owner, room_id, asked["confirmation"]["id"], ConfirmRequest(decision="confirm")
            )

        await approve_both(
            agent, [alice, bob], subject_hash, confirm, base_url="http://127.0.0.1:8000"
        )
        verified = await agreed_receipt(agent, bob["seat_token"])
        (signer,) = [c for c in verified["checks"] if c["id"] == "signer"]
        assert signer["ok"]
        assert "trusting this server's keys as it serves them now" in signer["detail"]
        assert set(verified) == {"ok", "status", "kid", "signer", "checks"}  # `accord verify`'s
        waited = body(
            await agent.call_tool(
                "room_wait", {"seat_token": alice["seat_token"], "timeout_seconds": 1}
            )
        )
        kinds = {e["data"]["type"] for e in waited["events"]}
        assert {"room.agreed", "move.counter"} <= kinds
        assert "confirmation_needed" not in kinds  # an agent-level audience
        assert waited["last_event_id"] == waited["events"][-1]["id"]


async def test_refusals_keep_their_rest_codes(accord: Accord) -> None:
    async with connected(accord) as agent:
        alice = await open_room(agent)
        seat = alice["seat_token"]
        owner = _owner(accord, alice)
        cases: list[tuple[str, dict[str, Any], str]] = [
            ("room_read", {}, "unauthenticated"),
            ("room_read", {"seat_token": "seat_unknown"}, "unauthenticated"),
            ("room_read", {"seat_token": owner}, "forbidden"),
            (
                "room_propose",
                {"seat_token": owner, "type": "counter", "terms": terms(1)},
                "forbidden",
            ),
            ("room_propose", {"seat_token": seat, "type": "offer"}, "invalid_request"),
            (
                "room_propose",
                {"seat_token": seat, "type": "counter", "terms": terms(9)},
                "not_your_turn",
            ),
            ("room_respond", {"seat_token": seat, "decision": "approve"}, "invalid_request"),
            ("room_respond", {"seat_token": seat, "decision": "reject"}, "not_your_turn"),
            ("room_receipt", {"seat_token": seat}, "room_open"),
            ("room_join", {"invite": "invite_unknown"}, "invite_invalid"),
            ("room_open", {"subject_schema": {"n": {"type": "colour"}}}, "invalid_request"),
            ("room_list", {"seat_tokens": [seat, owner]}, "forbidden"),
            ("receipt_verify", {"receipt": {}, "jwks": {"keys": "none"}}, "invalid_request"),
        ]
        for tool, arguments, code in cases:
            error = refusal(await agent.call_tool(tool, arguments))
            assert error["code"] == code, (tool, arguments, error)
            if tool in ("room_read", "room_propose", "room_list") and code == "forbidden":
                assert error["reason"] == "agent_door"
        joined = body(await agent.call_tool("room_join", {"invite": alice["invite"]["token"]}))
        stale = refusal(
            await agent.call_tool(
                "room_propose",
                {
                    "seat_token": joined["seat_token"],
                    "type": "counter",
                    "terms": terms(44_000),
                    "expected_seq": 0,
                },
            )
        )
        assert stale["code"] == "raced"


@pytest.mark.parametrize(
    ("tool", "arguments", "fields"),
    [
        ("room_open", {"subject": terms(1)}, {"subject_schema": "Required"}),
        ("room_read", {"seat_token": 5}, {"seat_token": "Must be text"}),
        (
            "room_wait",
            {"seat_token": "seat_x", "timeout_seconds": 600},
            {"timeout_seconds": "Must be at most 60"},
        ),
        ("room_teleport", {}, None),
    ],
)
async def test_malformed_arguments_are_the_protocols_invalid_params(
    accord: Accord, tool: str, arguments: dict[str, Any], fields: dict[str, str] | None
) -> None:
    """Not a tool error: the arguments broke the tool's declared schema, and `data.fields`
    says where, never echoing what was sent."""
    async with connected(accord) as agent:
        with pytest.raises(MCPError) as raised:
            await agent.call_tool(tool, arguments)
    assert raised.value.code == INVALID_PARAMS
    if fields is None:
        assert raised.value.message == f"Unknown tool: {tool}"
    else:
        assert raised.value.error.data == {"fields": fields}
        assert "seat_x" not in str(raised.value.error)


async def test_the_bearer_stands_for_the_seat_token(accord: Accord) -> None:
    async with connected(accord) as anyone:
        alice = await open_room(anyone)
    async with connected(accord, alice["seat_token"]) as agent:
        read = body(await agent.call_tool("room_read", {}))
        assert read["room_id"] == alice["room"]["room_id"]
        listed = body(await agent.call_tool("room_list", {"seat_tokens": [alice["seat_token"]]}))
        assert [r["room_id"] for r in listed["rooms"]] == [alice["room"]["room_id"]]
        about = await agent.read_resource("accord://about")
        assert "Your person decides" in about.contents[0].text  # type: ignore[union-attr]
        room = await agent.read_resource(f"accord://rooms/{alice['room']['room_id']}")
        assert '"available_moves"' in room.contents[0].text  # type: ignore[union-attr]
    async with connected(accord, "seat_unknown") as stranger:
        refused = refusal(await stranger.call_tool("room_read", {}))
        assert refused["code"] == "unauthenticated"


async def test_wait_answers_at_the_first_event_or_the_timeout(accord: Accord) -> None:
    async with connected(accord) as agent:
        alice = await open_room(agent)
        seat = alice["seat_token"]
        first = body(await agent.call_tool("room_wait", {"seat_token": seat, "timeout_seconds": 1}))
        after = first["last_event_id"]
        nothing = body(
            await agent.call_tool(
                "room_wait", {"seat_token": seat, "after": after, "timeout_seconds": 1}
            )
        )
        assert nothing == {"events": [], "last_event_id": after}
        body(await agent.call_tool("room_join", {"invite": alice["invite"]["token"]}))
        joined = body(
            await agent.call_tool(
                "room_wait", {"seat_token": seat, "after": after, "timeout_seconds": 5}
            )
        )
        assert joined["events"][0]["data"]["type"] == "room.joined"


async def test_withdrawing_only_asks_and_the_person_ends_the_room(accord: Accord) -> None:
    async with connected(accord) as agent:
        alice = await open_room(agent)
        await agent.call_tool("room_join", {"invite": alice["invite"]["url"]})
        room_id = alice["room"]["room_id"]
        asked = body(
            await agent.call_tool(
                "room_withdraw",
                {"seat_token": alice["seat_token"], "message": "Sold elsewhere"},
            )
        )
        assert asked["status"] == "awaiting_owner"
        assert asked["owner_url"] == f"http://127.0.0.1:8000/rooms/{room_id}"
        assert asked["confirmation"]["type"] == "cancel"
        still = body(await agent.call_tool("room_read", {"seat_token": alice["seat_token"]}))
        assert still["state"] == "awaiting"  # nothing applied yet: the other side still waits
        accord.rooms.confirm(
            _owner(accord, alice),
            room_id,
            asked["confirmation"]["id"],
            ConfirmRequest(decision="confirm"),
        )
        ended = body(await agent.call_tool("room_read", {"seat_token": alice["seat_token"]}))
        assert ended["state"] == "closed", ended["state"]

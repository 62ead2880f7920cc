"""MCP tests: the door's servers over the real application, reached through the SDK's own
client (in memory, or over HTTP against a real server)."""

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from accord.app.root import Accord
from accord.mcp.servers import Servers, build

SCHEMA: dict[str, Any] = {"price": {"type": "money", "currency": "EUR"}, "day": {"type": "date"}}


def terms(amount: int, day: str = "2026-12-10") -> dict[str, Any]:
    return {"price": {"amount_minor": amount, "currency": "EUR"}, "day": day}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def servers_for(accord: Accord, token: str | None = None) -> Servers:
    return build(lambda: accord, token=token)


@asynccontextmanager
async def connected(
    accord: Accord, token: str | None = None, *, tool_set: str = "rooms"
) -> AsyncIterator[Client]:
    """A client of one tool set, in memory; `token` is the connection's bearer."""
    servers = servers_for(accord, token)
    async with Client(getattr(servers, tool_set), raise_exceptions=True) as client:
        yield client


def body(result: CallToolResult) -> dict[str, Any]:
    """A tool's answer: the structured body, which the text repeats."""
    assert not result.is_error, result.content
    structured: dict[str, Any] | None = result.structured_content
    assert structured is not None
    assert json.loads(result.content[0].text) == structured  # type: ignore[union-attr]
    return structured


def refusal(result: CallToolResult) -> dict[str, Any]:
    """A tool error: its text is the REST error body."""
    assert result.is_error, result.structured_content
    error: dict[str, Any] = json.loads(result.content[0].text)["error"]  # type: ignore[union-attr]
    return error


async def open_room(client: Client, **extra: Any) -> dict[str, Any]:
    """`room_open` of a bicycle at 450 EUR."""
    return body(
        await client.call_tool(
            "room_open",
            {"subject_schema": SCHEMA, "subject": terms(45_000), "title": "Bicycle", **extra},
        )
    )


Confirm = Callable[[dict[str, Any], dict[str, Any]], None]
"""The person's side of an approval: given the seat's `room_open`/`room_join` answer (its
`owner_link`) and `room_respond`'s answer, confirm it with a credential the agent never held."""


async def approve_both(
    agent: Client,
    seats: list[dict[str, Any]],
    subject_hash: str,
    confirm: Confirm,
    *,
    base_url: str,
) -> None:
    """Each seat's agent approves the table, which only asks; its person then confirms."""
    for n, seat in enumerate(seats):
        room_id = seat["room"]["room_id"]
        asked = body(
            await agent.call_tool(
                "room_respond",
                {
                    "seat_token": seat["seat_token"],
                    "decision": "approve",
                    "subject_hash": subject_hash,
                    "message_id": f"approve-{n}",
                },
            )
        )
        assert asked["status"] == "awaiting_owner"
        assert asked["owner_url"] == f"{base_url}/rooms/{room_id}"
        assert asked["confirmation"]["type"] == "approve"
        assert asked["room"]["state"] == "awaiting"  # nothing applied until the person confirms
        confirm(seat, asked)


async def agreed_receipt(agent: Client, seat_token: str) -> dict[str, Any]:
    """`room_receipt` of an agreed room, checked by `receipt_verify` against the server's keys;
    the verification's body."""
    receipt = body(await agent.call_tool("room_receipt", {"seat_token": seat_token}))
    assert receipt["envelopes"][-1]["type"] == "room.agreed"
    verified = body(
        await agent.call_tool(
            "receipt_verify", {"receipt": receipt["receipt"], "log": receipt["envelopes"]}
        )
    )
    assert (verified["ok"], verified["status"], verified["signer"]) == (True, "valid", "pinned")
    return verified

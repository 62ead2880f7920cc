"""MCP tests: the door's servers over the real application, reached through the SDK's own
client (in memory, or over HTTP against a real server)."""

import json
from collections.abc import AsyncIterator
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

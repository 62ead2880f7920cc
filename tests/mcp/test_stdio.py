"""`accord mcp` as an agent's client starts it: a process on the store, spoken to over stdio
through the SDK's own client; no token serves the rooms tools, `ACCORD_TOKEN` stands for the
bearer."""

import sys

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from accord.app.settings import Settings
from accord.store.database import Database
from tests.mcp.conftest import SCHEMA, body, terms

pytestmark = pytest.mark.anyio


def _process(settings: Settings, token: str | None = None) -> StdioServerParameters:
    env = {"ACCORD_TOKEN": token} if token else {}
    store = ["--data-dir", str(settings.data_dir), "--database-url", settings.database]
    return StdioServerParameters(
        command=sys.executable, args=["-m", "accord", "mcp", *store], env=env
    )


async def test_a_room_over_stdio(settings: Settings, db: Database) -> None:
    async with Client(stdio_client(_process(settings)), raise_exceptions=True) as agent:
        names = {tool.name for tool in (await agent.list_tools()).tools}
        assert {"room_open", "room_join", "receipt_verify"} <= names
        assert not any(name.startswith("shop_") for name in names)
        opened = body(
            await agent.call_tool("room_open", {"subject_schema": SCHEMA, "subject": terms(100)})
        )
    seat = opened["seat_token"]
    async with Client(stdio_client(_process(settings, seat)), raise_exceptions=True) as agent:
        read = body(await agent.call_tool("room_read", {}))  # the process's bearer
        assert read["room_id"] == opened["room"]["room_id"]
        assert read["table"]["terms"] == terms(100)

"""The tools each set lists, with their arguments, output schemas and hints, held to a snapshot
(tests/mcp/tools.json): a change to what an agent's client sees is a decision, made by
updating the snapshot (`ACCORD_TEST_UPDATE_SNAPSHOT=1`), never an accident."""

import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from accord.app.root import Accord
from tests.mcp.conftest import servers_for

pytestmark = pytest.mark.anyio
SNAPSHOT = Path(__file__).with_name("tools.json")


async def _listed(accord: Accord) -> dict[str, Any]:
    servers = servers_for(accord)
    listed: dict[str, Any] = {}
    for name in ("rooms", "shop", "principal"):
        async with Client(getattr(servers, name), raise_exceptions=True) as client:
            tools = (await client.list_tools()).tools
            listed[name] = {
                tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True)
                for tool in sorted(tools, key=lambda t: t.name)
            }
    return listed


async def test_tools_list_is_the_snapshot(accord: Accord) -> None:
    listed = await _listed(accord)
    if os.environ.get("ACCORD_TEST_UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text(json.dumps(listed, indent=2, sort_keys=True) + "\n")
    assert listed == json.loads(SNAPSHOT.read_text())


async def test_names_and_hints_follow_the_rules(accord: Accord) -> None:
    listed = await _listed(accord)
    for tools in listed.values():
        for name, tool in tools.items():
            assert name.replace("_", "").isalpha() and name.islower(), name
            hints = tool["annotations"]
            if hints.get("readOnlyHint"):
                assert not hints.get("destructiveHint"), name
    assert listed["rooms"]["room_respond"]["annotations"]["destructiveHint"] is True
    assert listed["shop"]["shop_accept"]["annotations"]["destructiveHint"] is True
    assert listed["shop"]["shop_claim_handoff"]["annotations"]["idempotentHint"] is True
    assert set(listed["rooms"]) <= set(listed["principal"])  # a principal also holds rooms

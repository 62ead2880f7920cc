"""The principal tool set through the in-memory client, with a principal's agent key as the
bearer: intents, discovery, an introduction opened and agreed by two agents, the chat, a
question to the person, adviser cases read; the person's decision left to the person's page;
and an owner key kept out by the agent door."""

from typing import Any

import pytest

from accord.app.identity import PrincipalCaller
from accord.app.root import Accord
from accord.protocols.intro.intents import IntentInput
from tests.mcp.conftest import body, connected, refusal
from tests.principals.conftest import Principal, make_principal

pytestmark = pytest.mark.anyio

CELLIST = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET = "A string quartet in Lyon wants a cellist on Saturdays"


def _intent(accord: Accord, who: Principal, statement: str) -> str:
    owner = accord.doors.identify(who.owner_key)
    assert isinstance(owner, PrincipalCaller)
    made = accord.intents.create(owner, IntentInput(statement=statement, visibility="public"))
    intent_id: str = made["intent"]["intent_id"]
    return intent_id


async def test_an_agent_key_works_intents_and_introductions(accord: Accord) -> None:
    ada = make_principal(accord.principals, "ada")
    bob = make_principal(accord.principals, "bob")
    mine, theirs = _intent(accord, ada, CELLIST), _intent(accord, bob, QUARTET)
    async with connected(accord, ada.agent_key, tool_set="principal") as agent:
        names = {tool.name for tool in (await agent.list_tools()).tools}
        assert {"intro_open", "adviser_case_read", "room_open", "receipt_verify"} <= names
        assert not any("decide" in name for name in names)  # the person decides, elsewhere
        intents = body(await agent.call_tool("intro_intents", {}))
        assert [i["intent_id"] for i in intents["intents"]] == [mine]
        found = body(await agent.call_tool("intro_discover", {"intent_id": mine}))
        assert theirs in [c["intent_id"] for c in found["candidates"]]
        opened = body(
            await agent.call_tool("intro_open", {"intent_id": mine, "candidates": [theirs]})
        )
        opportunity_id = opened["opportunities"][0]["opportunity_id"]
        again = body(
            await agent.call_tool("intro_open", {"intent_id": mine, "candidates": [theirs]})
        )
        assert again["opportunities"][0]["opportunity_id"] == opportunity_id  # idempotent
        read = body(await agent.call_tool("intro_read", {"opportunity_id": opportunity_id}))
        assert read["decide_url"] == f"http://127.0.0.1:8000/opportunities/{opportunity_id}"
        body(
            await agent.call_tool(
                "intro_turn",
                {
                    "opportunity_id": opportunity_id,
                    "action": "propose",
                    "message": "Saturday rehearsals?",
                    "expected_turn_count": 0,
                },
            )
        )
        asked = body(
            await agent.call_tool(
                "intro_ask",
                {
                    "opportunity_id": opportunity_id,
                    "questions": [
                        {"question": "Mornings or evenings?", "options": ["mornings", "evenings"],
                         "why": "Their rehearsals are on Saturday"}
                    ],
                },
            )
        )  # fmt: skip
        assert asked["questions"][0]["question"] == "Mornings or evenings?"
        posted = body(
            await agent.call_tool("intro_chat_post", {"intent_id": mine, "message": "Hi"})
        )
        assert posted
        chat = body(await agent.call_tool("intro_chat", {"intent_id": mine}))
        assert any(m.get("text", m.get("message")) == "Hi" for m in chat["messages"])
        stranger = refusal(await agent.call_tool("intro_read", {"opportunity_id": "opp_none"}))
        assert stranger["code"] == "not_found"
        waited = body(await agent.call_tool("intro_wait", {"timeout_seconds": 1}))
        assert waited["events"], waited

    async with connected(accord, bob.agent_key, tool_set="principal") as other:
        accepted = body(
            await other.call_tool(
                "intro_turn",
                {
                    "opportunity_id": opportunity_id,
                    "action": "accept",
                    "message": "Yes",
                    "expected_turn_count": 1,
                },
            )
        )
        assert accepted
        settled = body(await other.call_tool("intro_list", {"state": "settled"}))
        assert len(settled["negotiations"]) == 1
        cases = body(await other.call_tool("adviser_cases", {}))
        assert cases["cases"] == []
        missing = refusal(await other.call_tool("adviser_case_read", {"case_id": "case_none"}))
        assert missing["code"] == "not_found"

    async with connected(accord, ada.owner_key, tool_set="principal") as person:
        refused: dict[str, Any] = refusal(await person.call_tool("intro_intents", {}))
        assert (refused["code"], refused["reason"]) == ("forbidden", "agent_door")

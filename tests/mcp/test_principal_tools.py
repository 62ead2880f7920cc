"""The principal tool set through the in-memory client, with a principal's agent key as the
bearer: intents, discovery, an introduction opened and agreed by two agents, the chat, a
question to the person, adviser cases read; a round resumed on the person's new context, with a
brief the other side never sees; the person's decision left to the person's page; and an owner
key kept out by the agent door."""

from typing import Any

import pytest

from accord.app.identity import PrincipalCaller
from accord.app.root import Accord
from accord.protocols.intro.intents import ChatInput, IntentInput
from tests.mcp.conftest import body, connected, refusal
from tests.principals.conftest import Principal, make_principal

pytestmark = pytest.mark.anyio

CELLIST = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET = "A string quartet in Lyon wants a cellist on Saturdays"


def _owner(accord: Accord, who: Principal) -> PrincipalCaller:
    owner = accord.doors.identify(who.owner_key)
    assert isinstance(owner, PrincipalCaller)
    return owner


def _intent(accord: Accord, who: Principal, statement: str) -> str:
    made = accord.intents.create(
        _owner(accord, who), IntentInput(statement=statement, visibility="public")
    )
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


async def test_an_agent_resumes_a_round_on_its_persons_new_context(accord: Accord) -> None:
    ada = make_principal(accord.principals, "ada")
    bob = make_principal(accord.principals, "bob")
    mine, theirs = _intent(accord, ada, CELLIST), _intent(accord, bob, QUARTET)
    async with (
        connected(accord, ada.agent_key, tool_set="principal") as agent,
        connected(accord, bob.agent_key, tool_set="principal") as other,
        connected(accord, ada.owner_key, tool_set="principal") as person,
    ):
        opened = body(
            await agent.call_tool("intro_open", {"intent_id": mine, "candidates": [theirs]})
        )
        opportunity_id = opened["opportunities"][0]["opportunity_id"]
        declined = body(
            await agent.call_tool(
                "intro_turn",
                {
                    "opportunity_id": opportunity_id,
                    "action": "decline",
                    "message": "Not this week.",
                    "expected_turn_count": 0,
                },
            )
        )
        before = declined["negotiation"]
        assert (before["round"], before["protocol"]["blocked_reason"]) == (1, "round_over")

        def resume(brief: str, opportunity: str = opportunity_id) -> dict[str, Any]:
            return {"opportunity_id": opportunity, "brief": brief}

        # only the person gives new context: nothing yet, then the agent's own note is none
        nothing = refusal(await agent.call_tool("intro_resume", resume("Now")))
        assert nothing["code"] == "no_new_context"
        body(await agent.call_tool("intro_chat_post", {"intent_id": mine, "message": "A note"}))
        own_note = refusal(await agent.call_tool("intro_resume", resume("Now")))
        assert own_note["code"] == "no_new_context"
        accord.intents.post_message(
            _owner(accord, ada), mine, ChatInput(message="I am free on Sundays too")
        )  # on the person's own page, out of the agent's reach
        not_theirs = refusal(await other.call_tool("intro_resume", resume("Now")))
        assert not_theirs["code"] == "no_new_context"  # Ada's context opens no round for Bob
        door = refusal(await person.call_tool("intro_resume", resume("Now")))
        assert (door["code"], door["reason"]) == ("forbidden", "agent_door")
        unknown = refusal(await agent.call_tool("intro_resume", resume("Now", "opp_none")))
        assert unknown["code"] == "not_found"
        blank = refusal(await agent.call_tool("intro_resume", resume("   ")))
        assert (blank["code"], set(blank["fields"])) == ("invalid_request", {"brief"})

        resumed = body(await agent.call_tool("intro_resume", resume("BRIEF-SECRET: Sundays")))
        assert set(resumed) == {"negotiation", "counterparty"}
        after = resumed["negotiation"]
        assert after["opportunity_id"] == opportunity_id
        assert (after["round"], after["awaiting"], after["outcome"]) == (2, "initiator", None)
        assert after["turns_in_round"] == 0 and after["turn_count"] == before["turn_count"]
        assert after["protocol"]["available_actions"] == ["propose", "decline"]
        assert after["protocol"]["blocked_reason"] is None
        running = refusal(await agent.call_tool("intro_resume", resume("Again")))
        assert (running["code"], running["allowed"]) == ("move_not_allowed", ["propose", "decline"])
        body(
            await agent.call_tool(
                "intro_turn",
                {
                    "opportunity_id": opportunity_id,
                    "action": "propose",
                    "message": "Sundays as well?",
                    "expected_turn_count": after["turn_count"],
                },
            )
        )  # the resumed body is enough to take the next turn

        seen = await other.call_tool("intro_read", {"opportunity_id": opportunity_id})
        assert body(seen)["negotiation"]["round"] == 2
        text = seen.content[0].text  # type: ignore[union-attr]
        assert "Sundays as well?" in text  # the turn reaches Bob; the brief and context do not
        assert "BRIEF-SECRET" not in text and "Sundays too" not in text

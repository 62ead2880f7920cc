"""A principal's intro negotiations through `Accord.principal(key)` and its async twin, against
a real server on 127.0.0.1: two people's intents, discovery, an opportunity, the agents'
turns to an agreement, both acceptances and the identity they open; refusals as AccordError."""

import pytest

from accord.app.principals import Principals
from accord.sdk import Accord, AccordError, AsyncAccord
from accord.store.database import Database
from tests.cli.intro_support import CELLIST, QUARTET
from tests.conftest import FakeClock, LiveServer
from tests.principals.conftest import Principal, make_principal


@pytest.fixture
def people(db: Database, clock: FakeClock) -> tuple[Principal, Principal]:
    principals = Principals(db, clock=clock)
    return make_principal(principals, "ada"), make_principal(principals, "bea")


def test_two_principals_from_intents_to_an_introduction(
    accord: Accord, people: tuple[Principal, Principal]
) -> None:
    ada, bea = people
    ada_owner, ada_agent = accord.principal(ada.owner_key), accord.principal(ada.agent_key)
    bea_owner, bea_agent = accord.principal(bea.owner_key), accord.principal(bea.agent_key)
    assert ada_agent.me().key == "agent" and "acc_" not in repr(ada_agent)
    mine = ada_owner.create_intent({"statement": CELLIST, "visibility": "public"}).intent
    theirs = bea_owner.create_intent(
        {"statement": QUARTET, "visibility": "public", "identity": {"display_name": "Bea"}}
    ).intent
    (candidate,) = ada_agent.discover(mine.intent_id).candidates
    assert (candidate.intent_id, candidate.mutual) == (theirs.intent_id, True)
    (opportunity,) = ada_agent.open(mine.intent_id, [theirs.intent_id]).opportunities
    assert opportunity.created is True
    opportunity_id = opportunity.opportunity_id

    proposed = ada_agent.turn(opportunity_id, "propose", "Saturdays?", expected_turn_count=0)
    assert proposed.negotiation.awaiting == "responder"
    with pytest.raises(AccordError) as raced:
        bea_agent.turn(opportunity_id, "accept", "Yes", expected_turn_count=0)
    assert (raced.value.code, raced.value.status) == ("raced", 409)
    agreed = bea_agent.turn(opportunity_id, "accept", "Yes", expected_turn_count=1)
    assert agreed.negotiation.outcome == "agreed"
    assert agreed.counterparty.layers["identity"] == "closed"

    assert ada_owner.decide(opportunity_id, "accepted").opportunity.status == "pending"
    assert bea_owner.decide(opportunity_id, "accepted").opportunity.status == "accepted"
    seen = ada_agent.opportunity(opportunity_id)
    assert seen.counterparty.identity == {"display_name": "Bea"}
    assert seen.to_json()["counterparty"]["layers"]["identity"] == "open"
    assert [o.opportunity_id for o in bea_agent.opportunities().opportunities] == [opportunity_id]


def test_a_body_the_server_would_refuse_never_leaves(
    accord: Accord, people: tuple[Principal, Principal]
) -> None:
    owner = accord.principal(people[0].owner_key)
    with pytest.raises(AccordError) as refused:
        owner.create_intent({"statement": CELLIST})  # no visibility
    assert (refused.value.code, refused.value.status) == ("invalid_request", None)
    assert "visibility" in refused.value.details["fields"]


@pytest.mark.anyio
async def test_the_async_twin(server: LiveServer, people: tuple[Principal, Principal]) -> None:
    ada, bea = people
    async with AsyncAccord(server.url) as accord:
        ada_owner, ada_agent = accord.principal(ada.owner_key), accord.principal(ada.agent_key)
        bea_owner = accord.principal(bea.owner_key)
        assert (await ada_owner.me()).selected_agent_id == "default"
        network = await ada_owner.create_network("Lyon strings")
        assert network.invite_code is not None
        joined = await bea_owner.join_network(network.invite_code)
        assert [n.network_id for n in (await bea_owner.networks()).networks] == [joined.network_id]
        made = await ada_owner.create_intent({"statement": CELLIST, "visibility": "public"})
        intent_id = made.intent.intent_id
        await ada_agent.write(intent_id, "A question?")
        assert [m.author for m in (await ada_owner.chat(intent_id)).messages] == ["agent"]
        paused = await ada_owner.edit_intent(intent_id, {"status": "paused"})
        assert paused.intent.status == "paused"
        assert [i.intent_id for i in (await ada_agent.intents()).intents] == [intent_id]
        assert (await ada_agent.intent(intent_id)).intent.status == "paused"
        with pytest.raises(AccordError) as inactive:
            await ada_agent.discover(intent_id)
        assert inactive.value.code == "intent_inactive"


def test_rounds_questions_and_a_verified_receipt(
    accord: Accord, people: tuple[Principal, Principal]
) -> None:
    ada, bea = people
    ada_owner, ada_agent = accord.principal(ada.owner_key), accord.principal(ada.agent_key)
    bea_owner, bea_agent = accord.principal(bea.owner_key), accord.principal(bea.agent_key)
    mine = ada_owner.create_intent({"statement": CELLIST, "visibility": "public"}).intent
    theirs = bea_owner.create_intent({"statement": QUARTET, "visibility": "public"}).intent
    (opportunity,) = ada_agent.open(mine.intent_id, [theirs.intent_id]).opportunities
    opportunity_id = opportunity.opportunity_id

    (question,) = ada_agent.ask(
        opportunity_id, [{"question": "Which day?", "why": "to propose one"}]
    ).questions
    assert [q.status for q in ada_owner.questions(opportunity_id).questions] == ["open"]
    answered = ada_owner.answer(opportunity_id, question.question_id, "Saturday").question
    assert (answered.status, answered.answer) == ("answered", "Saturday")

    ada_agent.turn(opportunity_id, "decline", "Not this week.", expected_turn_count=0)
    with pytest.raises(AccordError) as stale:
        ada_agent.resume(opportunity_id, "Nothing new")
    assert stale.value.code == "no_new_context"
    ada_owner.write(mine.intent_id, "Next week works.")
    resumed = ada_agent.resume(opportunity_id, "Next week")
    assert (resumed.negotiation.round, resumed.negotiation.awaiting) == (2, "initiator")
    ada_agent.turn(opportunity_id, "propose", "Saturdays?", expected_turn_count=1)
    bea_agent.turn(opportunity_id, "accept", "Yes", expected_turn_count=2)

    (listed,) = bea_agent.negotiations(state="settled").negotiations
    assert (listed.opportunity_id, listed.outcome) == (opportunity_id, "agreed")
    log = bea_agent.log(opportunity_id)
    receipt = ada_agent.receipt(opportunity_id)
    checked = accord.receipts.verify(receipt, jwks=accord.receipts.jwks(), log=log)
    assert checked.ok, checked.to_json()

"""The `accord` agent's runner (accord/app/intro_agent.py) on the services themselves: it moves
only for a principal that selected `accord`, and however a strategy behaves it makes at most
`max_steps` moves per followed write, so two `accord` seats can never loop."""

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from accord.agents.intro import Move, Situation, TakeTurn
from accord.agents.llm import ToolCall
from accord.app import intro_agent
from accord.app.identity import PrincipalCaller
from accord.app.intro_agent import IntroAgent
from accord.app.root import Accord
from accord.protocols.intro.intents import IntentInput
from accord.protocols.intro.opportunities import OpenInput
from accord.protocols.intro.state import Action

CELLIST = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET = "A string quartet in Lyon wants a cellist on Saturdays"


def _owner(accord: Accord, name: str, *, built_in: bool) -> PrincipalCaller:
    made = accord.principals.create(name)
    owner = PrincipalCaller(made["principal_id"], "owner", None)
    if built_in:
        accord.principals.select_agent(owner, "accord")
    return owner


def _open(accord: Accord, ada: PrincipalCaller, bob: PrincipalCaller) -> str:
    mine = accord.intents.create(ada, IntentInput(statement=CELLIST, visibility="public"))
    theirs = accord.intents.create(bob, IntentInput(statement=QUARTET, visibility="public"))
    body = OpenInput(candidates=[theirs["intent"]["intent_id"]])
    opened = accord.opportunities.open(ada, mine["intent"]["intent_id"], body)
    opportunity_id: str = opened["opportunities"][0]["opportunity_id"]
    return opportunity_id


def _turns(accord: Accord, who: PrincipalCaller, opportunity_id: str) -> list[str]:
    seen = accord.opportunities.negotiation(who, opportunity_id)["negotiation"]
    return [f"{t['seat']} {t['action']}" for t in seen["turns"]]


def counter_forever(situation: Situation) -> Move:
    """A strategy that never stops talking: it counters whenever it may, else proposes."""
    allowed = situation.negotiation["protocol"]["available_actions"]
    action = Action.COUNTER if "counter" in allowed else Action.PROPOSE
    count = situation.negotiation["turn_count"]
    return TakeTurn(action, f"And what about turn {count}?")


def test_only_a_principal_that_selected_accord_is_played(accord: Accord) -> None:
    ada, bob = _owner(accord, "ada", built_in=False), _owner(accord, "bob", built_in=True)
    opportunity_id = _open(accord, ada, bob)
    assert _turns(accord, ada, opportunity_id) == []  # ada's own agent has the first turn


@pytest.mark.parametrize("max_steps", [1, 3, 7])
def test_a_followed_write_makes_at_most_max_steps_moves(
    accord: Accord, monkeypatch: pytest.MonkeyPatch, max_steps: int
) -> None:
    monkeypatch.setattr(intro_agent, "decide", counter_forever)
    runner = IntroAgent(
        accord.db, accord.opportunities, accord.principals, accord.intents, max_steps=max_steps
    )
    accord.opportunities.follow = runner.follow
    ada, bob = _owner(accord, "ada", built_in=True), _owner(accord, "bob", built_in=True)
    opportunity_id = _open(accord, ada, bob)
    turns = _turns(accord, ada, opportunity_id)
    assert len(turns) == max_steps
    assert turns[:2] == ["initiator propose", "responder counter"][:max_steps]


def test_with_a_model_a_write_does_not_wait_for_its_answer(accord: Accord) -> None:
    asked, release = threading.Event(), threading.Event()
    threads: list[str] = []

    def model(
        messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
    ) -> ToolCall:
        threads.append(threading.current_thread().name)
        asked.set()
        assert release.wait(10)
        return ToolCall("propose", {"message": "Saturdays in Lyon suit us both."})

    runner = IntroAgent(
        accord.db, accord.opportunities, accord.principals, accord.intents, model=model
    )
    accord.opportunities.follow = runner.follow
    ada, bob = _owner(accord, "ada", built_in=True), _owner(accord, "bob", built_in=False)
    opportunity_id = _open(accord, ada, bob)  # returns while the model is still thinking
    assert asked.wait(10)
    assert _turns(accord, ada, opportunity_id) == []
    release.set()
    runner.drain()
    turns = accord.opportunities.negotiation(ada, opportunity_id)["negotiation"]["turns"]
    assert [(t["seat"], t["action"], t["message"]) for t in turns] == [
        ("initiator", "propose", "Saturdays in Lyon suit us both.")
    ]
    assert threads == ["accord-intro-agent"]


def test_a_turn_a_stopped_server_left_is_taken_at_the_next_sweep(accord: Accord) -> None:
    follow = accord.opportunities.follow
    accord.opportunities.follow = lambda ids: None  # the server stopped before its agent moved
    ada, bob = _owner(accord, "ada", built_in=True), _owner(accord, "bob", built_in=False)
    opportunity_id = _open(accord, ada, bob)
    assert _turns(accord, ada, opportunity_id) == []
    accord.opportunities.follow = follow
    accord.sweep()
    assert _turns(accord, ada, opportunity_id) == ["initiator propose"]

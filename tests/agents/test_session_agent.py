"""The buyer agent of an arbitrated session on the session's real rules (the in-memory `Log`
the server runs): whatever the strategy, ceiling, declared utility and merchant, every move it
makes is accepted, its net price never falls, it never agrees above its ceiling, and a ceiling
at or above the merchant's opening ask always ends in agreement."""

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.agents.session_agent import (
    SessionAgent,
    SessionBriefError,
    SessionStep,
    read_session_brief,
)
from accord.agents.strategies import STRATEGIES
from accord.protocols.arbitrated.moves import AcceptMove, OfferMove, RejectMove
from tests.protocols.arbitrated.session_builder import Session, accepted, policy, request

FAIR_LOW = 39905  # ceil(41900 / 1.05), the builder's policy
OPENING = 44105  # floor(41900 / 0.95): its opening net ask


def play(agent: SessionAgent, session: Session) -> list[SessionStep]:
    steps: list[SessionStep] = []
    for _ in range(50):
        view = session.view()
        step = agent.decide(view, [e.to_json() for e in session.log])
        if step.kind == "done":
            return steps
        assert step.kind != "wait", "the buyer always has the turn in a live session"
        steps.append(step)
        body = step.body()
        move: Any = {"offer": OfferMove, "accept": AcceptMove, "reject": RejectMove}[step.kind]
        accepted(session.try_move(move.model_validate(body)))
    raise AssertionError("the session did not end")


@settings(max_examples=60, deadline=None)
@given(
    strategy=st.sampled_from(sorted(STRATEGIES)),
    ceiling=st.integers(FAIR_LOW - 300, OPENING + 3000),
    utility=st.sampled_from([None, "0", "0.5", "1"]),
    style=st.sampled_from(["boulware", "linear", "conceder"]),
    rounds=st.integers(1, 8),
)
def test_a_buyer_agent_keeps_the_rules_and_its_ceiling(
    strategy: str, ceiling: int, utility: str | None, style: str, rounds: int
) -> None:
    brief = read_session_brief(
        {"ceiling_minor": ceiling, "utilities": {} if utility is None else {"warranty": utility}}
    )
    session = Session(policy=policy(concession={"style": style}, max_rounds=8))
    session.open(request(**brief.declared(rounds)))
    steps = play(SessionAgent(brief, STRATEGIES[strategy], seed=1), session)

    nets = [s.net_minor for s in steps if s.kind == "offer" and s.net_minor is not None]
    assert len(nets) == sum(s.kind == "offer" for s in steps)
    assert nets == sorted(nets) and all(n >= FAIR_LOW for n in nets)
    state = session.view()["state"]
    if ceiling < FAIR_LOW:
        assert [s.kind for s in steps] == ["reject"]
    if state == "agreed":
        final = session.of_type("session.agree")[0].payload["final_terms"]
        worth = {"warranty": 3900 * float(utility or 0)}
        included = sum(worth.get(i["kind"], 0) for i in final.get("inclusions", []))
        assert final["price"]["amount_minor"] - included <= ceiling + 1  # W rounds half-even
    if ceiling >= OPENING:
        assert state == "agreed", [s.kind for s in steps]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({}, "ceiling_minor"),
        ({"ceiling_minor": 0}, "ceiling_minor"),
        ({"ceiling_minor": 100, "steps": 1}, "steps"),
        ({"ceiling_minor": 100, "surprise": 1}, "surprise"),
    ],
)
def test_a_session_brief_that_does_not_fit_says_why(document: Any, message: str) -> None:
    with pytest.raises(SessionBriefError, match=message):
        read_session_brief(document)


def test_a_declared_utility_must_be_a_decimal() -> None:
    brief = read_session_brief({"ceiling_minor": 100, "utilities": {"warranty": "2"}})
    with pytest.raises(SessionBriefError, match="decimal from 0 to 1"):
        brief.declared(5)

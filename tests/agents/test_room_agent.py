"""A built-in strategy at a live room's seat: the move it makes for each situation a room can
be in, read from the seat's view and the public log."""

from typing import Any

import pytest

from accord.agents.briefs import read_brief
from accord.agents.room_agent import RoomAgent
from accord.agents.strategies import STRATEGIES
from tests.agents.test_briefs import SCHEMA, SELLER, eur

BRIEF = read_brief(SCHEMA, SELLER)
BEST = {"price": eur(48000), "pickup": "2026-12-12", "lights": False, "colour": "blue"}


def room(**members: Any) -> dict[str, Any]:
    return {"state": "awaiting", "your_turn": True, "seat": "opener", "table": None,
            "approvals": []} | members  # fmt: skip


def offer(role: str, terms: dict[str, Any], kind: str = "move.counter") -> dict[str, Any]:
    return {"type": kind, "sender": {"role": role, "via": "agent"}, "payload": {"terms": terms}}


def table(terms: dict[str, Any], by: str = "joiner") -> dict[str, Any]:
    return {"terms": terms, "subject_hash": "sha256:" + "ab" * 32, "proposed_by": by}


def agent(name: str = "boulware", rounds: int = 10) -> RoomAgent:
    return RoomAgent(BRIEF, STRATEGIES[name], rounds)


def test_it_opens_with_its_best_terms() -> None:
    step = agent().decide(room(), [])
    assert step.kind == "offer" and step.terms == BEST
    assert step.utility == pytest.approx(1.0)


def test_it_waits_for_its_turn_and_stops_at_the_end() -> None:
    assert agent().decide(room(your_turn=False), []).kind == "wait"
    for state in ("agreed", "closed", "expired"):
        assert agent().decide(room(state=state), []).kind == "done"


def test_it_approves_terms_it_accepts() -> None:
    step = agent().decide(room(table=table(BEST)), [offer("joiner", BEST, "move.offer")])
    assert step.kind == "approve" and step.subject_hash == "sha256:" + "ab" * 32
    assert step.body() == {"type": "approve", "subject_hash": step.subject_hash}


def test_it_counters_terms_below_its_target() -> None:
    worst = {"price": eur(40000), "pickup": "2026-12-20", "lights": True, "colour": "green"}
    step = agent().decide(room(table=table(worst)), [offer("joiner", worst, "move.offer")])
    assert step.kind == "counter" and step.terms == BEST


def test_it_never_approves_terms_past_its_limits() -> None:
    """Even in its last round, when a strategy takes anything rational, terms past the seat's
    own limit are countered."""
    past = {**BEST, "price": eur(39000)}
    history = [offer("opener", BEST, "move.offer"), offer("joiner", past)] * 4
    step = agent("accord", rounds=5).decide(room(table=table(past)), history)
    assert step.kind == "counter"


def test_the_proposer_approves_once_the_other_side_has() -> None:
    mine = table(BEST, by="opener")
    approved = room(
        table=mine, approvals=[{"seat": "joiner", "subject_hash": mine["subject_hash"]}]
    )
    step = agent().decide(approved, [offer("opener", BEST, "move.offer")])
    assert step.kind == "approve"


def test_its_round_budget_is_its_own_offers() -> None:
    history = [offer("opener", BEST), offer("joiner", BEST)] * 3
    assert agent(rounds=3).decide(room(table=table(BEST)), history).kind == "out_of_rounds"


def test_a_move_waiting_for_the_person_stops_it() -> None:
    waiting = room(
        table=table(BEST), pending_confirmation={"id": "cnf_opener_1", "type": "approve"}
    )
    assert agent().decide(waiting, [offer("joiner", BEST, "move.offer")]).kind == "needs_owner"


def test_a_new_agent_replays_the_turns_it_did_not_see() -> None:
    """MiCRO remembers how far down its ranking it went: an agent started on a room under way
    goes on from there, as the one that made those moves would."""
    mine = BRIEF.preferences
    ranking = list(reversed(mine.ladder_list))
    theirs = [BRIEF.terms(n) for n in mine.ladder_list[:3]]  # new offers, each worst for us
    history: list[dict[str, Any]] = []
    continuous = agent("micro")
    for turn in range(3):
        current = room(table=table(theirs[turn - 1]) if turn else None)
        step = continuous.decide(current, history)
        history.append(offer("opener", step.terms or {}, "move.counter"))
        history.append(offer("joiner", theirs[turn]))
    assert [BRIEF.outcome(h["payload"]["terms"]) for h in history[::2]] == ranking[:3]
    fresh = agent("micro")
    last = room(table=table(theirs[2]))
    assert fresh.decide(last, history) == continuous.decide(last, history)

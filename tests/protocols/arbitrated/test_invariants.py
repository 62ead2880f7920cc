"""The invariants the server keeps, checked step by step (`broken_invariants`), agree with the
whole-log check the receipt reports (`invariants`): on every step of random sessions, honest
or with the step's envelopes tampered with; and each crafted bad step is caught
(spec/arbitrated-rest.md, Invariants)."""

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from accord.core.commit import Hash, commit
from accord.core.envelope import Envelope
from accord.protocols.arbitrated import fairness
from accord.protocols.arbitrated.arbiter import evaluate
from accord.protocols.arbitrated.invariants import (
    I1,
    I2,
    I4,
    I5,
    I7,
    OFFERS,
    SERVER_KEPT,
    broken_invariants,
    invariants,
)
from accord.protocols.arbitrated.moves import AcceptMove, RejectMove
from tests.protocols.arbitrated.session_builder import Session, Step, policy, request
from tests.protocols.arbitrated.test_session_properties import draw_offer, setups

EXAMPLES: Final = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
VERDICTS: Final = ("fair", "unfair_to_buyer", "unfair_to_merchant", "unscoreable")
TAMPERINGS: Final = (
    *("round", "price", "rescored", "justify"),  # an offer
    *("verdict", "score", "t"),  # an evaluation
    *("drop", "swap", "repeat"),  # any envelope
)


def relinked(envelopes: Sequence[Envelope], *, seq: int, prev_hash: Hash | None) -> list[Envelope]:
    """The envelopes numbered and linked again from `seq`, after `prev_hash`."""
    out: list[Envelope] = []
    for index, envelope in enumerate(envelopes):
        linked = replace(envelope, seq=seq + index, prev_hash=prev_hash)
        out.append(linked)
        prev_hash = commit(linked.to_json())
    return out


def with_payload(envelope: Envelope, **members: Any) -> Envelope:
    return replace(envelope, payload=dict(envelope.payload) | members)


def scored(evaluation: Envelope, score: fairness.Score) -> Envelope:
    """The arbiter's evaluation, with what it says of `score`."""
    return with_payload(
        evaluation,
        verdict=str(score.verdict),
        fairness_score=score.fairness_score,
        t_minor=score.t_minor,
        w_minor=score.w_minor,
        price_minor=score.price_minor,
    )


def full_check(session: Session, step: Step, appended: Sequence[Envelope]) -> set[str]:
    """What the whole-log check says of the log before `step`, followed by `appended`."""
    start = 0 if step.before is None else step.before.seq + 1
    kept = invariants(step.after, [*session.log[:start], *appended])
    return {name for name in SERVER_KEPT if not kept[name]}


def tampered(data: st.DataObject, step: Step) -> list[Envelope]:
    """The step's envelopes with one thing changed, then linked again or not."""
    envelopes = list(step.appended)
    assume(envelopes)
    offers = [i for i, e in enumerate(envelopes) if e.type in OFFERS]
    evaluations = [i for i, e in enumerate(envelopes) if e.type == "arbitration.evaluate"]
    kind = data.draw(st.sampled_from(TAMPERINGS), label="tampering")
    if kind in ("round", "price", "rescored", "justify"):
        assume(offers)
        i = data.draw(st.sampled_from(offers))
        offer = envelopes[i]
        if kind == "round":
            rounds = st.integers(0, step.after.max_rounds + 2)
            envelopes[i] = with_payload(offer, round=data.draw(rounds))
        elif kind in ("price", "rescored"):
            price = offer.payload["terms"]["price"]
            amount = max(0, price["amount_minor"] + data.draw(st.integers(-3000, 3000)))
            terms = offer.payload["terms"] | {"price": price | {"amount_minor": amount}}
            envelopes[i] = with_payload(offer, terms=terms)
            if kind == "rescored" and i + 1 in evaluations:
                envelopes[i + 1] = scored(envelopes[i + 1], evaluate(step.after, terms))
        else:
            envelopes[i] = with_payload(offer, justification="changed after the fact")
    elif kind in ("verdict", "score", "t"):
        assume(evaluations)
        i = data.draw(st.sampled_from(evaluations))
        payload = envelopes[i].payload
        if kind == "verdict":
            envelopes[i] = with_payload(envelopes[i], verdict=data.draw(st.sampled_from(VERDICTS)))
        elif kind == "score":
            score = data.draw(st.sampled_from([None, "0.0001", "1.0000", "9.9999"]))
            envelopes[i] = with_payload(envelopes[i], fairness_score=score)
        else:
            t = payload["t_minor"]
            moved = data.draw(st.integers(-3, 3)) if t is not None else None
            envelopes[i] = with_payload(envelopes[i], t_minor=None if moved is None else t + moved)
    else:
        i = data.draw(st.integers(0, len(envelopes) - 1))
        if kind == "drop":
            del envelopes[i]
        elif kind == "repeat":
            envelopes.insert(i, envelopes[i])
        else:
            assume(i + 1 < len(envelopes))
            envelopes[i], envelopes[i + 1] = envelopes[i + 1], envelopes[i]
    if data.draw(st.booleans(), label="linked again"):
        first = step.appended[0]
        return relinked(envelopes, seq=first.seq, prev_hash=first.prev_hash)
    return envelopes


def played(setup: tuple[dict[str, Any], dict[str, Any]], data: st.DataObject) -> Session:
    members, declared = setup
    session = Session(policy=policy(**members))
    session.open(request(**declared))
    for _ in range(data.draw(st.integers(0, 12), label="moves")):
        if session.current.is_final:
            break
        kind = data.draw(st.sampled_from(["offer"] * 8 + ["accept", "reject"]), label="move")
        if kind == "offer":
            session.try_move(draw_offer(data, session, members["floor_minor"]))
        elif kind == "accept":
            session.try_move(AcceptMove(type="accept"))
        else:
            session.try_move(RejectMove(type="reject"))
    return session


@EXAMPLES
@given(setup=setups(), data=st.data())
def test_the_step_check_agrees_with_the_whole_log_on_honest_steps(
    setup: tuple[dict[str, Any], dict[str, Any]], data: st.DataObject
) -> None:
    session = played(setup, data)
    for step in session.steps:
        assert broken_invariants(step.before, step.after, step.appended) == []
        assert full_check(session, step, step.appended) == set()


@EXAMPLES
@given(setup=setups(), data=st.data())
def test_the_step_check_agrees_with_the_whole_log_on_tampered_steps(
    setup: tuple[dict[str, Any], dict[str, Any]], data: st.DataObject
) -> None:
    session = played(setup, data)
    step = data.draw(st.sampled_from(session.steps), label="step")
    appended = tampered(data, step)
    broken = broken_invariants(step.before, step.after, appended)
    event(f"broken: {' '.join(name[:2] for name in broken) or 'none'}")
    assert set(broken) == full_check(session, step, appended)
    assert broken == [name for name in SERVER_KEPT if name in broken]


# -- crafted bad steps ---------------------------------------------------------------------


def _past_the_last_round(step: Step) -> list[Envelope]:
    offer, *rest = step.appended
    return [with_payload(offer, round=step.after.max_rounds + 1), *rest]


def _another_verdict(step: Step) -> list[Envelope]:
    offer, evaluation, *rest = step.appended
    return [offer, with_payload(evaluation, verdict="unfair_to_buyer"), *rest]


def _net_price_falling(step: Step) -> list[Envelope]:
    """The buyer's offer 2000 lower than the one before, scored as the arbiter scores it."""
    offer, evaluation, *rest = step.appended
    terms = offer.payload["terms"]
    lower = terms | {"price": terms["price"] | {"amount_minor": 39000}}
    return [
        with_payload(offer, terms=lower),
        scored(evaluation, evaluate(step.after, lower)),
        *rest,
    ]


def _no_verdict(step: Step) -> list[Envelope]:
    offer, _evaluation, *rest = step.appended
    return [offer, *rest]


def _changed_after_linking(step: Step) -> list[Envelope]:
    offer, *rest = step.appended
    return [with_payload(offer, justification="changed after the fact"), *rest]


def _numbered_on_from_elsewhere(step: Step) -> list[Envelope]:
    return [replace(e, seq=e.seq + 1) for e in step.appended]


def _a_second_beginning(step: Step) -> list[Envelope]:
    first, *rest = step.appended
    return [replace(first, prev_hash=None), *rest]


@pytest.mark.parametrize(
    ("craft", "linked_again", "broken"),
    [
        pytest.param(_past_the_last_round, True, [I1], id="I1_an_offer_past_the_last_round"),
        pytest.param(_another_verdict, True, [I2], id="I2_a_verdict_the_arbiter_did_not_give"),
        pytest.param(_net_price_falling, True, [I4], id="I4_the_buyers_net_price_falls"),
        pytest.param(_no_verdict, True, [I5], id="I5_an_offer_without_its_verdict"),
        pytest.param(_changed_after_linking, False, [I7], id="I7_changed_after_linking"),
        pytest.param(_numbered_on_from_elsewhere, False, [I7], id="I7_a_number_skipped"),
        pytest.param(_a_second_beginning, False, [I7], id="I7_a_second_log_start"),
        pytest.param(_no_verdict, False, [I5, I7], id="I5_I7_dropped_unlinked"),
    ],
)
def test_a_crafted_bad_step_is_caught(
    craft: Callable[[Step], list[Envelope]], linked_again: bool, broken: list[str]
) -> None:
    # The buyer offers 41000, then 41000 again: each countered (round 1, then round 2).
    session = Session()
    session.open(request(max_rounds=6, utilities={"warranty": "0.5", "case": "0.5"}))
    session.offer(41000)
    session.offer(41000)
    step = session.steps[-1]
    appended = craft(step)
    if linked_again:
        first = step.appended[0]
        appended = relinked(appended, seq=first.seq, prev_hash=first.prev_hash)
    assert broken_invariants(step.before, step.after, appended) == broken
    assert full_check(session, step, appended) == set(broken)

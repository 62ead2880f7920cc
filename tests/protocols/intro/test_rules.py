"""The intro rules (intro-negotiation.md, intro-api.md): each check order as a table with one
row per refusal code, in order, each row's call also wrong in every later way the situation
allows, so the row's code is the first that applies; then the grammar and the rounds."""

from collections.abc import Callable
from typing import Any

import pytest

from accord.core.commit import is_opening
from accord.core.refusals import Refusal, RefusalCode
from accord.protocols.intro.grammar import grammar_allows
from accord.protocols.intro.moves import (
    Close,
    IntentEdited,
    OwnerMessage,
    QuestionInput,
    Recheck,
)
from accord.protocols.intro.state import Checks, Seat
from tests.protocols.intro.conftest import (
    INITIATOR,
    RESPONDER,
    Talk,
    agent,
    other_agent,
    owner,
    paused,
)

C = RefusalCode
Setup = Callable[[Talk], Any]


def refused(result: Any) -> Refusal:
    assert isinstance(result, Refusal), f"accepted: {result}"
    return result


def agreed(t: Talk) -> None:
    t.play((INITIATOR, "propose"), (RESPONDER, "accept"))


def asked(seat: Seat) -> Setup:
    return lambda t: t.ask(seat)


def nothing(t: Talk) -> None:
    pass


# -- a turn: settled → intent_inactive → round_over → needs_principal → executor_changed →
#    not_your_turn → raced → invalid_request (values) → move_not_allowed → repeated_message


TURNS = [
    pytest.param(nothing, owner(INITIATOR), "counter", 5, C.FORBIDDEN, id="owner_takes_no_turn"),
    pytest.param(agreed, other_agent(INITIATOR), "nope", 0, C.SETTLED, id="settled"),
    pytest.param(
        nothing,
        agent(RESPONDER, intents_active=False),
        "nope",
        5,
        C.INTENT_INACTIVE,
        id="intent_inactive",
    ),
    pytest.param(paused, other_agent(RESPONDER), "nope", 5, C.ROUND_OVER, id="round_over"),
    pytest.param(
        asked(RESPONDER), other_agent(RESPONDER), "nope", 5, C.NEEDS_PRINCIPAL, id="needs_principal"
    ),
    pytest.param(
        nothing, other_agent(RESPONDER), "nope", 5, C.EXECUTOR_CHANGED, id="executor_changed"
    ),
    pytest.param(nothing, agent(RESPONDER), "nope", 5, C.NOT_YOUR_TURN, id="not_your_turn"),
    pytest.param(nothing, agent(INITIATOR), "nope", 5, C.RACED, id="raced"),
    pytest.param(nothing, agent(INITIATOR), "nope", None, C.INVALID_REQUEST, id="unknown_action"),
    pytest.param(
        nothing, agent(INITIATOR), "counter", None, C.MOVE_NOT_ALLOWED, id="counter_first"
    ),
]


@pytest.mark.parametrize(("setup", "actor", "action", "expected", "code"), TURNS)
def test_turn_check_order(
    talk: Talk, setup: Setup, actor: Any, action: str, expected: int | None, code: C
) -> None:
    setup(talk)
    before = (list(talk.envelopes), talk.state)
    assert refused(talk.try_turn(actor, action, expected=expected)).code == code
    assert (list(talk.envelopes), talk.state) == before


@pytest.mark.parametrize("message", ["", "   \n", "x" * 4001], ids=["empty", "blank", "too_long"])
def test_a_message_is_one_to_4000_characters_not_blank(talk: Talk, message: str) -> None:
    refusal = refused(talk.try_turn(INITIATOR, "counter", message))
    assert refusal.code == C.INVALID_REQUEST and "message" in refusal.details["fields"]
    talk.turn(INITIATOR, "propose", "é" * 4000)  # code points, not bytes


def test_a_repeated_message_is_refused_after_the_grammar(talk: Talk) -> None:
    talk.play((INITIATOR, "propose"))
    talk.turn(RESPONDER, "counter", "Which city?")
    talk.turn(INITIATOR, "propose", "Berlin.")
    assert refused(talk.try_turn(RESPONDER, "counter", "Which city?")).code == C.REPEATED_MESSAGE
    talk.turn(RESPONDER, "counter", "Which district?")
    assert refused(talk.try_turn(INITIATOR, "accept", "Berlin.")).code == C.MOVE_NOT_ALLOWED


def test_move_not_allowed_says_what_is(talk: Talk) -> None:
    refusal = refused(talk.try_turn(INITIATOR, "accept"))
    assert refusal.details == {"allowed": ["propose", "decline"]}


def test_raced_gives_the_turn_count(talk: Talk) -> None:
    talk.play((INITIATOR, "propose"))
    refusal = refused(talk.try_turn(RESPONDER, "counter", expected=0))
    assert refusal.code == C.RACED and refusal.details == {"turn_count": 1}


# -- resume: settled → intent_inactive → move_not_allowed → needs_principal →
#    executor_changed → invalid_request (values) → no_new_context


def paused_asking(t: Talk) -> None:
    paused(t)
    t.ask(RESPONDER)


RESUMES = [
    pytest.param(agreed, other_agent(RESPONDER), "", C.SETTLED, id="settled"),
    pytest.param(
        paused, agent(RESPONDER, intents_active=False), "", C.INTENT_INACTIVE, id="intent_inactive"
    ),
    pytest.param(nothing, other_agent(RESPONDER), "", C.MOVE_NOT_ALLOWED, id="round_running"),
    pytest.param(
        paused_asking, other_agent(RESPONDER), "", C.NEEDS_PRINCIPAL, id="needs_principal"
    ),
    pytest.param(paused, other_agent(RESPONDER), "", C.EXECUTOR_CHANGED, id="executor_changed"),
    pytest.param(paused, owner(RESPONDER), " ", C.INVALID_REQUEST, id="blank_brief"),
    pytest.param(paused, owner(RESPONDER), "New.", C.NO_NEW_CONTEXT, id="no_new_context"),
]


@pytest.mark.parametrize(("setup", "actor", "brief", "code"), RESUMES)
def test_resume_check_order(talk: Talk, setup: Setup, actor: Any, brief: str, code: C) -> None:
    setup(talk)
    before = (list(talk.envelopes), talk.state)
    assert refused(talk.try_resume(actor, brief)).code == code
    assert (list(talk.envelopes), talk.state) == before


def test_resume_in_a_running_round_lists_the_seat_actions(talk: Talk) -> None:
    assert refused(talk.try_resume(INITIATOR)).details == {"allowed": ["propose", "decline"]}
    assert refused(talk.try_resume(RESPONDER)).details == {"allowed": []}


# -- questions: forbidden → settled → needs_principal → executor_changed → values

Q = QuestionInput(question="May I share your city?", why="It bears on fit.")
QUESTIONS = [
    pytest.param(nothing, owner(INITIATOR), (), C.FORBIDDEN, id="owner_asks_not"),
    pytest.param(agreed, other_agent(INITIATOR), (Q,) * 4, C.SETTLED, id="settled"),
    pytest.param(
        asked(INITIATOR), other_agent(INITIATOR), (Q,) * 4, C.NEEDS_PRINCIPAL, id="needs_principal"
    ),
    pytest.param(nothing, other_agent(INITIATOR), (Q,) * 4, C.EXECUTOR_CHANGED, id="executor"),
    pytest.param(nothing, agent(INITIATOR), (Q,) * 4, C.INVALID_REQUEST, id="four_questions"),
    pytest.param(
        nothing,
        agent(INITIATOR),
        (QuestionInput(question="Which?", options=["only"], why="fit"),),
        C.INVALID_REQUEST,
        id="one_option",
    ),
    pytest.param(
        nothing,
        agent(INITIATOR),
        (QuestionInput(question="x" * 501, why="fit"),),
        C.INVALID_REQUEST,
        id="long_question",
    ),
]


@pytest.mark.parametrize(("setup", "actor", "questions", "code"), QUESTIONS)
def test_questions_check_order(
    talk: Talk, setup: Setup, actor: Any, questions: tuple[QuestionInput, ...], code: C
) -> None:
    setup(talk)
    before = (list(talk.envelopes), talk.state)
    assert refused(talk.try_ask(actor, *questions)).code == code
    assert (list(talk.envelopes), talk.state) == before


def test_the_other_seat_is_not_parked_by_questions(talk: Talk) -> None:
    talk.ask(RESPONDER)
    talk.turn(INITIATOR, "propose")
    assert refused(talk.try_turn(RESPONDER, "accept")).code == C.NEEDS_PRINCIPAL
    assert talk.log.last is not None


# -- answers: forbidden → not_found → invalid_request (values) → move_not_allowed


def test_answer_check_order(talk: Talk) -> None:
    (mine,) = talk.ask(INITIATOR)
    (theirs,) = talk.ask(RESPONDER)
    assert refused(talk.try_answer(agent(INITIATOR), theirs, "")).code == C.FORBIDDEN
    assert refused(talk.try_answer(INITIATOR, theirs, "")).code == C.NOT_FOUND
    assert refused(talk.try_answer(INITIATOR, mine, "x" * 2001)).code == C.INVALID_REQUEST
    talk.try_answer(INITIATOR, mine, "Yes, Berlin.")
    assert refused(talk.try_answer(INITIATOR, mine, "")).code == C.INVALID_REQUEST
    assert refused(talk.try_answer(INITIATOR, mine, "No.")).code == C.MOVE_NOT_ALLOWED
    question = talk.state.seat_private(INITIATOR).questions[mine]
    assert (question.status, question.answer, question.answered_in_chat) == (
        "answered",
        "Yes, Berlin.",
        False,
    )
    talk.turn(INITIATOR, "propose")  # answered: no longer parked


def test_an_owner_message_answers_every_open_question_in_chat(talk: Talk) -> None:
    talk.try_ask(INITIATOR, Q, QuestionInput(question="Budget?", options=["low", "high"], why="x"))
    talk.server(OwnerMessage(INITIATOR, "Share the city; budget is high."))
    questions = talk.state.seat_private(INITIATOR).questions.values()
    assert [(q.status, q.answer, q.answered_in_chat) for q in questions] == [
        ("answered", "Share the city; budget is high.", True)
    ] * 2
    assert talk.state.seat_private(INITIATOR).open_questions == 0


# -- the grammar -----------------------------------------------------------------------------

P, K, A, D = "propose", "counter", "accept", "decline"
GRAMMAR = [
    pytest.param([], INITIATOR, [P, D], id="opening"),
    pytest.param([(INITIATOR, P)], RESPONDER, [K, A, D], id="over_their_proposal"),
    pytest.param([(INITIATOR, P), (RESPONDER, K)], INITIATOR, [P, K, D], id="answering_counter"),
    pytest.param(
        [(INITIATOR, P), (RESPONDER, K), (INITIATOR, K)],
        RESPONDER,
        [K, D],
        id="their_proposal_stands",
    ),
    pytest.param(
        [(INITIATOR, P), (RESPONDER, K), (INITIATOR, P)], RESPONDER, [K, A, D], id="proposed_again"
    ),
]


@pytest.mark.parametrize(("turns", "seat", "allowed"), GRAMMAR)
def test_grammar(talk: Talk, turns: list[tuple[Seat, str]], seat: Seat, allowed: list[str]) -> None:
    talk.play(*turns)
    assert grammar_allows(talk.state, seat) == allowed


def test_a_counter_cannot_be_accepted(talk: Talk) -> None:
    talk.play((INITIATOR, P), (RESPONDER, K))
    assert refused(talk.try_turn(INITIATOR, A)).code == C.MOVE_NOT_ALLOWED


# -- rounds ----------------------------------------------------------------------------------


def _round_of_twelve(talk: Talk) -> None:
    """Twelve turns: the initiator proposes at 0 and 10, the rest are counters."""
    talk.play((INITIATOR, P), *[(RESPONDER if n % 2 else INITIATOR, K) for n in range(1, 10)])
    talk.play((INITIATOR, P), (RESPONDER, K))


def test_the_twelfth_turn_ends_the_round_and_the_proposal_stands(talk: Talk) -> None:
    _round_of_twelve(talk)
    assert talk.types[-2:] == ["turn.counter", "round.over"]
    assert talk.envelopes[-1].payload == {"round": 1, "reason": "max_turns"}
    state = talk.state
    assert (state.awaiting, state.round_over, state.turns_in_round) == (None, True, 12)
    assert state.standing_turn is not None and state.standing_turn.turn_index == 10
    assert refused(talk.try_turn(INITIATOR, P)).code == C.ROUND_OVER


def test_only_the_proposer_proposes_while_its_proposal_stands(talk: Talk) -> None:
    talk.play((INITIATOR, P), (RESPONDER, K), (INITIATOR, K))
    assert refused(talk.try_turn(RESPONDER, P)).details == {"allowed": ["counter", "decline"]}


def test_an_accept_on_the_twelfth_turn_settles_agreed(talk: Talk) -> None:
    talk.play((INITIATOR, P), *[(RESPONDER if n % 2 else INITIATOR, K) for n in range(1, 10)])
    talk.turn(INITIATOR, P, "Meet for coffee in Berlin.")
    talk.turn(RESPONDER, A)
    assert talk.types[-2:] == ["turn.accept", "negotiation.agreed"]
    assert talk.envelopes[-1].payload == {
        "final_terms": {
            "turn_index": 10,
            "proposal": "Meet for coffee in Berlin.",
            "proposed_by": "initiator",
        }
    }
    assert talk.state.outcome == "agreed" and talk.state.awaiting is None


def test_a_decline_ends_the_round_not_the_negotiation(talk: Talk) -> None:
    talk.play((INITIATOR, P), (RESPONDER, D))
    assert talk.envelopes[-1].payload == {"round": 1, "reason": "decline"}
    assert talk.state.outcome is None and talk.state.standing is None


def test_resume_needs_context_recorded_after_the_round_ended(talk: Talk) -> None:
    talk.server(OwnerMessage(RESPONDER, "Before the end."))
    talk.server(IntentEdited(RESPONDER))
    paused(talk)
    assert refused(talk.try_resume(RESPONDER)).code == C.NO_NEW_CONTEXT
    talk.server(OwnerMessage(RESPONDER, "I moved to Berlin."))
    assert refused(talk.try_resume(INITIATOR)).code == C.NO_NEW_CONTEXT  # the other seat's
    talk.resume(RESPONDER, "She moved to Berlin.")
    started = talk.envelopes[-1]
    assert started.type == "round.started"
    assert (started.payload["round"], started.payload["opened_by"]) == (2, "responder")
    ((party, record),) = talk.log.private[-1:]
    assert party == "responder" and record.type == "brief.committed"
    opening = {k: record.payload[k] for k in ("nonce", "brief")}
    assert is_opening(started.payload["brief_commitment"], opening)
    assert "Berlin" not in str([e.to_json() for e in talk.envelopes])
    state = talk.state
    assert (state.round, state.awaiting, state.turns_in_round) == (2, RESPONDER, 0)


@pytest.mark.parametrize("source", ["chat", "intent_edit", "answer"])
def test_each_kind_of_new_context_opens_the_next_round(talk: Talk, source: str) -> None:
    paused(talk)
    if source == "chat":
        talk.server(OwnerMessage(INITIATOR, "Widen to Hamburg."))
    elif source == "intent_edit":
        talk.server(IntentEdited(INITIATOR))
    else:
        (question,) = talk.ask(INITIATOR)
        talk.try_answer(INITIATOR, question, "Yes.")
    talk.resume(INITIATOR)
    assert refused(talk.try_resume(INITIATOR)).code == C.MOVE_NOT_ALLOWED


@pytest.mark.parametrize(
    ("seat", "allowed"),
    [(INITIATOR, [P, K, D]), (RESPONDER, [D])],
    ids=["proposer_resumes", "other_resumes_over_the_standing_proposal"],
)
def test_a_resumed_round_continues_the_grammar(talk: Talk, seat: Seat, allowed: list[str]) -> None:
    _round_of_twelve(talk)  # the initiator's proposal stands; the responder spoke last
    talk.server(IntentEdited(seat))
    talk.resume(seat)
    assert grammar_allows(talk.state, seat) == allowed
    talk.turn(seat, allowed[0])
    assert talk.state.turns_in_round == 1 and talk.state.round == 2


def test_an_accept_in_a_later_round_reports_that_round(talk: Talk) -> None:
    paused(talk, by=RESPONDER)
    talk.server(IntentEdited(RESPONDER))
    talk.resume(RESPONDER)
    talk.play((RESPONDER, P), (INITIATOR, A))
    assert talk.envelopes[-2].payload["round"] == 2
    assert talk.state.final_terms == {
        "turn_index": 2,
        "proposal": talk.state.turns[2].message,
        "proposed_by": "responder",
    }


def test_the_resuming_seat_may_propose_unless_theirs_stands(talk: Talk) -> None:
    paused(talk, by=RESPONDER)  # the initiator's proposal was cleared by the decline
    talk.server(IntentEdited(RESPONDER))
    talk.resume(RESPONDER)
    assert grammar_allows(talk.state, RESPONDER) == [P, D]  # its own decline is last


# -- what the service records ----------------------------------------------------------------


def test_checks_are_appended_only_when_they_change(talk: Talk) -> None:
    talk.server(Recheck(Checks(mutual=True, constraint_fit=True)))
    assert talk.types == ["negotiation.opened", "checks"]
    talk.server(Recheck(Checks(mutual=True, constraint_fit=False)))
    assert talk.types[-1] == "checks"


def test_a_close_settles_and_nothing_follows(talk: Talk) -> None:
    talk.server(Close("archived"))
    assert talk.envelopes[-1].payload == {"reason": "archived"}
    assert talk.state.outcome == "closed"
    assert refused(talk.server(Close("decided"))).code == C.SETTLED
    assert refused(talk.server(Recheck(Checks(mutual=False, constraint_fit=False)))).code == (
        C.SETTLED
    )
    assert refused(talk.try_turn(INITIATOR, P)).code == C.SETTLED

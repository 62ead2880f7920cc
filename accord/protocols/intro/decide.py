"""Deciding: what a call appends, or why it is refused, in the check orders of
spec/intro-api.md (Check order). Pure: time comes in as an argument, nonces as bytes.

What the service checks before the protocol sees a call (unauthenticated, not_found,
not_a_seat, the shape of the body, a repeated `message_id`) is not repeated here; a key that
may never do an act (`forbidden`) is refused first here too, so the table holds on its own.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from accord.core.envelope import Draft
from accord.core.protocol import Decision, Notice, PrivateDraft
from accord.core.refusals import Refusal, RefusalCode
from accord.core.times import format_time
from accord.protocols.intro.grammar import available_actions, grammar_allows
from accord.protocols.intro.moves import (
    AnswerMove,
    Close,
    IntentEdited,
    OwnerMessage,
    QuestionsRequest,
    Recheck,
    ResumeRequest,
    ServerMove,
    TurnRequest,
    answer_problems,
    questions_problems,
    resume_problems,
    turn_problems,
)
from accord.protocols.intro.state import (
    MAX_TURNS_PER_ROUND,
    PROTOCOL,
    SEATS,
    Action,
    Actor,
    Checks,
    IntroState,
    Key,
    Outcome,
    Seat,
)
from accord.trust.commitments import commit_set, private_set

SERVER: Final[Mapping[str, str]] = {"role": "server"}
Decided = Decision | Refusal


def _refuse(code: RefusalCode, message: str, **details: Any) -> Refusal:
    return Refusal(code, message, details)


def _invalid(problems: Mapping[str, str]) -> Refusal:
    return _refuse(
        RefusalCode.INVALID_REQUEST, "Fix the request: see fields.", fields=dict(problems)
    )


def _both(kind: str, **data: Any) -> list[Notice]:
    return [Notice(seat, kind, data) for seat in SEATS]


def _changed(state: IntroState, **after: Any) -> list[Notice]:
    fields = {
        "turn_count": state.turn_count,
        "round": state.round,
        "awaiting": state.awaiting,
        "outcome": state.outcome,
    }
    return _both("negotiation.changed", **(fields | after))


def open_negotiation(*, negotiation_id: str, opportunity_id: str, checks: Checks) -> Decision:
    """The opportunity was opened: the negotiation begins, the initiator owes the first turn,
    and the first checks are recorded."""
    opened = {
        "negotiation_id": negotiation_id,
        "opportunity_id": opportunity_id,
        "protocol": PROTOCOL,
        "max_turns_per_round": MAX_TURNS_PER_ROUND,
    }
    return Decision(
        public=[
            Draft("negotiation.opened", SERVER, opened),
            Draft("checks", SERVER, checks.model_dump()),
        ]
    )


# -- checks shared by the orders -------------------------------------------------------------


def _settled(state: IntroState) -> Refusal | None:
    if state.outcome is None:
        return None
    return _refuse(
        RefusalCode.SETTLED, f"The negotiation is {state.outcome}; nothing more is negotiated."
    )


def _inactive(actor: Actor) -> Refusal | None:
    if actor.intents_active:
        return None
    return _refuse(
        RefusalCode.INTENT_INACTIVE,
        "An intent of this pair is paused or archived; its owner reactivates it to go on.",
    )


def _needs_principal(state: IntroState, seat: Seat) -> Refusal | None:
    if not state.seat_private(seat).open_questions:
        return None
    return _refuse(
        RefusalCode.NEEDS_PRINCIPAL,
        "Your questions to your owner are open; wait for the answers.",
    )


def _executor(actor: Actor) -> Refusal | None:
    if actor.key is not Key.OTHER_AGENT:
        return None
    return _refuse(
        RefusalCode.EXECUTOR_CHANGED,
        "Another agent negotiates for this principal now; its owner selects the agent.",
    )


def _owner_forbidden(actor: Actor) -> Refusal | None:
    if actor.key is not Key.OWNER:
        return None
    return _refuse(
        RefusalCode.FORBIDDEN, "Turns and questions are the selected agent's; use its key."
    )


def _first(*checks: Refusal | None) -> Refusal | None:
    return next((c for c in checks if c is not None), None)


# -- a turn ----------------------------------------------------------------------------------


def decide_turn(state: IntroState, request: TurnRequest, actor: Actor, *, now: datetime) -> Decided:
    """forbidden → settled → intent_inactive → round_over → needs_principal → executor_changed
    → not_your_turn → raced → invalid_request (values) → move_not_allowed → repeated_message."""
    seat = actor.seat
    if refusal := _first(
        _owner_forbidden(actor), _settled(state), _inactive(actor), _round_over(state)
    ):
        return refusal
    if refusal := _first(_needs_principal(state, seat), _executor(actor)):
        return refusal
    if state.awaiting is not seat:
        return _refuse(RefusalCode.NOT_YOUR_TURN, "It is the other seat's turn; wait for it.")
    if request.expected_turn_count != state.turn_count:
        return _refuse(
            RefusalCode.RACED,
            "The negotiation moved on since you read it; read it again and decide anew.",
            turn_count=state.turn_count,
        )
    if problems := turn_problems(request):
        return _invalid(problems)
    action = Action(request.action)
    allowed = grammar_allows(state, seat)
    if action not in allowed:
        return _refuse(
            RefusalCode.MOVE_NOT_ALLOWED,
            f"{action} is not possible now; you may {', '.join(allowed)}.",
            allowed=[str(a) for a in allowed],
        )
    if state.last_message.get(seat) == request.message:
        return _refuse(
            RefusalCode.REPEATED_MESSAGE,
            "This is your own latest message again; say what is new, or decline.",
        )
    return _turn(state, seat, action, request.message, now=now)


def _round_over(state: IntroState) -> Refusal | None:
    if not state.round_over:
        return None
    return _refuse(
        RefusalCode.ROUND_OVER,
        "This round is over; new context from an owner opens the next (resume).",
    )


def _turn(
    state: IntroState, seat: Seat, action: Action, message: str, *, now: datetime
) -> Decision:
    turn_index, round_ = state.turn_count, state.round
    payload = {"turn_index": turn_index, "round": round_, "message": message}
    turn = {"seat": seat, "action": action, "created_at": format_time(now), **payload}
    public = [Draft(f"turn.{action}", {"role": seat}, payload)]
    notices = [Notice(seat.other, "negotiation.turn", {"turn": turn})]
    after: dict[str, Any] = {"turn_count": turn_index + 1, "awaiting": seat.other}
    if action is Action.ACCEPT:
        proposal = state.last
        assert proposal is not None, "the grammar allows accept only after a propose"
        final_terms = {
            "turn_index": proposal.turn_index,
            "proposal": proposal.message,
            "proposed_by": proposal.seat,
        }
        public.append(Draft("negotiation.agreed", SERVER, {"final_terms": final_terms}))
        after |= {"awaiting": None, "outcome": Outcome.AGREED}
        notices += _both("negotiation.settled", outcome=Outcome.AGREED)
    elif action is Action.DECLINE or state.turns_in_round + 1 == MAX_TURNS_PER_ROUND:
        reason = "decline" if action is Action.DECLINE else "max_turns"
        public.append(Draft("round.over", SERVER, {"round": round_, "reason": reason}))
        after["awaiting"] = None
        notices += _both("negotiation.round_over", round=round_, reason=reason)
    return Decision(public=public, notices=notices + _changed(state, **after))


# -- resume, questions, answers --------------------------------------------------------------


def decide_resume(
    state: IntroState, request: ResumeRequest, actor: Actor, *, nonce: str
) -> Decided:
    """settled → intent_inactive → move_not_allowed (a round is running) → needs_principal →
    executor_changed → invalid_request (values) → no_new_context."""
    seat = actor.seat
    if refusal := _first(_settled(state), _inactive(actor)):
        return refusal
    if not state.round_over:
        allowed = available_actions(state, seat, intents_active=actor.intents_active)
        return _refuse(
            RefusalCode.MOVE_NOT_ALLOWED,
            "A round is running; take your turn instead of resuming.",
            allowed=[str(a) for a in allowed],
        )
    if refusal := _first(_needs_principal(state, seat), _executor(actor)):
        return refusal
    if problems := resume_problems(request):
        return _invalid(problems)
    if state.seat_private(seat).context_after_round != state.round:
        return _refuse(
            RefusalCode.NO_NEW_CONTEXT,
            "Nothing new from your owner since the round ended; a resume needs new context.",
        )
    brief = private_set({"brief": request.brief}, nonce=nonce)
    round_ = state.round + 1
    started = {"round": round_, "opened_by": seat, "brief_commitment": commit_set(brief)}
    record = Draft("brief.committed", SERVER, {"round": round_, **brief})
    return Decision(
        public=[Draft("round.started", SERVER, started)],
        private=[PrivateDraft(seat, record)],
        notices=_changed(state, round=round_, awaiting=seat),
    )


def decide_questions(state: IntroState, request: QuestionsRequest, actor: Actor) -> Decided:
    """forbidden → settled → needs_principal → executor_changed → invalid_request (values)."""
    seat = actor.seat
    if refusal := _first(
        _owner_forbidden(actor),
        _settled(state),
        _needs_principal(state, seat),
        _executor(actor),
    ):
        return refusal
    if problems := questions_problems(request):
        return _invalid(problems)
    asked = len(state.seat_private(seat).questions)
    questions = [
        {
            "question_id": f"q_{seat}_{asked + n}",
            "question": item.question,
            "options": item.options,
            "why": item.why,
        }
        for n, item in enumerate(request.questions, start=1)
    ]
    ids = [q["question_id"] for q in questions]
    return Decision(
        private=[PrivateDraft(seat, Draft("questions.asked", SERVER, {"questions": questions}))],
        notices=[Notice(seat, "questions.asked", {"question_ids": ids}, owner_only=True)],
    )


def decide_answer(state: IntroState, move: AnswerMove, actor: Actor) -> Decided:
    """forbidden (only the owner answers) → not_found (not this seat's question) →
    invalid_request (values) → move_not_allowed (already answered)."""
    seat = actor.seat
    if actor.key is not Key.OWNER:
        return _refuse(RefusalCode.FORBIDDEN, "Only the owner key answers its agent's questions.")
    question = state.seat_private(seat).questions.get(move.question_id)
    if question is None:
        return _refuse(RefusalCode.NOT_FOUND, "No such question of yours; list your questions.")
    if problems := answer_problems(move.request):
        return _invalid(problems)
    if question.status != "open":
        return _refuse(
            RefusalCode.MOVE_NOT_ALLOWED, "This question is answered already.", allowed=[]
        )
    answered = _answered(seat, [move.question_id], move.request.answer, in_chat=False)
    return Decision(
        private=[*answered, *_new_context(state, seat, "answer")],
        notices=[Notice(seat, "questions.answered", {"question_ids": [move.question_id]})],
    )


def _answered(
    seat: Seat, question_ids: Sequence[str], answer: str, *, in_chat: bool
) -> list[PrivateDraft]:
    return [
        PrivateDraft(
            seat,
            Draft(
                "question.answered",
                SERVER,
                {"question_id": q, "answer": answer, "answered_in_chat": in_chat},
            ),
        )
        for q in question_ids
    ]


def _new_context(state: IntroState, seat: Seat, source: str) -> list[PrivateDraft]:
    """intro-api.md, Resume: only new context recorded after the round ended opens the next;
    the record names that round, so the fold needs no order between the two logs."""
    if state.is_settled or not state.round_over:
        return []
    noted = {"source": source, "after_round": state.round}
    return [PrivateDraft(seat, Draft("context.noted", SERVER, noted))]


# -- what the service records ----------------------------------------------------------------


def decide_server(state: IntroState, move: ServerMove) -> Decided:
    """Facts the service records. The checks and a close end nothing once settled (the chain
    ends at the settlement); an owner's message or an intent edit is new context only between
    rounds, and answers the seat's open questions whenever it comes."""
    match move:
        case Recheck(checks):
            if refusal := _settled(state):
                return refusal
            if checks == state.checks:
                return Decision()
            return Decision(public=[Draft("checks", SERVER, checks.model_dump())])
        case Close(reason):
            if refusal := _settled(state):
                return refusal
            return Decision(
                public=[Draft("negotiation.closed", SERVER, {"reason": reason})],
                notices=[
                    *_both("negotiation.settled", outcome=Outcome.CLOSED),
                    *_changed(state, awaiting=None, outcome=Outcome.CLOSED),
                ],
            )
        case OwnerMessage(seat, message):
            mine = state.seat_private(seat)
            open_ids = [q.question_id for q in mine.questions.values() if q.status == "open"]
            notices = (
                [Notice(seat, "questions.answered", {"question_ids": open_ids})] if open_ids else []
            )
            return Decision(
                private=[
                    *_answered(seat, open_ids, message, in_chat=True),
                    *_new_context(state, seat, "chat"),
                ],
                notices=notices,
            )
        case IntentEdited(seat):
            return Decision(private=_new_context(state, seat, "intent_edit"))
    raise AssertionError(f"not a server move: {move!r}")

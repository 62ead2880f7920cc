"""Folding envelopes into negotiation state: `apply` for the public log, `apply_private` for a
seat's private records. Both return a new state and never mutate; the two touch separate
members, so replaying the private records after the whole log gives the same state."""

from typing import Any

from accord.core.envelope import Envelope
from accord.protocols.intro.state import (
    SEATS,
    Action,
    Checks,
    Disclosure,
    IntroState,
    Outcome,
    Question,
    Seat,
    Turn,
)


def apply(state: IntroState | None, envelope: Envelope) -> IntroState:
    payload = envelope.payload
    if envelope.type == "negotiation.opened":
        assert state is None, "negotiation.opened must be the first envelope"
        return IntroState(
            negotiation_id=payload["negotiation_id"],
            opportunity_id=payload["opportunity_id"],
            seq=envelope.seq,
            created_at=envelope.ts,
            updated_at=envelope.ts,
        )
    assert state is not None, "an intro log starts with negotiation.opened"
    update: dict[str, Any] = {"seq": envelope.seq, "updated_at": envelope.ts}
    match envelope.type:
        case "checks":
            checks = Checks.model_validate(payload)
            update |= {"checks": checks, "disclosure": _disclosed(state, checks, state.engaged)}
        case "round.over":
            update |= {"round_over": True, "awaiting": None}
        case "round.started":
            update |= {
                "round": payload["round"],
                "round_over": False,
                "turns_in_round": 0,
                "awaiting": Seat(payload["opened_by"]),
            }
        case "negotiation.agreed":
            update |= {
                "outcome": Outcome.AGREED,
                "awaiting": None,
                "final_terms": payload["final_terms"],
            }
        case "negotiation.closed":
            update |= {"outcome": Outcome.CLOSED, "awaiting": None}
        case kind if kind.startswith("turn."):
            update |= _turn(state, envelope)
        case _:
            raise AssertionError(f"unknown intro envelope type {envelope.type!r}")
    return state.model_copy(update=update)


def _turn(state: IntroState, envelope: Envelope) -> dict[str, Any]:
    seat, action = Seat(envelope.sender["role"]), Action(envelope.type.removeprefix("turn."))
    payload = envelope.payload
    turn = Turn(
        turn_index=payload["turn_index"],
        round=payload["round"],
        seat=seat,
        action=action,
        message=payload["message"],
        created_at=envelope.ts,
    )
    standing = state.standing
    if action is Action.PROPOSE:
        standing = turn.turn_index
    elif action is Action.DECLINE:  # DESIGN, Intro: a decline clears any standing proposal
        standing = None
    engaged = state.engaged
    if action is not Action.DECLINE and seat not in engaged:
        engaged = tuple(s for s in SEATS if s in (*engaged, seat))
    return {
        "turns": (*state.turns, turn),
        "turns_in_round": state.turns_in_round + 1,
        "awaiting": seat.other,
        "standing": standing,
        "last_message": state.last_message | {seat: turn.message},
        "engaged": engaged,
        "disclosure": _disclosed(state, state.checks, engaged),
    }


def _disclosed(state: IntroState, checks: Checks | None, engaged: tuple[Seat, ...]) -> Disclosure:
    """What has now ever held, for layers that once open stay open."""
    was = state.disclosure
    mutual = checks is not None and checks.mutual
    fit = checks is not None and checks.constraint_fit
    ever_mutual = was.mutual or mutual
    mutual_engaged = was.mutual_engaged or (mutual and len(engaged) == len(SEATS))
    return Disclosure(
        mutual=ever_mutual,
        mutual_engaged=mutual_engaged,
        fit_since_mutual=was.fit_since_mutual or (ever_mutual and fit),
        fit_since_mutual_engaged=was.fit_since_mutual_engaged or (mutual_engaged and fit),
    )


def apply_private(state: IntroState, seat: Seat, record: Envelope) -> IntroState:
    mine = state.seat_private(seat)
    payload = record.payload
    match record.type:
        case "questions.asked":
            asked = {q["question_id"]: Question.model_validate(q) for q in payload["questions"]}
            mine = mine.model_copy(
                update={
                    "questions": mine.questions | asked,
                    "open_questions": mine.open_questions + len(asked),
                }
            )
        case "question.answered":
            question = mine.questions[payload["question_id"]]
            answered = question.model_copy(
                update={
                    "status": "answered",
                    "answer": payload["answer"],
                    "answered_in_chat": payload["answered_in_chat"],
                }
            )
            mine = mine.model_copy(
                update={
                    "questions": mine.questions | {question.question_id: answered},
                    "open_questions": mine.open_questions - (question.status == "open"),
                }
            )
        case "context.noted":
            mine = mine.model_copy(update={"context_after_round": payload["after_round"]})
        case "brief.committed":
            return state  # kept for the seat to prove its brief; no rule reads it
        case _:
            raise AssertionError(f"unknown intro private record type {record.type!r}")
    return state.model_copy(update={"private": state.private | {seat: mine}})

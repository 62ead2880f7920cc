"""Builders for the intro agent's rules: a situation read from a real intro log (the protocol's
own views of it), with the seat's own intent, the other side's view and its owner's private
text given by the test."""

from collections.abc import Mapping, Sequence
from typing import Any

from accord.agents.intro import Ask, Move, OwnIntent, Resume, Situation, TakeTurn
from accord.core.protocol import Decision
from accord.core.refusals import Refusal
from accord.protocols.intro.moves import QuestionInput
from accord.protocols.intro.state import Seat
from accord.protocols.intro.views import negotiation_view, questions_view
from tests.protocols.intro.conftest import Talk, agent

OPEN_LAYERS: Mapping[str, str] = {"statement": "open", "constraints": "open", "identity": "closed"}
CELLIST = "A cellist for a string quartet in Lyon"
CELLIST_INTENT = OwnIntent(CELLIST)


def counterparty(
    *,
    statement: str | None = "A string quartet in Lyon wants a cellist",
    constraints: Sequence[Mapping[str, Any]] | None = (),
) -> dict[str, Any]:
    """The other side's view: a layer is open when its member is given."""
    shown: dict[str, Any] = {
        "layers": {
            "statement": "closed" if statement is None else "open",
            "constraints": "closed" if constraints is None else "open",
            "identity": "closed",
        }
    }
    if statement is not None:
        shown["statement"] = statement
    if constraints is not None:
        shown["constraints"] = [dict(c) for c in constraints]
    return shown


def situation_of(
    talk: Talk,
    seat: Seat,
    *,
    intent: OwnIntent = CELLIST_INTENT,
    other: Mapping[str, Any] | None = None,
    private: Sequence[str] = (),
    active: bool = True,
) -> Situation:
    state = talk.state
    return Situation(
        seat=seat,
        negotiation=negotiation_view(state, seat, intents_active=active),
        counterparty=counterparty() if other is None else other,
        intent=intent,
        checks=state.checks,
        questions=questions_view(state, seat),
        private=private,
        new_context=state.seat_private(seat).context_after_round == state.round,
    )


def apply_move(talk: Talk, seat: Seat, move: Move) -> Decision | Refusal | None:
    """The agent's move through the protocol (None for a wait)."""
    match move:
        case TakeTurn(action, message):
            return talk.try_turn(agent(seat), str(action), message)
        case Ask(questions):
            drafts = [
                QuestionInput(question=q.question, options=q.options, why=q.why) for q in questions
            ]
            return talk.try_ask(seat, *drafts)
        case Resume(brief):
            result: Decision | Refusal = talk.try_resume(seat, brief)
            return result
    return None

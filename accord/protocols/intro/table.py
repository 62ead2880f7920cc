"""Intro negotiations as a table of the kernel (`accord.core.protocol.Table`): a seat's turns,
resumes, questions and answers, and the facts the service records, over the pure rules of
`decide`. A negotiation never expires: between rounds it waits for new context, and the
pending introduction's lifetime belongs to its opportunity."""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, assert_never

from accord.core.envelope import Envelope
from accord.core.protocol import Context, Decision, Mode, Seen
from accord.core.refusals import Refusal, RefusalCode
from accord.protocols.intro import decide, invariants
from accord.protocols.intro.apply import apply, apply_private
from accord.protocols.intro.moves import (
    AnswerMove,
    Close,
    IntentEdited,
    OwnerMessage,
    QuestionsRequest,
    Recheck,
    ResumeRequest,
    SeatMove,
    ServerMove,
    TurnRequest,
)
from accord.protocols.intro.receipt import build_receipt
from accord.protocols.intro.state import PROTOCOL, Actor, IntroState, Outcome, Seat
from accord.protocols.intro.views import negotiation_view
from accord.trust.commitments import nonce_of
from accord.trust.receipts import ReceiptBody

NOT_FOUND = Refusal(RefusalCode.NOT_FOUND, "No such negotiation; check the opportunity id.")


class IntroTable:
    """`decide(state, move, actor, context)` takes a seat's `TurnRequest`, `ResumeRequest`,
    `QuestionsRequest` and `AnswerMove` with its `Actor`, and the service's `Recheck`,
    `Close`, `OwnerMessage` and `IntentEdited` with no actor. A resume needs
    `context.entropy` (at least 24 bytes) for its brief's nonce."""

    name = PROTOCOL
    state_type = IntroState
    tail_size = 0
    not_found = NOT_FOUND

    def decide(
        self,
        state: IntroState,
        move: SeatMove | ServerMove,
        actor: Actor | None,
        context: Context,
    ) -> Decision | Refusal:
        if isinstance(move, Recheck | Close | OwnerMessage | IntentEdited):
            assert actor is None, "the service records its facts with no actor"
            return decide.decide_server(state, move)
        assert actor is not None, "a seat's move needs its actor"
        match move:
            case TurnRequest():
                return decide.decide_turn(state, move, actor, now=context.now)
            case ResumeRequest():
                nonce = nonce_of(context.entropy)
                return decide.decide_resume(state, move, actor, nonce=nonce)
            case QuestionsRequest():
                return decide.decide_questions(state, move, actor)
            case AnswerMove():
                return decide.decide_answer(state, move, actor)
            case _:
                assert_never(move)

    def apply(self, state: IntroState | None, envelope: Envelope, seen: Seen) -> IntroState:
        return apply(state, envelope)

    def seen_key(self, envelope: Envelope) -> str | None:
        return None  # the grammar reads only the state: its latest turn and standing proposal

    def restore(self, stored: str, tail: Sequence[Envelope]) -> IntroState:
        return IntroState.model_validate_json(stored)

    def dump(self, state: IntroState) -> str:
        return state.model_dump_json()

    def apply_private(self, state: IntroState, party: str, record: Envelope) -> IntroState:
        return apply_private(state, Seat(party), record)

    def expire(self, state: IntroState, now: datetime) -> Decision | None:
        return None  # intro-negotiation.md, Rounds: a negotiation between rounds never times out

    def is_final(self, state: IntroState) -> bool:
        return state.is_settled

    def is_agreed(self, state: IntroState) -> bool:
        return state.outcome is Outcome.AGREED

    def expires_at(self, state: IntroState) -> str | None:
        return None

    def view(self, state: IntroState, party: str) -> dict[str, Any]:
        """The Negotiation from the log alone: the service, which knows whether both intents
        are active, calls `views.negotiation_view` with it."""
        return negotiation_view(state, Seat(party), intents_active=True)

    def notice_fields(self, negotiation_id: str, state: IntroState) -> Mapping[str, Any]:
        return {"negotiation_id": negotiation_id, "opportunity_id": state.opportunity_id}

    def scope(self, state: IntroState) -> str | None:
        return None  # only the two seats' principals follow a negotiation

    def broken_invariants(
        self, before: IntroState | None, after: IntroState, appended: Sequence[Envelope]
    ) -> Sequence[str]:
        return invariants.broken_invariants(before, after, appended)

    def receipt(
        self, state: IntroState, log: Sequence[Envelope], *, arbiter_id: str, retention_days: int
    ) -> ReceiptBody:
        return build_receipt(log, arbiter_id=arbiter_id, retention_days=retention_days)

    def signing_mode(self, state: IntroState) -> Mode:
        return "live"  # receipts.md: intro negotiations have no test mode

    def served_receipt(self, state: IntroState, receipt: dict[str, Any]) -> dict[str, Any]:
        return receipt

"""Builders for the intro rules: a `Talk` that decides through the intro table and records
through the kernel's in-memory log, checking after every accepted step that the chain verifies
and the state is the fold of the records."""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from accord.core.chain import verify_chain
from accord.core.envelope import Envelope
from accord.core.protocol import Context, Decision
from accord.core.refusals import Refusal
from accord.core.step import Log, replay
from accord.protocols.intro.decide import open_negotiation
from accord.protocols.intro.moves import (
    AnswerMove,
    AnswerRequest,
    QuestionInput,
    QuestionsRequest,
    ResumeRequest,
    ServerMove,
    TurnRequest,
)
from accord.protocols.intro.state import Actor, Checks, IntroState, Key, Seat
from accord.protocols.intro.table import IntroTable

START = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
ENTROPY = bytes(range(32))
INITIATOR, RESPONDER = Seat.INITIATOR, Seat.RESPONDER


def agent(seat: Seat, *, intents_active: bool = True) -> Actor:
    return Actor(seat, Key.SELECTED_AGENT, intents_active=intents_active)


def owner(seat: Seat) -> Actor:
    return Actor(seat, Key.OWNER)


def other_agent(seat: Seat) -> Actor:
    return Actor(seat, Key.OTHER_AGENT)


@dataclass
class Talk:
    """One negotiation driven through the intro table and the kernel's in-memory `Log`."""

    mutual: bool = True
    constraint_fit: bool = True
    log: Log[IntroState] = field(init=False)
    said: int = 0

    def __post_init__(self) -> None:
        self.log = Log(IntroTable(), now=START)
        checks = Checks(mutual=self.mutual, constraint_fit=self.constraint_fit)
        self._record(
            open_negotiation(negotiation_id="neg_test", opportunity_id="opp_test", checks=checks)
        )

    # -- driving it ----------------------------------------------------------------------

    def try_turn(
        self,
        actor: Actor | Seat,
        action: str,
        message: str | None = None,
        *,
        expected: int | None = None,
    ) -> Decision | Refusal:
        if isinstance(actor, Seat):
            actor = agent(actor)
        self.said += 1
        request = TurnRequest(
            action=action,
            message=f"{action}, take {self.said}" if message is None else message,
            expected_turn_count=self.state.turn_count if expected is None else expected,
        )
        return self._move(request, actor)

    def turn(self, actor: Actor | Seat, action: str, message: str | None = None) -> Decision:
        return accepted(self.try_turn(actor, action, message))

    def try_resume(self, actor: Actor | Seat, brief: str = "She now works remotely.") -> Any:
        return self._move(
            ResumeRequest(brief=brief), agent(actor) if isinstance(actor, Seat) else actor
        )

    def resume(self, seat: Seat, brief: str = "She now works remotely.") -> Decision:
        return accepted(self.try_resume(seat, brief))

    def try_ask(self, actor: Actor | Seat, *questions: QuestionInput) -> Decision | Refusal:
        items = list(questions) or [QuestionInput(question="May I share your city?", why="fit")]
        actor = agent(actor) if isinstance(actor, Seat) else actor
        return self._move(QuestionsRequest(questions=items), actor)

    def ask(self, seat: Seat) -> list[str]:
        accepted(self.try_ask(seat))
        return [q for q, v in self.state.seat_private(seat).questions.items() if v.status == "open"]

    def try_answer(self, actor: Actor | Seat, question_id: str, answer: str = "Yes.") -> Any:
        actor = owner(actor) if isinstance(actor, Seat) else actor
        return self._move(AnswerMove(question_id, AnswerRequest(answer=answer)), actor)

    def server(self, move: ServerMove) -> Decision | Refusal:
        return self._move(move, None)

    def play(self, *turns: tuple[Seat, str]) -> None:
        for seat, action in turns:
            self.turn(seat, action)

    # -- reading it ----------------------------------------------------------------------

    @property
    def state(self) -> IntroState:
        return self.log.current

    @property
    def envelopes(self) -> list[Envelope]:
        return self.log.envelopes

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.envelopes]

    # -- the machinery -------------------------------------------------------------------

    def _move(self, move: Any, actor: Actor | None) -> Decision | Refusal:
        result = self.log.table.decide(self.state, move, actor, self._context())
        return self._record(result)

    def _context(self) -> Context:
        return Context(self.log.now, ENTROPY)

    def _record(self, result: Decision | Refusal) -> Decision | Refusal:
        recorded = self.log.record(result)
        if not isinstance(result, Refusal):
            verify_chain([e.to_json() for e in self.envelopes])
            assert replay(self.log.table, self.envelopes, self.log.private) == self.state
        return recorded


def accepted(result: Decision | Refusal) -> Decision:
    assert not isinstance(result, Refusal), f"refused: {result.code} {result.details}"
    return result


def paused(talk: Talk, *, by: Seat = INITIATOR) -> Talk:
    """Round 1 ended by `by`'s decline (the initiator's: its first turn)."""
    if by is RESPONDER:
        talk.turn(INITIATOR, "propose")
    talk.turn(by, "decline")
    return talk


@pytest.fixture
def talk() -> Talk:
    return Talk()

"""Intro negotiation state: what the rules need, folded from the public log and each seat's
private records (spec/intro-negotiation.md, spec/intro-api.md "The negotiation").

Everything a decision reads is kept ready (the latest turn, the standing proposal, each seat's
latest message, the open questions), so a turn in round 50 costs what a turn in round 1 does.
"""

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from pydantic import BaseModel, ConfigDict

PROTOCOL: Final = "intro"
MAX_TURNS_PER_ROUND: Final = 12
MESSAGE_LIMIT: Final = 4000


class Seat(StrEnum):
    INITIATOR = "initiator"
    RESPONDER = "responder"

    @property
    def other(self) -> "Seat":
        return Seat.RESPONDER if self is Seat.INITIATOR else Seat.INITIATOR


SEATS: Final = (Seat.INITIATOR, Seat.RESPONDER)


class Action(StrEnum):
    PROPOSE = "propose"
    COUNTER = "counter"
    ACCEPT = "accept"
    DECLINE = "decline"


class Outcome(StrEnum):
    AGREED = "agreed"
    CLOSED = "closed"


class Key(StrEnum):
    """Which of a principal's keys asks (intro-api.md, Principals and keys)."""

    OWNER = "owner"
    SELECTED_AGENT = "selected_agent"
    OTHER_AGENT = "other_agent"


@dataclass(frozen=True)
class Actor:
    """Who asks, and what the service knows outside the log: whether both intents of the pair
    are `active` (a paused or archived one blocks both seats: `intent_inactive`)."""

    seat: Seat
    key: Key
    intents_active: bool = True


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Turn(Frozen):
    turn_index: int
    round: int
    seat: Seat
    action: Action
    message: str
    created_at: str


class Question(Frozen):
    question_id: str
    question: str
    options: tuple[str, ...] | None = None
    why: str
    status: str = "open"
    answer: str | None = None
    answered_in_chat: bool | None = None


class SeatPrivate(Frozen):
    """One seat's private records, folded: its questions to its owner, and the round after
    whose end its owner last gave new context (`resume` needs it to be the current round)."""

    questions: dict[str, Question] = {}
    open_questions: int = 0
    context_after_round: int | None = None


class Checks(Frozen):
    mutual: bool
    constraint_fit: bool


class Disclosure(Frozen):
    """What has ever held, for layers that once open stay open (intro-api.md, Disclosure):
    Statement opens on `mutual` (an incognito side's once both seats also engaged); Constraints
    on `constraint_fit` while Statement is open."""

    mutual: bool = False
    mutual_engaged: bool = False
    fit_since_mutual: bool = False
    fit_since_mutual_engaged: bool = False


class IntroState(Frozen):
    negotiation_id: str
    opportunity_id: str
    seq: int
    created_at: str
    updated_at: str
    outcome: Outcome | None = None
    round: int = 1
    round_over: bool = False
    turns: tuple[Turn, ...] = ()
    turns_in_round: int = 0
    awaiting: Seat | None = Seat.INITIATOR
    standing: int | None = None
    """The turn_index of the latest `propose` not followed by a `decline`."""
    last_message: dict[Seat, str] = {}
    engaged: tuple[Seat, ...] = ()
    """Seats that took a turn other than `decline`, in any round."""
    checks: Checks | None = None
    disclosure: Disclosure = Disclosure()
    final_terms: dict[str, Any] | None = None
    private: dict[Seat, SeatPrivate] = {}

    @property
    def is_settled(self) -> bool:
        return self.outcome is not None

    @property
    def turn_count(self) -> int:
        return len(self.turns)

    @property
    def last(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    @property
    def standing_turn(self) -> Turn | None:
        return None if self.standing is None else self.turns[self.standing]

    def seat_private(self, seat: Seat) -> SeatPrivate:
        return self.private.get(seat, SeatPrivate())

"""What a seat and the service may send (spec/intro-api.md, The negotiation, Questions, Resume).

The request models check the shape only (members and types): lengths, ranges and enumerations
are values, which come later in the check order (a stale `expected_turn_count` is `raced` before
a too-long message is `invalid_request`), so `*_problems` check them where the order says.
Lengths count Unicode code points; a blank required text is a value problem.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from pydantic import Field

from accord.core.strict import Strict
from accord.protocols.intro.state import MESSAGE_LIMIT, Action, Checks, Seat

BRIEF_LIMIT: Final = 4000
QUESTIONS_MAX: Final = 3
QUESTION_LIMIT: Final = 500
WHY_LIMIT: Final = 1000
OPTIONS_MIN: Final = 2
OPTIONS_MAX: Final = 5
OPTION_LIMIT: Final = 200
ANSWER_LIMIT: Final = 2000


class TurnRequest(Strict):
    action: str = Field(description="propose, counter, accept or decline.")
    message: str = Field(description="Free text, 1..4,000 characters.")
    expected_turn_count: int = Field(
        description="The turn_count of the negotiation this turn was decided from."
    )
    message_id: str | None = Field(
        None,
        min_length=1,
        max_length=128,
        description="Makes retries safe: the same id and body returns the first response.",
    )


class ResumeRequest(Strict):
    brief: str = Field(description="What is new, 1..4,000 characters; kept private to the seat.")


class QuestionInput(Strict):
    question: str = Field(description="1..500 characters.")
    options: list[str] | None = Field(None, description="2..5 answers to choose from.")
    why: str = Field(description="Why the agent needs to know, 1..1,000 characters.")


class QuestionsRequest(Strict):
    questions: list[QuestionInput] = Field(description="1..3 questions to the seat's owner.")


class AnswerRequest(Strict):
    answer: str = Field(description="1..2,000 characters, free or one of the options.")


@dataclass(frozen=True)
class AnswerMove:
    """The seat's owner answers one of the seat's questions."""

    question_id: str
    request: AnswerRequest


# -- what the service records (sent with no actor) -------------------------------------------


@dataclass(frozen=True)
class Recheck:
    """`mutual` and `constraint_fit` recomputed after an edit of either intent."""

    checks: Checks


@dataclass(frozen=True)
class Close:
    """A person or Index decided first (intro-negotiation.md, Settlement and consent)."""

    reason: Literal["decided", "archived"]


@dataclass(frozen=True)
class OwnerMessage:
    """The seat's owner wrote in its intent's chat: new context for the seat, and the answer to
    every question of the seat still open. Never enters the public log."""

    seat: Seat
    message: str


@dataclass(frozen=True)
class IntentEdited:
    """A PATCH of the seat's intent changed a stored value other than `status`."""

    seat: Seat


SeatMove = TurnRequest | ResumeRequest | QuestionsRequest | AnswerMove
ServerMove = Recheck | Close | OwnerMessage | IntentEdited


def _text(value: str, limit: int) -> str | None:
    if not value.strip():
        return "must not be blank"
    if len(value) > limit:
        return f"at most {limit} characters"
    return None


def _fields(pairs: Sequence[tuple[str, str | None]]) -> dict[str, str]:
    return {name: problem for name, problem in pairs if problem is not None}


def turn_problems(request: TurnRequest) -> dict[str, str]:
    actions = [a.value for a in Action]
    return _fields(
        [
            ("action", None if request.action in actions else f"one of {', '.join(actions)}"),
            ("message", _text(request.message, MESSAGE_LIMIT)),
        ]
    )


def resume_problems(request: ResumeRequest) -> dict[str, str]:
    return _fields([("brief", _text(request.brief, BRIEF_LIMIT))])


def questions_problems(request: QuestionsRequest) -> dict[str, str]:
    count = len(request.questions)
    pairs: list[tuple[str, str | None]] = [
        ("questions", None if 1 <= count <= QUESTIONS_MAX else f"1..{QUESTIONS_MAX} questions")
    ]
    for index, item in enumerate(request.questions):
        at = f"questions.{index}"
        pairs += [
            (f"{at}.question", _text(item.question, QUESTION_LIMIT)),
            (f"{at}.why", _text(item.why, WHY_LIMIT)),
        ]
        if item.options is not None:
            if not OPTIONS_MIN <= len(item.options) <= OPTIONS_MAX:
                pairs.append((f"{at}.options", f"{OPTIONS_MIN}..{OPTIONS_MAX} options"))
            pairs += [
                (f"{at}.options.{n}", _text(option, OPTION_LIMIT))
                for n, option in enumerate(item.options)
            ]
    return _fields(pairs)


def answer_problems(request: AnswerRequest) -> dict[str, str]:
    return _fields([("answer", _text(request.answer, ANSWER_LIMIT))])

"""Questions a skill asks the user (adviser-api.md, Questions): each names the pointer its answer
fills, so an answer is the user's own patch and a question whose field got filled another way
stops being asked."""

import copy
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from accord.adviser.patches import ROOT, Operation, Patch
from accord.adviser.pointers import PointerError, locate
from accord.adviser.schema import Shape, is_empty, members
from accord.adviser.values import read_date, read_money, read_number

Kind = Literal["text", "enum", "money", "number", "date", "boolean", "list"]
Status = Literal["open", "answered", "obsolete"]
MAX_ASKED = 3
"""A run adds at most this many questions."""


@dataclass(frozen=True, slots=True)
class Question:
    question_id: str
    question: str
    priority: int
    decision_impact: str
    blocking: bool
    kind: Kind
    path: str
    asked_by: str
    choices: tuple[str, ...] = ()
    currency: str | None = None
    status: Status = "open"

    def as_json(self) -> dict[str, Any]:
        return {
            "question_id": self.question_id,
            "question": self.question,
            "priority": self.priority,
            "decision_impact": self.decision_impact,
            "blocking": self.blocking,
            "kind": self.kind,
            "choices": list(self.choices),
            "currency": self.currency,
            "path": self.path,
            "asked_by": self.asked_by,
            "status": self.status,
        }

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> "Question":
        return cls(**{**body, "choices": tuple(body.get("choices") or ())})


def is_filled(question: Question, state: dict[str, Any]) -> bool:
    """Whether the question's field (for `/-`, its list) is no longer empty."""
    path = question.path.removesuffix("/-")
    try:
        location = locate(copy.deepcopy(state), ROOT, path)
    except PointerError:
        return False
    value = location.get() if location.exists else None
    return not is_empty(value, location.shape)


def obsolete(questions: Sequence[Question], state: dict[str, Any]) -> list[Question]:
    """The open questions that an edit has answered another way."""
    return [
        replace(q, status="obsolete")
        for q in questions
        if q.status == "open" and is_filled(q, state)
    ]


def answer_problem(question: Question, answer: Any) -> str | None:
    """Why an answer is not of its question's kind, or None."""
    kind = question.kind
    if kind == "boolean":
        return None if isinstance(answer, bool) else "true or false"
    if kind == "list":
        ok = isinstance(answer, list) and all(isinstance(a, str) and a.strip() for a in answer)
        return None if ok and answer else "a non-empty list of strings"
    if not isinstance(answer, str) or not answer.strip():
        return "a non-empty string"
    if len(answer) > 4000:
        return "at most 4000 characters"
    if kind == "enum" and answer not in question.choices:
        return f"one of {', '.join(question.choices)}"
    if kind == "money" and read_money(answer, question.currency) is None:
        currency = question.currency or "CCC"
        return f"an amount like {currency} 1,250.00"
    if kind == "number" and read_number(answer) is None:
        return "a number like 1,250.5"
    if kind == "date" and read_date(answer) is None:
        return "a date YYYY-MM-DD"
    return None


def answer_patch(question: Question, answer: Any, state: dict[str, Any]) -> Patch:
    """The answer as the user's own patch: ADD where the field is empty or the path appends,
    else an update whose basis is the answer itself; appended to a list of items, the answer is
    the item's first text member."""
    path = question.path
    appends = path.endswith("/-")
    value = answer
    if appends:
        shape = locate(copy.deepcopy(state), ROOT, path).shape
        value = _item(shape, answer)
    operation: Operation = (
        "ADD" if appends or not is_filled(question, state) else "UPDATE_WITH_EVIDENCE"
    )
    return Patch(
        patch_id=f"answer-{question.question_id}",
        operation=operation,
        path=path,
        proposed_value=value,
        basis=f"answer to {question.question_id}",
    )


def _item(shape: Shape, answer: Any) -> Any:
    if shape.model is None:
        return answer
    first = next(
        key
        for key, member in members(shape.model).items()
        if member.base is str and not member.nullable and not key.endswith("_id")
    )
    return {first: answer}

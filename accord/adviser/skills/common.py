"""What the built-in skills share: patches that say why, questions about a topic's value in the
topic's own kind, and the topics that matter most."""

from collections.abc import Sequence
from typing import Any

from accord.adviser.deal import Topic
from accord.adviser.patches import Operation, Patch
from accord.adviser.questions import Question
from accord.adviser.values import topic_currency, topic_kind

MATERIAL = ("critical", "high")
PRIORITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def patch(patch_id: str, operation: Operation, path: str, value: Any, basis: str) -> Patch:
    return Patch(
        patch_id=patch_id, operation=operation, path=path, proposed_value=value, basis=basis
    )


def set_text(patch_id: str, path: str, current: str | None, value: str, basis: str) -> list[Patch]:
    """A text field set to `value`: nothing when it already holds it."""
    if current == value:
        return []
    return [
        patch(patch_id, "ADD" if current is None else "UPDATE_WITH_EVIDENCE", path, value, basis)
    ]


def by_priority(topics: Sequence[Topic]) -> list[Topic]:
    return sorted(topics, key=lambda t: PRIORITY_ORDER[t.priority])


def material(topics: Sequence[Topic]) -> list[Topic]:
    return [t for t in topics if t.priority in MATERIAL]


def topic_question(
    question_id: str,
    text: str,
    topic: Topic,
    path: str,
    *,
    asked_by: str,
    impact: str,
    blocking: bool = False,
    priority: int = 1,
) -> Question:
    """A question whose answer is a value of the topic, asked in its kind."""
    kind = topic_kind(topic)
    choices = tuple(topic.x_accord.choices or ()) if topic.x_accord is not None else ()
    currency = topic_currency(topic) if kind == "money" else None
    if kind == "money" and currency is None:
        kind = "text"  # no currency to read an amount in yet
    if kind == "enum" and not choices:
        kind = "text"
    hint = {"money": f" ({currency} 1,250.00)", "date": " (YYYY-MM-DD)"}.get(kind, "")
    return Question(
        question_id,
        text + hint,
        priority,
        impact,
        blocking,
        kind,
        path,
        asked_by,
        choices if kind == "enum" else (),
        currency if kind == "money" else None,
    )


def ids(items: Sequence[Any], member: str) -> set[str]:
    return {getattr(item, member) for item in items}

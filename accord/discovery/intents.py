"""What discovery knows of an intent: the members that decide text, reach and fit, nothing else."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Scalar = str | int | float | bool
Value = Scalar | tuple[Scalar, ...]
Op = Literal["eq", "in", "gte", "lte", "between"]
Visibility = Literal["public", "network", "incognito", "private"]
Status = Literal["active", "paused", "archived"]


@dataclass(frozen=True, slots=True)
class Constraint:
    """One `{key, op, value}`; `in` and `between` hold a tuple (a JSON list)."""

    key: str
    op: Op
    value: Value


@dataclass(frozen=True, slots=True)
class IntentDoc:
    """An intent as discovery sees it; the store validates it before it gets here."""

    intent_id: str
    principal_id: str
    statement: str
    constraints: tuple[Constraint, ...] = ()
    visibility: Visibility = "public"
    networks: frozenset[str] = field(default_factory=frozenset)
    status: Status = "active"

    @property
    def indexed(self) -> bool:
        """The lexical index holds every intent neither `private` nor `archived`."""
        return self.visibility != "private" and self.status != "archived"


def constraint_from_json(item: dict[str, object]) -> Constraint:
    """A constraint from its JSON object (lists become tuples so the value stays hashable)."""
    value = item["value"]
    if isinstance(value, list):
        value = tuple(value)
    return Constraint(key=str(item["key"]), op=item["op"], value=value)  # type: ignore[arg-type]

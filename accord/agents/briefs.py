"""A seat's brief for a room: which terms it wants and how much, as Preferences the strategies
read (spec/agents.md, Preferences: "linear for numbers, money, dates between the limits; a table
for enums and booleans").

A number, an amount of money or a date is negotiated on a grid of `steps` values from the
seat's worst acceptable value (`from`, also its private limit) to its best (`to`), utility
linear along it; an enum or a boolean by a table of utilities. Terms the other side writes off
the grid are read as the grid value just worse for this seat, so a strategy never thinks an
offer better than it is."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Final

from pydantic import Field, ValidationError, model_validator

from accord.agents.domain import Domain, Issue
from accord.agents.preferences import Preferences
from accord.core.problems import in_words
from accord.core.strict import Strict

MAX_STEPS: Final = 101
NUMERIC: Final = frozenset({"int", "money", "date"})


class BriefError(ValueError):
    """A brief that does not fit its room; the message says which field and why."""


class FieldBrief(Strict):
    weight: float = Field(gt=0, le=1e6, description="Relative importance; weights are normalised.")
    from_: int | str | None = Field(
        None, alias="from", description="Numbers, money (minor units), dates: the worst value."
    )
    to: int | str | None = Field(None, description="Numbers, money, dates: the best value.")
    steps: int = Field(11, ge=2, le=MAX_STEPS, description="Grid points from `from` to `to`.")
    utilities: dict[str, float] | None = Field(
        None, description="Enums and booleans: a utility in [0, 1] per value ('true', 'false')."
    )

    @model_validator(mode="after")
    def _one_kind(self) -> "FieldBrief":
        ranged = self.from_ is not None or self.to is not None
        if ranged == (self.utilities is not None):
            raise ValueError("give either from and to, or utilities")
        if ranged and (self.from_ is None or self.to is None or self.from_ == self.to):
            raise ValueError("a range needs from and to, and they must differ")
        if self.utilities is not None and any(not 0 <= u <= 1 for u in self.utilities.values()):
            raise ValueError("utilities must lie in [0, 1]")
        return self


class BriefDoc(Strict):
    fields: dict[str, FieldBrief] = Field(min_length=1)
    reservation: float = Field(0.0, ge=0, le=1, description="The utility of walking away.")


@dataclass(frozen=True)
class Brief:
    """A brief checked against its room's subject schema: the domain the seat negotiates over,
    its Preferences, and the translations between outcomes and terms."""

    schema: Mapping[str, Any]
    fields: tuple[str, ...]
    grids: tuple[tuple[Any, ...], ...]
    """Per field, its values from worst to best for numbers; the schema's order for tables."""
    preferences: Preferences

    @property
    def domain(self) -> Domain:
        return self.preferences.domain

    def terms(self, outcome: int) -> dict[str, Any]:
        """The terms of an outcome, as the room's fields write them."""
        indices = self.domain.outcome_at(outcome)
        return {
            name: _term(self.schema[name], grid[index])
            for name, grid, index in zip(self.fields, self.grids, indices, strict=True)
        }

    def outcome(self, terms: Mapping[str, Any]) -> int | None:
        """The outcome that reads `terms` no better than they are for this seat; None when a
        number is worse than the seat's worst (`from`): terms it must never accept."""
        indices = []
        prefs = self.preferences
        for issue, (name, grid) in enumerate(zip(self.fields, self.grids, strict=True)):
            kind = self.schema[name]["type"]
            value = terms.get(name)
            table = prefs.evaluations[issue]
            if value is None:
                indices.append(_worst(table))
            elif kind in NUMERIC:
                index = _snap(grid, _number(kind, value))
                if index is None:
                    return None
                indices.append(index)
            else:
                labels = self.domain.issues[issue].values
                label = _label(kind, value)
                indices.append(labels.index(label) if label in labels else _worst(table))
        return self.domain.number_of(tuple(indices))

    def limits(self) -> dict[str, Any]:
        """The seat's private limits: no number worse than its `from`."""
        limits: dict[str, Any] = {}
        for name, grid in zip(self.fields, self.grids, strict=True):
            spec = self.schema[name]
            if spec["type"] in NUMERIC:
                worst, best = grid[0], grid[-1]
                bound = (
                    "min" if _number(spec["type"], best) > _number(spec["type"], worst) else "max"
                )
                limits[name] = {bound: _term(spec, worst)}
        return limits


def read_brief(schema: Mapping[str, Any], document: Mapping[str, Any]) -> Brief:
    """A brief for a room with `schema`; BriefError says what does not fit."""
    try:
        doc = BriefDoc.model_validate(document)
    except ValidationError as exc:
        problems = in_words(exc, whole="brief")
        raise BriefError(f"the brief does not fit its format: {problems}") from None
    issues, grids, evaluations = [], [], []
    for name, spec in schema.items():
        field = doc.fields.get(name)
        if field is None:
            if not spec.get("optional", False):
                raise BriefError(f"the room's field {name} is required: give it in the brief")
            continue
        grid, values = _grid(name, spec, field)
        grids.append(grid)
        evaluations.append(values)
        issues.append(Issue(name, tuple(_label(spec["type"], _term(spec, v)) for v in grid)))
    unknown = sorted(doc.fields.keys() - schema.keys())
    if unknown:
        raise BriefError(f"the room has no field {', '.join(unknown)}")
    domain = Domain(tuple(issues))
    weights = [doc.fields[issue.name].weight for issue in issues]
    preferences = Preferences.normalised(domain, weights, evaluations, reservation=doc.reservation)
    return Brief(schema, tuple(i.name for i in issues), tuple(grids), preferences)


def _grid(
    name: str, spec: Mapping[str, Any], field: FieldBrief
) -> tuple[tuple[Any, ...], list[float]]:
    kind = spec["type"]
    if kind in NUMERIC:
        if field.from_ is None or field.to is None:
            raise BriefError(f"{name} is a {kind}: give from and to")
        worst, best = _number(kind, field.from_), _number(kind, field.to)
        steps = min(field.steps, abs(best - worst) + 1)
        points = [round(worst + (best - worst) * i / (steps - 1)) for i in range(steps)]
        grid = tuple(_value(kind, p) for p in points)
        return grid, [i / (steps - 1) for i in range(steps)]
    if kind in ("enum", "bool"):
        labels = list(spec["values"]) if kind == "enum" else ["false", "true"]
        if field.utilities is None:
            raise BriefError(f"{name} is a {kind}: give utilities for its values")
        unknown = sorted(field.utilities.keys() - set(labels))
        if unknown:
            raise BriefError(f"{name} has no value {', '.join(unknown)}")
        grid = tuple(labels if kind == "enum" else [False, True])
        return grid, [field.utilities.get(label, 0.0) for label in labels]
    raise BriefError(f"{name} is a {kind}: agents negotiate numbers, money, dates, enums, booleans")


def _number(kind: str, value: Any) -> int:
    """The comparable integer of a number, an amount (minor units or a money object), a date."""
    try:
        if kind == "money":
            return int(value["amount_minor"] if isinstance(value, Mapping) else value)
        if kind == "date":
            return date.fromisoformat(value).toordinal() if isinstance(value, str) else int(value)
        return int(value)
    except (KeyError, TypeError, ValueError):
        raise BriefError(f"{value!r} is not a {kind}") from None


def _value(kind: str, number: int) -> Any:
    return (date.min + timedelta(days=number - 1)).isoformat() if kind == "date" else number


def _term(spec: Mapping[str, Any], value: Any) -> Any:
    if spec["type"] == "money":
        return {"amount_minor": value, "currency": spec["currency"]}
    return value


def _label(kind: str, value: Any) -> str:
    if kind == "money":
        return str(value["amount_minor"] if isinstance(value, Mapping) else value)
    if kind == "bool":
        return "true" if value else "false"
    return str(value)


def _worst(table: Sequence[float]) -> int:
    """The value this seat likes least (the first of equals): what a missing or unknown value
    is read as."""
    return min(range(len(table)), key=lambda i: (table[i], i))


def _snap(grid: tuple[Any, ...], value: int) -> int | None:
    """The grid index at or just worse for the seat than `value` (the grid runs worst to
    best); None when `value` is worse than the whole grid."""
    numbers = [_number("date", g) if isinstance(g, str) else int(g) for g in grid]
    ascending = numbers[-1] > numbers[0]
    found = None
    for index, point in enumerate(numbers):
        if (point <= value) if ascending else (point >= value):
            found = index
    return found

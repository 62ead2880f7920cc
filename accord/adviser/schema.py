"""The adviser state's shape, read from its models: what a pointer may name, which member is a
list item's id, and the empty value of each member. Patches and version 1 are built from it, so
the rules follow the models and never a second copy of the schema."""

import types
import typing
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, Literal, Union

from pydantic import BaseModel

from accord.adviser.enums import (
    ContradictionStatus,
    ImprovementStatus,
    ResearchStatus,
    TopicStatus,
    TradeStatus,
)

ITEM_DEFAULTS: dict[frozenset[str], str] = {
    frozenset(TopicStatus): TopicStatus.OPEN,
    frozenset(typing.get_args(TradeStatus)): "proposed",
    frozenset(typing.get_args(ResearchStatus)): "open",
    frozenset(typing.get_args(ContradictionStatus)): "open",
    frozenset(typing.get_args(ImprovementStatus)): "possible",
}
"""A status an item starts in when it is added without one: the first of its life."""


@dataclass(frozen=True, slots=True)
class Shape:
    """One member's type: a model, a list of something, or a scalar (with its enumeration)."""

    kind: Literal["model", "list", "scalar"]
    nullable: bool = False
    model: type[BaseModel] | None = None
    item: "Shape | None" = None
    base: Any = None
    """A scalar's Python type (str, int, bool, datetime), or None for an enumeration."""
    choices: tuple[Any, ...] = ()
    """An enumeration's values, as on the wire."""

    def member(self, key: str) -> "Shape | None":
        """The shape of a model's member by its wire name; None when it has no such member."""
        return None if self.model is None else members(self.model).get(key)

    @property
    def id_member(self) -> str | None:
        """A list item's id: its first `*_id` member in schema order."""
        if self.model is None:
            return None
        return next((key for key in members(self.model) if key.endswith("_id")), None)


def shape_of(annotation: Any) -> Shape:
    nullable = False
    origin = typing.get_origin(annotation)
    while origin is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
        origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable = len(args) < len(typing.get_args(annotation))
        if len(args) == 1:
            inner = shape_of(args[0])
            return Shape(inner.kind, True, inner.model, inner.item, inner.base, inner.choices)
        choices: list[Any] = []
        for arg in args:  # bool | Literal["unknown"]: a scalar of several forms
            part = shape_of(arg)
            choices += part.choices or ([True, False] if part.base is bool else [])
        return Shape("scalar", nullable, choices=tuple(choices))
    if origin is list:
        return Shape("list", item=shape_of(typing.get_args(annotation)[0]))
    if origin is Literal:
        return Shape("scalar", choices=typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return Shape("model", model=annotation)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return Shape("scalar", choices=tuple(member.value for member in annotation))
    return Shape("scalar", base=annotation)


@cache
def members(model: type[BaseModel]) -> dict[str, Shape]:
    """A model's members by wire name (`from`, not `from_`), in schema order."""
    return {
        field.alias or name: shape_of(field.annotation)
        for name, field in model.model_fields.items()
    }


def optional_members(model: type[BaseModel]) -> frozenset[str]:
    """Accord's own members (`x_accord`), which an object may leave out."""
    return frozenset(
        field.alias or name for name, field in model.model_fields.items() if not field.is_required()
    )


class BadValue(ValueError):
    """A written value that cannot stand where it is written."""


class NoEmptyValue(BadValue):
    """The member has no empty form: whoever adds its object must give it."""


def empty(shape: Shape) -> Any:
    """A member's empty value (adviser-api.md, Version 1): null, [], false, UNKNOWN or unknown,
    an object of empty members; an item's status starts where its life does."""
    if shape.nullable:
        return None
    if shape.kind == "list":
        return []
    if shape.kind == "model":
        assert shape.model is not None
        skip = optional_members(shape.model)
        return {
            key: empty(member) for key, member in members(shape.model).items() if key not in skip
        }
    if shape.base is bool:
        return False
    for unknown in ("not_run", "UNKNOWN", "unknown"):
        if unknown in shape.choices:
            return unknown
    default = ITEM_DEFAULTS.get(frozenset(shape.choices))
    if default is not None:
        return str(default)
    raise NoEmptyValue


def has_empty(shape: Shape) -> bool:
    try:
        empty(shape)
    except NoEmptyValue:
        return False
    return True


def complete(shape: Shape, value: Any, siblings: list[Any] | None = None, keep: Any = None) -> Any:
    """A written value with its left-out members filled empty, and an item's id given (`topic-3`,
    the first free) or kept from the item it replaces."""
    if shape.kind == "list" and isinstance(value, list):
        items: list[Any] = []
        for item in value:
            items.append(complete(shape.item, item, items) if shape.item else item)
        return items
    if shape.kind != "model" or not isinstance(value, dict):
        return value
    assert shape.model is not None
    skip = optional_members(shape.model)
    done: dict[str, Any] = {}
    for key, member in members(shape.model).items():
        if key in value:
            done[key] = complete(member, value[key])
        elif key in skip:
            continue
        elif key == shape.id_member and siblings is not None:
            done[key] = keep[key] if isinstance(keep, dict) else _free_id(key, siblings)
        else:
            try:
                done[key] = empty(member)
            except NoEmptyValue:
                raise NoEmptyValue(f"{key} is required") from None
    done.update({k: v for k, v in value.items() if k not in done})  # the model refuses these
    if (
        isinstance(keep, dict)
        and shape.id_member
        and done.get(shape.id_member) != keep.get(shape.id_member)
    ):
        raise BadValue(f"an item keeps its {shape.id_member}")
    return done


def _free_id(member: str, siblings: list[Any]) -> str:
    stem = member.removesuffix("_id")
    taken = {item.get(member) for item in siblings if isinstance(item, dict)}
    return next(f"{stem}-{n}" for n in range(1, len(taken) + 2) if f"{stem}-{n}" not in taken)


def is_empty(value: Any, shape: Shape) -> bool:
    """adviser-api.md, Version 1: null, [], false, UNKNOWN, unknown or the version-1 value; an
    object while all its members are."""
    if value in (None, [], False, "UNKNOWN", "unknown", "not_run", "not_required", "not_used"):
        return True
    if isinstance(value, dict) and shape.model is not None:
        return all(is_empty(value.get(key), member) for key, member in members(shape.model).items())
    return False

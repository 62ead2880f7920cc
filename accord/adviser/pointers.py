"""JSON Pointers (RFC 6901) into the adviser state, read against its shape (adviser-api.md,
Patches): in a list of items a segment of digits is a position and any other an item's id, `-`
appends; every pointer has a canonical form with ids in place of positions, which history and
the stale check compare."""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from accord.adviser.schema import NoEmptyValue, Shape, empty

ID_FORM = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
APPEND = "-"


class PointerError(ValueError):
    """A pointer that names nothing in the state: outside the schema, or no such item."""


def parse(pointer: str) -> tuple[str, ...]:
    if not pointer.startswith("/"):
        raise PointerError(f"{pointer!r} is not a JSON Pointer into the state (it starts with /)")
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/"))


def render(tokens: tuple[str, ...]) -> str:
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


def valid_id(value: object) -> bool:
    return isinstance(value, str) and bool(ID_FORM.fullmatch(value)) and not value.isdigit()


@dataclass(frozen=True, slots=True)
class Location:
    """Where a pointer lands in one document: the container and key (a position, or APPEND),
    the member's shape, and the pointer with ids in place of positions."""

    container: dict[str, Any] | list[Any]
    key: str | int
    shape: Shape
    canonical: tuple[str, ...]
    in_list: bool
    """The pointer names a list item (or appends one)."""

    @property
    def appends(self) -> bool:
        return self.key == APPEND

    @property
    def exists(self) -> bool:
        if isinstance(self.container, list):
            return isinstance(self.key, int)
        return self.key in self.container

    def get(self) -> Any:
        if isinstance(self.container, list):
            assert isinstance(self.key, int)
            return self.container[self.key]
        return self.container.get(str(self.key))


def locate(document: dict[str, Any], root: Shape, pointer: str) -> Location:
    """Resolve `pointer` in `document` (the state as JSON). An absent optional member on the
    way (`x_accord`) is made, empty, in `document`: resolve in a copy you may throw away."""
    tokens = parse(pointer)
    node: Any = document
    shape = root
    canonical: list[str] = []
    for depth, token in enumerate(tokens):
        last = depth == len(tokens) - 1
        if shape.kind == "model":
            member = shape.member(token)
            if member is None:
                raise PointerError(f"{render(tokens[: depth + 1])} is not in the state's schema")
            canonical.append(token)
            if last:
                return Location(node, token, member, tuple(canonical), False)
            if node.get(token) is None and member.kind == "model":
                if not member.nullable:  # only Accord's optional members are ever absent
                    raise PointerError(f"{render(tokens[: depth + 1])} is not set")
                try:
                    node[token] = empty(_required(member))
                except NoEmptyValue:
                    raise PointerError(
                        f"{render(tokens[: depth + 1])} is not set: add it whole"
                    ) from None
            node, shape = node[token], member
        elif shape.kind == "list":
            assert shape.item is not None
            if token == APPEND:
                if not last:
                    raise PointerError(f"{render(tokens[: depth + 1])}: `-` only appends")
                return Location(node, APPEND, shape.item, tuple(canonical), True)
            position = _position(node, shape, token)
            if position is None:
                raise PointerError(f"{render(tokens[: depth + 1])} names no item")
            id_member = shape.item.id_member
            canonical.append(str(node[position][id_member]) if id_member else str(position))
            if last:
                return Location(node, position, shape.item, tuple(canonical), True)
            node, shape = node[position], shape.item
        else:
            raise PointerError(f"{render(tokens[: depth + 1])} is past a value")
    raise PointerError("the pointer names the whole state: name a member of it")


def _position(items: list[Any], shape: Shape, token: str) -> int | None:
    assert shape.item is not None
    if token.isdigit():
        position = int(token)
        return position if position < len(items) and str(position) == token else None
    id_member = shape.item.id_member
    if id_member is None:
        return None
    return next((i for i, item in enumerate(items) if item.get(id_member) == token), None)


def _required(shape: Shape) -> Shape:
    return Shape(shape.kind, False, shape.model, shape.item, shape.base, shape.choices)


def nodes_along(document: Any, tokens: tuple[str, ...]) -> Iterator[Any]:
    """Each node from the root down to the one canonical `tokens` name (ids in place of
    positions); None from where nothing is."""
    node = document
    yield node
    for token in tokens:
        if isinstance(node, dict):
            node = node.get(token)
        elif isinstance(node, list):
            node = _item(node, token)
        else:
            node = None
        yield node


def value_at(document: Any, pointer: str) -> Any:
    """The value at a canonical pointer; None where nothing is."""
    *_, last = nodes_along(document, parse(pointer))
    return last


def _item(items: list[Any], token: str) -> Any:
    """A list's item by a canonical segment: the item with that id, else the one at that
    position."""
    for item in items:
        if isinstance(item, dict) and any(
            k.endswith("_id") and v == token for k, v in item.items()
        ):
            return item
    if token.isdigit() and int(token) < len(items):
        return items[int(token)]
    return None


def covers(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether one canonical pointer equals, prefixes or extends the other."""
    return a[: len(b)] == b or b[: len(a)] == a

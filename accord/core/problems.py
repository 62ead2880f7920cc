"""What does not fit in a body, field by field, in a person's words.

One wording for every door: the API's `fields`, the messages beside a page's fields, an MCP
tool's `-32602` data, the SDK's own check before it sends, and the briefs and scenario files the
CLI reads. A field's problem never repeats the value that was sent (it may be a credential)."""

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails


def _one_of(ctx: Mapping[str, Any]) -> str:
    return f"Must be one of {ctx.get('expected', 'the listed values')}"


def _length(verb: str, unit: str, bound: str) -> Callable[[Mapping[str, Any]], str]:
    def words(ctx: Mapping[str, Any]) -> str:
        size = ctx.get(f"{bound}_length")
        if bound == "min" and size == 1:
            return "Must not be empty"
        least = "at least" if bound == "min" else "at most"
        return f"Must {verb} {least} {size} {unit}{'' if size == 1 else 's'}"

    return words


def _bound(words: str, key: str) -> Callable[[Mapping[str, Any]], str]:
    def said(ctx: Mapping[str, Any]) -> str:
        value = ctx.get(key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # 0, not 0.0: the bound as a person writes it
        return f"Must be {words} {value}"

    return said


WORDS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "missing": lambda _: "Required",
    "extra_forbidden": lambda _: "Not a field here: leave it out",
    "string_type": lambda _: "Must be text",
    "int_type": lambda _: "Must be a whole number",
    "int_parsing": lambda _: "Must be a whole number",
    "int_from_float": lambda _: "Must be a whole number",
    "float_type": lambda _: "Must be a number",
    "float_parsing": lambda _: "Must be a number",
    "bool_type": lambda _: "Must be true or false",
    "bool_parsing": lambda _: "Must be true or false",
    "dict_type": lambda _: "Must be an object",
    "model_type": lambda _: "Must be an object",
    "model_attributes_type": lambda _: "Must be an object",
    "list_type": lambda _: "Must be a list",
    "string_too_short": _length("be", "character", "min"),
    "string_too_long": _length("be", "character", "max"),
    "too_short": _length("have", "item", "min"),
    "too_long": _length("have", "item", "max"),
    "greater_than": _bound("more than", "gt"),
    "greater_than_equal": _bound("at least", "ge"),
    "less_than": _bound("less than", "lt"),
    "less_than_equal": _bound("at most", "le"),
    "literal_error": _one_of,
    "enum": _one_of,
    "string_pattern_mismatch": lambda _: "Not in the expected form",
    "url_parsing": lambda _: "Must be a URL",
    "url_type": lambda _: "Must be a URL",
    "url_scheme": lambda ctx: f"Must be a URL starting {ctx.get('expected_schemes', 'http')}",
}
"""Pydantic's error types, in the words a person reads; another type keeps pydantic's own."""

VALUE_ERROR = "Value error, "


def problem(error: ErrorDetails) -> str:
    """One field's problem: the table's words, or a validator's own message as it wrote it."""
    words = WORDS.get(error["type"])
    if words is not None:
        return words(error.get("ctx") or {})
    message = error["msg"]
    return message.removeprefix(VALUE_ERROR)


def problems(
    error: ValidationError | Iterable[ErrorDetails],
    *,
    within: str = "",
    whole: str = "body",
    skip: Collection[str] = (),
) -> dict[str, str]:
    """Each field that does not fit, by its dotted path (under `within`, `whole` when the body
    itself does not fit; `skip` drops a path's leading parts such as FastAPI's `body`)."""
    details = error.errors() if isinstance(error, ValidationError) else error
    found: dict[str, str] = {}
    for detail in details:
        path = ".".join(str(part) for part in detail["loc"] if part not in skip)
        path = ".".join(part for part in (within, path) if part) or whole
        found.setdefault(path, problem(detail))
    return found


def in_words(error: ValidationError, whole: str, most: int | None = None) -> str:
    """The problems as one line, `path: problem; …` (the first `most`, and how many more)."""
    found = list(problems(error, whole=whole).items())
    shown = found if most is None else found[:most]
    line = "; ".join(f"{path}: {what}" for path, what in shown)
    more = len(found) - len(shown)
    return line + (f" (and {more} more)" if more > 0 else "")

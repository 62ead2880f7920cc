"""Words never refuse a patch; they warn (adviser-api.md, Patches): a value under `/options`
that reads like an alternative to agreement, or one under `/alternatives` that reads like a term
of it."""

from collections.abc import Iterator
from typing import Any

ALTERNATIVE_WORDS = (
    "batna",
    "walk away",
    "another offer",
    "other buyer",
    "other supplier",
    "instead",
)
OPTION_WORDS = ("in exchange", "if they agree", "we offer", "package")


def warning_for(pointer: tuple[str, ...], value: Any) -> tuple[str, str] | None:
    """(code, message) for a value written at `pointer`, or None."""
    text = " ".join(_strings(value)).lower()
    if pointer[:1] == ("options",) and any(w in text for w in ALTERNATIVE_WORDS):
        return "looks_like_alternative", "this reads like an alternative to agreement"
    if pointer[:1] == ("alternatives",) and any(w in text for w in OPTION_WORDS):
        return "looks_like_option", "this reads like an option inside an agreement"
    return None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)

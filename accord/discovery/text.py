"""The text of an intent and its tokens, exactly as the spec's Discovery table defines them."""

from __future__ import annotations

import json

import bm25s

from accord.discovery.intents import IntentDoc, Scalar


def _value_text(value: Scalar) -> str:
    """Strings as written; numbers and booleans as JSON (`true`, `1.5`)."""
    return value if isinstance(value, str) else json.dumps(value)


def intent_text(doc: IntentDoc) -> str:
    """The statement and every constraint value, each item of a list on its own."""
    parts = [doc.statement]
    for constraint in doc.constraints:
        items = constraint.value if isinstance(constraint.value, tuple) else (constraint.value,)
        parts.extend(_value_text(item) for item in items)
    return "\n".join(parts)


def tokenize(text: str) -> list[str]:
    """`bm25s.tokenize` defaults: lower-case, `\\w\\w+`, English stop words, no stemming."""
    tokens = bm25s.tokenize([text], return_ids=False, show_progress=False)
    return list(tokens[0])


def tokenize_many(texts: list[str]) -> list[list[str]]:
    """The same tokens for a batch, in one call (a bulk load of the index)."""
    tokens = bm25s.tokenize(texts, return_ids=False, show_progress=False)
    return [list(doc) for doc in tokens]

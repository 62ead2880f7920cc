"""The text of an intent and its tokens."""

import bm25s

from accord.discovery import Constraint, IntentDoc, intent_text, tokenize


def test_text_is_statement_and_each_constraint_value() -> None:
    doc = IntentDoc(
        "i",
        "p",
        "Flat wanted",
        (
            Constraint("city", "in", ("Berlin", "Köln")),
            Constraint("rent", "between", (500, 900.5)),
            Constraint("pets", "eq", True),
        ),
    )
    assert intent_text(doc).split("\n") == ["Flat wanted", "Berlin", "Köln", "500", "900.5", "true"]


def test_tokens_are_bm25s_defaults() -> None:
    text = "The Senior Python developer, in Köln: 5 years, C++ and R!"
    assert tokenize(text) == ["senior", "python", "developer", "köln", "years"]
    assert tokenize(text) == bm25s.tokenize([text], return_ids=False, show_progress=False)[0]

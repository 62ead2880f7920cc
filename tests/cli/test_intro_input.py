"""Reading what a person types for `accord intro` (accord/cli/intro_input.py): one row per form
it takes, and per mistake it turns into a usage error."""

import json
from pathlib import Path
from typing import Any

import pytest
import typer

from accord.cli.intro_input import parse_constraint, parse_identity, parse_questions


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("city eq Lyon", [{"key": "city", "op": "eq", "value": "Lyon"}]),
        ("city eq Le Mans", [{"key": "city", "op": "eq", "value": "Le Mans"}]),
        ("fee_eur lte 120", [{"key": "fee_eur", "op": "lte", "value": 120}]),
        ("fee_eur between [50, 120]", [{"key": "fee_eur", "op": "between", "value": [50, 120]}]),
        ('days in ["sat", "sun"]', [{"key": "days", "op": "in", "value": ["sat", "sun"]}]),
        ("remote eq true", [{"key": "remote", "op": "eq", "value": True}]),
        ('city eq "42"', [{"key": "city", "op": "eq", "value": "42"}]),
        ('{"key": "a", "op": "eq", "value": 1}', [{"key": "a", "op": "eq", "value": 1}]),
        ('[{"key": "a", "op": "eq", "value": 1}, {"key": "b", "op": "lte", "value": 2}]',
         [{"key": "a", "op": "eq", "value": 1}, {"key": "b", "op": "lte", "value": 2}]),
        ("City NEAR x", [{"key": "City", "op": "NEAR", "value": "x"}]),  # the server's to refuse
    ],
)  # fmt: skip
def test_a_constraint_as_typed(text: str, read: list[dict[str, Any]]) -> None:
    assert parse_constraint(text) == read


@pytest.mark.parametrize("text", ["city", "city eq", "", "[1, 2]", "{not json"])
def test_a_constraint_that_cannot_be_read(text: str) -> None:
    with pytest.raises(typer.BadParameter):
        parse_constraint(text)


def test_constraints_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "constraints.json"
    path.write_text(json.dumps([{"key": "a", "op": "eq", "value": 1}]))
    assert parse_constraint(str(path)) == [{"key": "a", "op": "eq", "value": 1}]


@pytest.mark.parametrize(
    ("texts", "read"),
    [
        (["display_name=Ada"], {"display_name": "Ada"}),
        (["headline=Cellist = teacher"], {"headline": "Cellist = teacher"}),
        (["display_name=Ada", "contact=a@b.c"], {"display_name": "Ada", "contact": "a@b.c"}),
        (['{"display_name": "Ada"}', "contact=a@b.c"], {"display_name": "Ada", "contact": "a@b.c"}),
        ([], {}),
    ],
)
def test_identity_as_typed(texts: list[str], read: dict[str, Any]) -> None:
    assert parse_identity(texts) == read


@pytest.mark.parametrize("text", ["name=Ada", "display_name", "[1]", "=Ada"])
def test_identity_that_cannot_be_read(text: str) -> None:
    with pytest.raises(typer.BadParameter):
        parse_identity([text])


@pytest.mark.parametrize(
    ("text", "why", "options", "read"),
    [
        ("Budget?", "to offer a fee", [], [{"question": "Budget?", "why": "to offer a fee"}]),
        ("Day?", "to plan", ["sat", "sun"],
         [{"question": "Day?", "why": "to plan", "options": ["sat", "sun"]}]),
        ('[{"question": "Q", "why": "W"}]', None, [], [{"question": "Q", "why": "W"}]),
    ],
)  # fmt: skip
def test_questions_as_typed(
    text: str, why: str | None, options: list[str], read: list[dict[str, Any]]
) -> None:
    assert parse_questions(text, why, options) == read


@pytest.mark.parametrize(("text", "why"), [("Budget?", None), ('{"question": "Q"}', None)])
def test_questions_that_cannot_be_read(text: str, why: str | None) -> None:
    with pytest.raises(typer.BadParameter):
        parse_questions(text, why, [])

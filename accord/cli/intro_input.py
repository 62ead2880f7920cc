"""Reading what a person types for `accord intro`: constraints as `key op value` or JSON,
identity as JSON or `field=value`, questions as JSON. Only the shape a terminal needs is
read here; the server checks every rule (spec/intro-api.md, Intents), so a bad key or op is
its `invalid_request`, with the fields it names."""

import json
from collections.abc import Sequence
from typing import Any, Final

import typer

from accord.cli.room_input import json_value

IDENTITY_FIELDS: Final = ("display_name", "headline", "contact")


def _scalar(text: str) -> Any:
    """A value as JSON when it reads as JSON (`5000`, `true`, `["a", "b"]`, `[50, 120]`),
    else the text itself (`Lyon`)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_constraint(text: str) -> list[dict[str, Any]]:
    """One `--constraint`: `key op value` (`fee_eur between [50, 120]`, `city eq Lyon`), a
    JSON object `{key, op, value}`, or a JSON list of them (inline or a file)."""
    stripped = text.strip()
    if stripped.startswith(("{", "[")) or stripped.endswith(".json"):
        value = json_value(stripped, "--constraint")
        items = value if isinstance(value, list) else [value]
        if not all(isinstance(item, dict) for item in items):
            raise typer.BadParameter(
                "give {key, op, value} objects, or a list of them", param_hint="--constraint"
            )
        return items
    parts = stripped.split(None, 2)
    if len(parts) != 3:
        raise typer.BadParameter(
            f"{text!r}: write key op value, like 'city eq Lyon' or 'fee_eur lte 120'",
            param_hint="--constraint",
        )
    key, op, value = parts
    return [{"key": key, "op": op, "value": _scalar(value)}]


def parse_constraints(texts: Sequence[str]) -> list[dict[str, Any]]:
    return [constraint for text in texts for constraint in parse_constraint(text)]


def parse_identity(texts: Sequence[str]) -> dict[str, Any]:
    """`--identity`: a JSON object (inline or a file), or `field=value` once per field
    (display_name, headline, contact)."""
    identity: dict[str, Any] = {}
    for text in texts:
        stripped = text.strip()
        if stripped.startswith("{") or stripped.endswith(".json"):
            value = json_value(stripped, "--identity")
            if not isinstance(value, dict):
                raise typer.BadParameter("give a JSON object", param_hint="--identity")
            identity |= value
            continue
        name, equals, value = stripped.partition("=")
        if not equals or name not in IDENTITY_FIELDS:
            raise typer.BadParameter(
                f"{text!r}: write field=value with a field of {', '.join(IDENTITY_FIELDS)}, "
                "or a JSON object",
                param_hint="--identity",
            )
        identity[name] = value
    return identity


def parse_questions(text: str, why: str | None, options: Sequence[str]) -> list[Any]:
    """`questions ask`: one question with --why (and --option for each choice), or a JSON list
    of `{question, options?, why}` (inline or a file)."""
    stripped = text.strip()
    if stripped.startswith("[") or stripped.endswith(".json"):
        value = json_value(stripped, "QUESTION")
        if not isinstance(value, list):
            raise typer.BadParameter("give a JSON list of questions", param_hint="QUESTION")
        return value
    if why is None:
        raise typer.BadParameter(
            "say why the agent needs to know with --why, or give a JSON list of "
            "{question, options?, why}",
            param_hint="--why",
        )
    question: dict[str, Any] = {"question": text, "why": why}
    if options:
        question["options"] = list(options)
    return [question]

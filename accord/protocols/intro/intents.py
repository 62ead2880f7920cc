"""Intents: what a principal wants, and the rules for writing one (spec/intro-api.md, Intents).

As in `moves`, the request models check the shape only (members and types); lengths, ranges and
enumerations are values, checked by `intent_problems` and `patch_problems`, which name every
member at fault. A PATCH sets the members it names, and the result must be valid as a whole:
`patched` merges, and the merged intent is checked like a new one. Whether the owner belongs
to the networks named is the store's to say; `editable` is the last check, after the values.
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from pydantic import Field

from accord.core.jsonio import same_json
from accord.core.refusals import Refusal, RefusalCode
from accord.core.strict import Strict

STATEMENT_LIMIT: Final = 2000
CONSTRAINTS_MAX: Final = 20
IN_MAX: Final = 50
IDENTITY_LIMIT: Final = 200
NETWORKS_MAX: Final = 10
MESSAGE_LIMIT: Final = 4000
NETWORK_NAME_LIMIT: Final = 200
KEY: Final = re.compile(r"[a-z][a-z0-9_]{0,63}")
VISIBILITIES: Final = ("public", "network", "incognito", "private")
STATUSES: Final = ("active", "paused", "archived")
OPS: Final = ("eq", "in", "gte", "lte", "between")
PATCHABLE: Final = ("statement", "constraints", "identity", "networks", "status")


class Constraint(Strict):
    key: str = Field(description="`[a-z][a-z0-9_]{0,63}`.")
    op: str = Field(description="eq, in, gte, lte or between.")
    value: Any = Field(
        description="eq: a string, number or boolean; in: 1..50 of those; gte, lte: a number; "
        "between: [low, high], numbers, low ≤ high."
    )


class Identity(Strict):
    """Shown only in the Identity layer, once both people accepted the introduction."""

    display_name: str | None = Field(None, description="At most 200 characters.")
    headline: str | None = Field(None, description="At most 200 characters.")
    contact: str | None = Field(None, description="At most 200 characters.")


class IntentInput(Strict):
    statement: str = Field(description="The declared want, 1..2,000 characters.")
    constraints: list[Constraint] = Field(
        default_factory=list, description="At most 20; several on one key must all hold."
    )
    identity: Identity = Field(default_factory=Identity)
    visibility: str = Field(description="public, network, incognito or private; fixed at creation.")
    networks: list[str] = Field(
        default_factory=list,
        description="With `network`, 1..10 networks you belong to; otherwise empty.",
    )


class IntentPatch(Strict):
    """Sets the members it names; `visibility` is fixed at creation."""

    statement: str | None = None
    constraints: list[Constraint] | None = None
    identity: Identity | None = None
    networks: list[str] | None = None
    status: str | None = Field(None, description="active, paused or archived (final).")


class ChatInput(Strict):
    message: str = Field(description="1..4,000 characters.")


class NetworkInput(Strict):
    name: str = Field(description="1..200 characters.")


class JoinInput(Strict):
    invite_code: str = Field(description="The code the network's creator was given.")


def text_problem(value: str, limit: int) -> str | None:
    if not value.strip():
        return "must not be blank"
    if len(value) > limit:
        return f"at most {limit} characters"
    return None


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_scalar(value: object) -> bool:
    return isinstance(value, str | bool) or _is_number(value)


def _value_problem(op: str, value: Any) -> str | None:
    match op:
        case "eq":
            return None if _is_scalar(value) else "a string, number or boolean"
        case "in":
            ok = isinstance(value, list) and 1 <= len(value) <= IN_MAX
            if ok and all(_is_scalar(item) for item in value):
                return None
            return f"1..{IN_MAX} strings, numbers or booleans"
        case "gte" | "lte":
            return None if _is_number(value) else "a number"
        case _:  # between
            pair = isinstance(value, list) and len(value) == 2 and all(map(_is_number, value))
            return None if pair and value[0] <= value[1] else "[low, high], numbers, low ≤ high"


def constraint_problems(constraints: Sequence[Constraint]) -> dict[str, str]:
    if len(constraints) > CONSTRAINTS_MAX:
        return {"constraints": f"at most {CONSTRAINTS_MAX}"}
    problems: dict[str, str] = {}
    for index, item in enumerate(constraints):
        at = f"constraints.{index}"
        if not KEY.fullmatch(item.key):
            problems[f"{at}.key"] = "[a-z][a-z0-9_]{0,63}"
        if item.op not in OPS:
            problems[f"{at}.op"] = f"one of {', '.join(OPS)}"
        elif (problem := _value_problem(item.op, item.value)) is not None:
            problems[f"{at}.value"] = problem
    return problems


def intent_problems(intent: IntentInput) -> dict[str, str]:
    """Every value problem of a whole intent, by member."""
    problems = constraint_problems(intent.constraints)
    if (problem := text_problem(intent.statement, STATEMENT_LIMIT)) is not None:
        problems["statement"] = problem
    for name, value in intent.identity.model_dump(exclude_none=True).items():
        if len(value) > IDENTITY_LIMIT:
            problems[f"identity.{name}"] = f"at most {IDENTITY_LIMIT} characters"
    if intent.visibility not in VISIBILITIES:
        problems["visibility"] = f"one of {', '.join(VISIBILITIES)}"
    elif intent.visibility == "network":
        count = len(intent.networks)
        if not 1 <= count <= NETWORKS_MAX or len(set(intent.networks)) != count:
            problems["networks"] = f"1..{NETWORKS_MAX} distinct networks you belong to"
    elif intent.networks:
        problems["networks"] = "only a `network` intent names networks"
    return problems


def patch_problems(patch: IntentPatch) -> dict[str, str]:
    """What a PATCH says wrong by itself: a member named as null, a status not known."""
    problems = {
        name: "must not be null" for name in patch.model_fields_set if getattr(patch, name) is None
    }
    if patch.status is not None and patch.status not in STATUSES:
        problems["status"] = f"one of {', '.join(STATUSES)}"
    return problems


def patched(intent: IntentInput, patch: IntentPatch) -> IntentInput:
    """The intent with the members the patch names set (all but `status`)."""
    named = {
        name: getattr(patch, name)
        for name in patch.model_fields_set & set(IntentInput.model_fields)
        if getattr(patch, name) is not None
    }
    return intent.model_copy(update=named)


def changed(before: IntentInput, after: IntentInput) -> tuple[str, ...]:
    """The stored members whose value a PATCH changed (`status` aside), in a fixed order."""
    old, new = before.model_dump(), after.model_dump()
    return tuple(name for name in PATCHABLE if name in old and not same_json(old[name], new[name]))


def editable(status: str) -> Refusal | None:
    """An archived intent takes no edit and no chat; a paused one does."""
    if status == "archived":
        return Refusal(
            RefusalCode.INTENT_INACTIVE,
            "This intent is archived, which is final: post a new intent instead.",
        )
    return None


def stored(intent: IntentInput) -> Mapping[str, Any]:
    """The members as stored and shown: identity without the members not given."""
    return {
        "statement": intent.statement,
        "constraints": [c.model_dump() for c in intent.constraints],
        "identity": intent.identity.model_dump(exclude_none=True),
        "visibility": intent.visibility,
        "networks": list(intent.networks),
    }

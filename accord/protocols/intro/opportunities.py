"""Discovering and opening opportunities: the bodies and the rules before the index is asked
(spec/intro-api.md, Discovery, Opportunities and Check order).

As in `intents`, the models check the shape; `*_problems` the values. `may_discover` is the
last check of both calls, after the values: a `private` intent never discovers nor opens
(`invalid_request`, `reason: "private_intent"`), and only an `active` one does.
"""

from typing import Final

from pydantic import Field

from accord.core.refusals import Refusal, RefusalCode
from accord.core.strict import Strict

QUERY_LIMIT: Final = 500
LIMIT_MAX: Final = 30
DEFAULT_LIMIT: Final = 10
CANDIDATES_MAX: Final = 30
CONTEXT_LIMIT: Final = 2000
PRIVATE_INTENT: Final = "private_intent"
DECISIONS: Final = ("accepted", "rejected", "expired")


class DiscoverInput(Strict):
    query: str | None = Field(
        None, description="At most 500 characters; ranks first the candidates that share a word."
    )
    limit: int | None = Field(None, description="1..30 candidates, 10 by default.")


class OpenInput(Strict):
    candidates: list[str] = Field(description="1..30 intent ids, as discovery gave them.")
    context: str | None = Field(
        None, description="At most 2,000 characters: a private note for your own agent."
    )


class DecisionInput(Strict):
    status: str = Field(description="accepted, rejected or expired: your own decision.")


def decision_problems(body: DecisionInput) -> dict[str, str]:
    if body.status in DECISIONS:
        return {}
    return {"status": f"one of {', '.join(DECISIONS)}"}


def decided_status(decision: str, theirs: str | None) -> str:
    """The opportunity's status after a person's decision on one that is not final: an
    acceptance is `pending` until the other person accepted too (spec, Decisions)."""
    if decision != "accepted":
        return decision
    return "accepted" if theirs == "accepted" else "pending"


def discover_problems(body: DiscoverInput) -> dict[str, str]:
    problems: dict[str, str] = {}
    if body.query is not None and len(body.query) > QUERY_LIMIT:
        problems["query"] = f"at most {QUERY_LIMIT} characters"
    if body.limit is not None and not 1 <= body.limit <= LIMIT_MAX:
        problems["limit"] = f"1..{LIMIT_MAX}"
    return problems


def open_problems(body: OpenInput) -> dict[str, str]:
    problems: dict[str, str] = {}
    if not 1 <= len(body.candidates) <= CANDIDATES_MAX:
        problems["candidates"] = f"1..{CANDIDATES_MAX} intent ids"
    elif len(set(body.candidates)) != len(body.candidates):
        problems["candidates"] = "distinct intent ids"
    if body.context is not None and len(body.context) > CONTEXT_LIMIT:
        problems["context"] = f"at most {CONTEXT_LIMIT} characters"
    return problems


def may_discover(visibility: str, status: str) -> Refusal | None:
    """`private` first (it never discovers, whatever its status), then `intent_inactive`."""
    if visibility == "private":
        return Refusal(
            RefusalCode.INVALID_REQUEST,
            "A private intent is the agent's own notes: it neither discovers nor opens.",
            {"reason": PRIVATE_INTENT},
        )
    if status != "active":
        return Refusal(
            RefusalCode.INTENT_INACTIVE,
            f"This intent is {status}: only an active intent discovers and opens.",
        )
    return None

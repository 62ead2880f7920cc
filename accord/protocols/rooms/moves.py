"""What a seat or a newcomer may send: strict request models shared by every adapter."""

from typing import Any, Final, Literal

from pydantic import Field, JsonValue

from accord.core.strict import Strict
from accord.protocols.rooms.state import SETS_DEADLINE, SETS_TERMS, MoveType

MAX_MESSAGE = 2000
MAX_TITLE = 200
RFC3339: dict[str, JsonValue] = {"format": "date-time"}
"""Described, not validated by the model: the protocol checks a deadline and says why not."""


OwnerDelivery = Literal["token", "link"]
OWNER_DELIVERY: Final = (
    "`token`: the answer holds the owner token. `link`: the owner token never leaves the "
    "server; `owner_link` (a one-time link for the person, 72 h) comes in its place, for an "
    "agent that must never hold its person's credential."
)


class OpenRequest(Strict):
    title: str | None = Field(None, max_length=MAX_TITLE, description="What the room is about.")
    subject_schema: dict[str, Any] = Field(
        description="The typed fields the terms are made of: {name: {type, label?, optional?, "
        "values?, currency?}}."
    )
    subject: dict[str, Any] | None = Field(
        None, description="The opener's opening offer, if it makes one at open."
    )
    limits: dict[str, Any] | None = Field(
        None, description="The opener's private limits: committed in the log, never shown."
    )
    deadline: str | None = Field(
        None, json_schema_extra=RFC3339, description="RFC 3339; at most 90 days ahead."
    )
    message: str | None = Field(None, max_length=MAX_MESSAGE)
    owner_delivery: OwnerDelivery = Field("token", description=OWNER_DELIVERY)


class JoinRequest(Strict):
    invite_token: str = Field(max_length=200, description="The invite, used once.")
    limits: dict[str, Any] | None = Field(
        None, description="The joiner's private limits: committed in the log, never shown."
    )
    owner_delivery: OwnerDelivery = Field("token", description=OWNER_DELIVERY)


class MoveRequest(Strict):
    type: MoveType
    terms: dict[str, Any] | None = Field(None, description="offer and counter: the terms.")
    subject_hash: str | None = Field(
        None, description="approve: the subject_hash of the terms on the table."
    )
    message: str | None = Field(
        None, max_length=MAX_MESSAGE, description="Required for need_more_detail."
    )
    deadline: str | None = Field(
        None,
        json_schema_extra=RFC3339,
        description="offer, counter, need_more_detail: RFC 3339, replaces the deadline.",
    )
    message_id: str | None = Field(
        None,
        min_length=1,
        max_length=128,
        description="Makes retries safe: the same id and body returns the first response.",
    )
    expected_seq: int | None = Field(
        None, ge=-1, description="The seq of the view this move was decided from."
    )


class ConfirmRequest(Strict):
    decision: Literal["confirm", "decline"]


class ListRequest(Strict):
    tokens: list[str] = Field(max_length=200)
    include_closed: bool = False


def shape_problems(move: MoveRequest) -> dict[str, str]:
    """Members that do not belong to this type of move (answered as invalid_request)."""
    problems: dict[str, str] = {}
    if move.terms is not None and move.type not in SETS_TERMS:
        problems["terms"] = "only offer and counter carry terms"
    if move.type in SETS_TERMS and move.terms is None:
        problems["terms"] = f"{move.type} needs terms"
    if move.subject_hash is not None and move.type != "approve":
        problems["subject_hash"] = "only approve quotes a subject_hash"
    if move.type == "approve" and move.subject_hash is None:
        problems["subject_hash"] = "approve needs the subject_hash of the terms on the table"
    if move.deadline is not None and move.type not in SETS_DEADLINE:
        problems["deadline"] = "only offer, counter and need_more_detail carry a deadline"
    if move.message is not None and move.type == "approve":
        problems["message"] = "approve carries only the subject_hash"
    if move.type == "need_more_detail" and not move.message:
        problems["message"] = "need_more_detail needs a question"
    return problems

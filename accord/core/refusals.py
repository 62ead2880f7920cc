"""Refusals: the one list of stable machine codes, and the value that carries one."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class RefusalCode(StrEnum):
    """Stable codes: lower_snake, never renamed or reused."""

    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"
    MESSAGE_ID_REUSED = "message_id_reused"
    ROOM_NOT_FOUND = "room_not_found"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    INVALID_REQUEST = "invalid_request"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    REQUEST_TIMEOUT = "request_timeout"
    INVALID_TERMS = "invalid_terms"
    INVALID_DEADLINE = "invalid_deadline"
    OUTSIDE_OWN_LIMITS = "outside_own_limits"
    NO_CHANGE = "no_change"
    NOT_YOUR_TURN = "not_your_turn"
    MOVE_NOT_ALLOWED = "move_not_allowed"
    STALE_TERMS = "stale_terms"
    RACED = "raced"
    CONFIRMATION_PENDING = "confirmation_pending"
    CONFIRMATION_NOT_FOUND = "confirmation_not_found"
    ROOM_FINAL = "room_final"
    INVITE_INVALID = "invite_invalid"
    ROOM_OPEN = "room_open"
    RATE_LIMITED = "rate_limited"
    SESSION_NOT_FOUND = "session_not_found"
    SKU_NOT_FOUND = "sku_not_found"
    CURRENCY_MISMATCH = "currency_mismatch"
    NON_MONOTONIC = "non_monotonic"
    UNKNOWN_FAIRNESS_PROFILE = "unknown_fairness_profile"
    UNATTESTED_INCLUSION = "unattested_inclusion"
    PRICE_NOT_ABOVE_INCLUSIONS = "price_not_above_inclusions"
    NOTHING_TO_ACCEPT = "nothing_to_accept"
    SESSION_ENDED = "session_ended"
    SESSION_OPEN = "session_open"
    HANDOFF_PENDING = "handoff_pending"
    HANDOFF_PUBLISHED = "handoff_published"
    NOT_AGREED = "not_agreed"
    EXECUTOR_CHANGED = "executor_changed"
    NOT_A_SEAT = "not_a_seat"
    SETTLED = "settled"
    INTENT_INACTIVE = "intent_inactive"
    ROUND_OVER = "round_over"
    NEEDS_PRINCIPAL = "needs_principal"
    REPEATED_MESSAGE = "repeated_message"
    NO_NEW_CONTEXT = "no_new_context"
    OPPORTUNITY_FINAL = "opportunity_final"
    NEGOTIATION_OPEN = "negotiation_open"
    CASE_CLOSED = "case_closed"
    QUESTION_NOT_OPEN = "question_not_open"
    NOTHING_TO_OVERRIDE = "nothing_to_override"
    FINDING_FINAL = "finding_final"
    NOT_LINKED = "not_linked"
    ALREADY_LINKED = "already_linked"
    WEBHOOK_NOT_FOUND = "webhook_not_found"
    LINK_INVALID = "link_invalid"
    INTERNAL = "internal"


@dataclass(frozen=True)
class Refusal:
    """A user mistake, told with a code, a message that says what to do, and details."""

    code: RefusalCode
    message: str
    details: Mapping[str, Any] = field(default_factory=dict)


class Refused(Exception):
    """The one exception for expected failures; adapters map it to their own shape."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(f"{refusal.code}: {refusal.message}")
        self.refusal = refusal


def refuse(code: RefusalCode, message: str, **details: Any) -> Refused:
    return Refused(Refusal(code, message, details))

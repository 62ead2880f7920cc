"""The hand-off after an agreement (spec/arbitrated-rest.md, Session flow 8): made at once
under an automatic policy, published by the merchant under a manual one; one per session, and
only the buyer's claim ever shows it."""

import base64
from datetime import datetime, timedelta
from typing import Final

from accord.core.envelope import Draft
from accord.core.protocol import Decision, PrivateDraft
from accord.core.refusals import Refusal, RefusalCode
from accord.core.times import format_time, parse_time
from accord.protocols.arbitrated.moves import HandoffRequest
from accord.protocols.arbitrated.policy import url_problem
from accord.protocols.arbitrated.state import ARBITER, HandoffRecord, Phase, SessionState

HANDOFF: Final = "handoff"
"""The private records the hand-off is kept in, beside the chain."""
HANDOFF_RETRY_SECONDS: Final = 5
CODE_BYTES: Final = 10
"""80 bits: the spec's least for a discount code."""


def discount_code(entropy: bytes) -> str:
    """The first 80 bits of `entropy`, grouped for people: ACC-7F3K-9QXM-2WPD-H4TA."""
    if len(entropy) < CODE_BYTES:
        raise ValueError(f"a discount code takes {CODE_BYTES} bytes of entropy, not {len(entropy)}")
    letters = base64.b32encode(entropy[:CODE_BYTES]).decode()
    return "ACC-" + "-".join(letters[i : i + 4] for i in range(0, 16, 4))


def automatic_handoff(state: SessionState, *, now: datetime, code: str) -> PrivateDraft:
    """What an agreement records: the hand-off itself under an automatic policy (`code` is
    the discount code), or that the merchant's is awaited."""
    assert state.merchant is not None, "the merchant's record is folded before any move"
    handoff = state.merchant.policy.handoff
    if handoff.publish != "automatic":
        return PrivateDraft(HANDOFF, Draft("handoff.awaited", ARBITER, {}))
    value = (
        code
        if handoff.kind == "discount_code"
        else f"{handoff.checkout_url}?session_id={state.session_id}"
    )
    published = {
        "kind": handoff.kind,
        "value": value,
        "checkout_url": handoff.checkout_url,
        "expires_at": format_time(now + timedelta(seconds=handoff.ttl_seconds)),
    }
    return PrivateDraft(HANDOFF, Draft("handoff.published", ARBITER, published))


def handoff_problems(request: HandoffRequest, *, now: datetime) -> dict[str, str]:
    """{member: what is wrong} of a merchant's hand-off; empty when none. A buyer is sent to
    its URLs, so they are https (policy.url_problem), and it must not have expired already."""
    problems: dict[str, str] = {}
    if (problem := url_problem(request.checkout_url)) is not None:
        problems["checkout_url"] = problem
    if request.kind == "invoice_url" and (problem := url_problem(request.value)) is not None:
        problems["value"] = problem
    try:
        expires_at = parse_time(request.expires_at)
    except ValueError:
        problems["expires_at"] = "an RFC 3339 time with its offset, like 2026-12-24T17:00:00Z"
    else:
        if expires_at <= now:
            problems["expires_at"] = "a time in the future"
    return problems


def publish(state: SessionState, request: HandoffRequest, *, now: datetime) -> Decision | Refusal:
    """The merchant's hand-off: invalid_request → not_agreed → handoff_published (an
    automatic policy published it at the agreement; a manual one publishes it once, so what a
    buyer claimed never changes)."""
    if problems := handoff_problems(request, now=now):
        return Refusal(
            RefusalCode.INVALID_REQUEST,
            "Fix the hand-off: see fields for what is wrong.",
            {"fields": problems},
        )
    if state.phase is not Phase.AGREED:
        return Refusal(RefusalCode.NOT_AGREED, "Only an agreed session has a hand-off.")
    if state.handoff is not None:
        return Refusal(
            RefusalCode.HANDOFF_PUBLISHED,
            "This session's hand-off is published already; a session has one.",
        )
    record = Draft("handoff.published", ARBITER, request.model_dump())
    return Decision(private=[PrivateDraft(HANDOFF, record)])


def claim(state: SessionState) -> HandoffRecord | Refusal:
    """The buyer's claim: not_agreed → handoff_pending (with `retry_after`) → the hand-off."""
    if state.phase is not Phase.AGREED:
        return Refusal(RefusalCode.NOT_AGREED, "Only an agreed session has a hand-off.")
    if state.handoff is None:
        return Refusal(
            RefusalCode.HANDOFF_PENDING,
            "The merchant has not published the hand-off yet; ask again shortly.",
            {"retry_after": HANDOFF_RETRY_SECONDS},
        )
    return state.handoff

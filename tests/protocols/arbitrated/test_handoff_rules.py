"""The hand-off rules, one row per rule and per refusal, in check order (spec/arbitrated-rest.md,
Session flow 8): the merchant publishes one hand-off per agreed session, with https URLs and an
RFC 3339 expiry in the future; only the buyer's claim shows it."""

import base64
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

import pytest

from accord.core.refusals import Refusal, RefusalCode
from accord.protocols.arbitrated.handoff import HANDOFF_RETRY_SECONDS, discount_code
from tests.protocols.arbitrated.session_builder import (
    ENTROPY,
    HANDOFF_CODE,
    SESSION_ID,
    Session,
    accepted,
    policy,
    refused,
    request,
)

AUTOMATIC: Final = {
    "kind": "discount_code",
    "checkout_url": "https://shop.example.com/checkout",
    "ttl_seconds": 3600,
    "publish": "automatic",
}
MANUAL: Final = AUTOMATIC | {"publish": "manual"}
BODY: Final = {
    "kind": "discount_code",
    "value": "MANUAL-SECRET-7731",
    "checkout_url": "https://shop.example.com/pay",
    "expires_at": "2026-12-01T12:00:00Z",  # a day after the session opens
}
INVOICE: Final = BODY | {"kind": "invoice_url", "value": "https://shop.example.com/inv/7731"}
DISCOUNT_CODE: Final = re.compile(r"ACC-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}")


def session_after(handoff: Mapping[str, Any], steps: Sequence[str]) -> Session:
    """A session on a policy with `handoff`, played through `steps`: "accept" (the opening),
    "reject", "publish" (BODY) or "claim"."""
    session = Session(policy=policy(handoff=dict(handoff)))
    session.open(request(max_rounds=6))
    for step in steps:
        match step:
            case "accept":
                session.accept()
            case "reject":
                session.reject()
            case "publish":
                accepted(session.try_publish(**BODY))
            case "claim":
                session.claim()
            case _:
                raise AssertionError(f"unknown step {step!r}")
    return session


@pytest.mark.parametrize(
    ("handoff", "steps", "body", "code", "fields"),
    [
        pytest.param(
            MANUAL, ["accept"], BODY | {"checkout_url": "javascript:alert(1)"},
            RefusalCode.INVALID_REQUEST, {"checkout_url"}, id="checkout_url_javascript",
        ),
        pytest.param(
            MANUAL, ["accept"], BODY | {"checkout_url": "http://shop.example.com/pay"},
            RefusalCode.INVALID_REQUEST, {"checkout_url"}, id="checkout_url_plain_http",
        ),
        pytest.param(
            MANUAL, ["accept"], BODY | {"checkout_url": "/pay"},
            RefusalCode.INVALID_REQUEST, {"checkout_url"}, id="checkout_url_relative",
        ),
        pytest.param(
            MANUAL, ["accept"], BODY | {"checkout_url": "https://shop.example.com/pay#top"},
            RefusalCode.INVALID_REQUEST, {"checkout_url"}, id="checkout_url_with_a_fragment",
        ),
        pytest.param(
            MANUAL, ["accept"], INVOICE | {"value": "javascript:alert(1)"},
            RefusalCode.INVALID_REQUEST, {"value"}, id="invoice_url_value_not_https",
        ),
        pytest.param(
            MANUAL, ["accept"], BODY | {"expires_at": "next tuesday"},
            RefusalCode.INVALID_REQUEST, {"expires_at"}, id="expires_at_not_a_time",
        ),
        pytest.param(
            MANUAL, ["accept"], BODY | {"expires_at": "2026-12-01T12:00:00"},
            RefusalCode.INVALID_REQUEST, {"expires_at"}, id="expires_at_without_an_offset",
        ),
        pytest.param(
            MANUAL, ["accept"], BODY | {"expires_at": "2026-11-30T12:00:00Z"},
            RefusalCode.INVALID_REQUEST, {"expires_at"}, id="expires_at_now",
        ),
        pytest.param(
            MANUAL, ["accept"], BODY | {"expires_at": "2026-11-30T13:00:00+02:00"},
            RefusalCode.INVALID_REQUEST, {"expires_at"}, id="expires_at_past_in_another_offset",
        ),
        pytest.param(
            MANUAL, ["accept"],
            BODY | {"checkout_url": "javascript:alert(1)", "expires_at": "next tuesday"},
            RefusalCode.INVALID_REQUEST, {"checkout_url", "expires_at"}, id="every_field_named",
        ),
        pytest.param(
            MANUAL, [], BODY | {"checkout_url": "javascript:alert(1)"},
            RefusalCode.INVALID_REQUEST, {"checkout_url"}, id="invalid_before_not_agreed",
        ),
        pytest.param(
            MANUAL, [], BODY, RefusalCode.NOT_AGREED, None, id="not_agreed_while_negotiating",
        ),
        pytest.param(
            MANUAL, ["reject"], BODY, RefusalCode.NOT_AGREED, None, id="not_agreed_when_closed",
        ),
        pytest.param(
            MANUAL, ["accept", "publish"], BODY | {"value": "ANOTHER"},
            RefusalCode.HANDOFF_PUBLISHED, None, id="a_second_hand_off",
        ),
        pytest.param(
            MANUAL, ["accept", "publish", "claim"], BODY | {"value": "ANOTHER"},
            RefusalCode.HANDOFF_PUBLISHED, None, id="a_second_after_the_buyer_claimed",
        ),
        pytest.param(
            AUTOMATIC, ["accept"], BODY, RefusalCode.HANDOFF_PUBLISHED, None,
            id="automatic_published_at_the_agreement",
        ),
        pytest.param(
            AUTOMATIC, ["accept"], BODY | {"expires_at": "next tuesday"},
            RefusalCode.INVALID_REQUEST, {"expires_at"}, id="invalid_before_published",
        ),
    ],
)  # fmt: skip
def test_publish_refusals_in_check_order(
    handoff: Mapping[str, Any],
    steps: Sequence[str],
    body: Mapping[str, Any],
    code: RefusalCode,
    fields: set[str] | None,
) -> None:
    session = session_after(handoff, steps)
    before = (session.current, list(session.log), list(session.private))
    refusal = refused(session.try_publish(**body))
    assert refusal.code == code
    if fields is not None:
        assert set(refusal.details["fields"]) == fields
    assert (session.current, session.log, session.private) == before


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(BODY, id="a_discount_code"),
        pytest.param(INVOICE, id="an_invoice_url"),
        pytest.param(BODY | {"expires_at": "2026-12-01T14:00:00+02:00"}, id="with_an_offset"),
        pytest.param(BODY | {"expires_at": "2026-11-30T12:00:01.5Z"}, id="with_fractions"),
        pytest.param(BODY | {"checkout_url": "http://localhost:8000/pay"}, id="http_localhost"),
    ],
)
def test_a_manual_hand_off_is_published_once_and_claimed_as_sent(body: dict[str, Any]) -> None:
    session = session_after(MANUAL, ["accept"])
    length = len(session.log)
    accepted(session.try_publish(**body))
    assert len(session.log) == length  # beside the chain, never in it
    assert [r.type for r in session.private_of("handoff")] == [
        "handoff.awaited",
        "handoff.published",
    ]
    assert session.claim() == body


@pytest.mark.parametrize(
    ("handoff", "steps", "code"),
    [
        pytest.param(MANUAL, [], RefusalCode.NOT_AGREED, id="negotiating"),
        pytest.param(MANUAL, ["reject"], RefusalCode.NOT_AGREED, id="closed"),
        pytest.param(MANUAL, ["accept"], RefusalCode.HANDOFF_PENDING, id="manual_unpublished"),
    ],
)
def test_claim_refusals(
    handoff: Mapping[str, Any], steps: Sequence[str], code: RefusalCode
) -> None:
    refusal = session_after(handoff, steps).claim()
    assert isinstance(refusal, Refusal)
    assert refusal.code == code
    if code is RefusalCode.HANDOFF_PENDING:
        assert refusal.details == {"retry_after": HANDOFF_RETRY_SECONDS}


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        pytest.param("discount_code", HANDOFF_CODE, id="discount_code"),
        pytest.param(
            "invoice_url", f"https://shop.example.com/checkout?session_id={SESSION_ID}",
            id="invoice_url",
        ),
    ],
)  # fmt: skip
def test_an_automatic_hand_off_is_made_at_the_agreement(kind: str, value: str) -> None:
    session = session_after(AUTOMATIC | {"kind": kind}, ["accept"])
    assert session.claim() == {
        "kind": kind,
        "value": value,
        "checkout_url": "https://shop.example.com/checkout",
        "expires_at": "2026-11-30T13:00:00Z",  # agreed at 12:00, ttl 3600 s
    }


def test_a_discount_code_is_80_bits_of_entropy_grouped_for_people() -> None:
    code = discount_code(ENTROPY)
    assert DISCOUNT_CODE.fullmatch(code), code
    assert base64.b32decode(code[4:].replace("-", "")) == ENTROPY[:10]
    assert discount_code(ENTROPY) == code
    assert discount_code(bytes(32)) != code
    with pytest.raises(ValueError, match="10 bytes"):
        discount_code(ENTROPY[:9])

"""`ArbitratedTable` as the kernel sees it: who may make which move, the buyer's timeout
recorded before any move decides, and what the table says of a session (scope, notices,
signing, receipts, views)."""

from typing import Any, Final

import pytest

from accord.core.protocol import Context, Table
from accord.core.refusals import Refusal, RefusalCode
from accord.protocols.arbitrated.moves import (
    AcceptMove,
    HandoffRequest,
    OfferMove,
    RejectMove,
    RevealMove,
    RevealRequest,
)
from accord.protocols.arbitrated.state import Phase, SessionState
from accord.protocols.arbitrated.table import ArbitratedTable
from accord.protocols.arbitrated.views import session_view
from tests.protocols.arbitrated.session_builder import (
    BASE_URL,
    MERCHANT_NONCE,
    SESSION_ID,
    TABLE,
    Session,
    policy,
    refused,
    request,
)

TIMEOUT: Final = 600
HANDOFF: Final = HandoffRequest(
    kind="discount_code",
    value="MANUAL-SECRET-7731",
    checkout_url="https://shop.example.com/pay",
    expires_at="2026-12-24T12:00:00Z",
)
OFFER: Final = OfferMove(type="offer", price_minor=41000)


def test_it_is_a_table() -> None:
    table: Table[SessionState] = ArbitratedTable(BASE_URL)
    assert table.name == "arbitrated"
    assert table.state_type is SessionState
    assert table.not_found.code == RefusalCode.SESSION_NOT_FOUND


def opened(*steps: str, manual: bool = False) -> Session:
    handoff = {
        "kind": "discount_code",
        "checkout_url": "https://shop.example.com/checkout",
        "ttl_seconds": 3600,
        "publish": "manual" if manual else "automatic",
    }
    session = Session(policy=policy(handoff=handoff))
    session.open(request(max_rounds=6))
    for step in steps:
        assert step in ("accept", "reject")
        session.accept() if step == "accept" else session.reject()
    return session


@pytest.mark.parametrize(
    ("actor", "move", "allowed"),
    [
        pytest.param("buyer", HANDOFF, ["secret"], id="buyer_publishes"),
        pytest.param("buyer", RevealRequest(), ["secret"], id="buyer_opens_the_merchants"),
        pytest.param("merchant", OFFER, None, id="merchant_offers"),
        pytest.param("merchant", AcceptMove(type="accept"), None, id="merchant_accepts"),
        pytest.param("merchant", RevealMove(type="reveal", private={}), None, id="merchant_m"),
    ],
)
def test_a_move_of_the_other_party_is_forbidden_before_the_timeout(
    actor: Any, move: Any, allowed: list[str] | None
) -> None:
    session = opened()
    session.advance_time(seconds=TIMEOUT + 1)
    before = (session.current, list(session.log), list(session.private))
    refusal = refused(TABLE.decide(session.current, move, actor, Context(session.now, b"")))
    assert refusal.code == RefusalCode.FORBIDDEN
    assert refusal.details.get("allowed") == allowed
    assert (session.current, session.log, session.private) == before


@pytest.mark.parametrize(
    ("steps", "actor", "move", "code", "private"),
    [
        pytest.param((), "buyer", OFFER, RefusalCode.SESSION_ENDED, [], id="offer"),
        pytest.param((), "buyer", AcceptMove(type="accept"), RefusalCode.SESSION_ENDED, [],
                     id="accept"),
        pytest.param((), "buyer", RejectMove(type="reject"), RefusalCode.SESSION_ENDED, [],
                     id="reject"),
        pytest.param((), "buyer", RevealMove(type="reveal", private={}), None, ["party.reveal"],
                     id="buyer_reveal_after_the_close"),
        pytest.param((), "merchant", RevealRequest(), None, ["party.reveal"],
                     id="merchant_reveal_after_the_close"),
        pytest.param((), "merchant", HANDOFF, RefusalCode.NOT_AGREED, [], id="publish"),
    ],
)  # fmt: skip
def test_a_timeout_due_is_recorded_then_the_move_decided_on_the_closed_session(
    steps: tuple[str, ...], actor: Any, move: Any, code: RefusalCode | None, private: list[str]
) -> None:
    session = opened(*steps)
    length, records = len(session.log), len(session.private)
    session.advance_time(seconds=TIMEOUT + 1)
    result = session.decide(move, actor)
    if code is None:
        assert not isinstance(result, Refusal)
    else:
        assert refused(result).code == code
    assert session.types[length:] == ["session.close"]
    assert dict(session.log[-1].payload) == {"reason": "timeout", "detail": None}
    assert session.current.phase is Phase.CLOSED
    assert [r.type for _, r in session.private[records:]] == private


def test_at_the_very_second_of_the_timeout_the_buyer_still_moves() -> None:
    session = opened()
    session.advance_time(seconds=TIMEOUT)
    session.offer(41000)
    assert "session.close" not in session.types


def test_a_buyer_move_needs_entropy_for_the_discount_code() -> None:
    session = opened()
    with pytest.raises(ValueError, match="entropy"):
        TABLE.decide(session.current, OFFER, "buyer", Context(session.now, b""))


def test_what_the_table_says_of_a_session() -> None:
    session = opened()
    state = session.current
    assert TABLE.scope(state) == "tenant:ten_test:test"
    assert TABLE.notice_fields(SESSION_ID, state) == {"session_id": SESSION_ID}
    assert TABLE.signing_mode(state) == "test"
    assert TABLE.expires_at(state) == "2026-11-30T12:10:00Z"
    assert not TABLE.is_final(state) and not TABLE.is_agreed(state)
    assert TABLE.view(state, "buyer") == session_view(state, base_url=BASE_URL)
    assert TABLE.view(state, "merchant") == TABLE.view(state, "buyer")
    assert TABLE.view(state, "buyer")["events"] == []
    session.accept()
    assert TABLE.is_final(session.current) and TABLE.is_agreed(session.current)
    assert TABLE.expires_at(session.current) is None


@pytest.mark.parametrize(
    ("step", "signed"),
    [pytest.param("accept", True, id="agreed"), pytest.param("reject", False, id="closed")],
)
def test_the_receipt_reports_i6_kept_and_is_served_with_the_reveals(
    step: str, signed: bool
) -> None:
    session = opened(step)
    body = TABLE.receipt(session.current, session.log, arbiter_id="arb", retention_days=30)
    assert (body.signed_payload is not None) is signed
    assert body.members["invariants"]["I6_signed_artifact"] is True
    assert all(body.members["invariants"].values())
    stored = dict(body.members)
    session.try_reveal({"ceiling_minor": 1})  # opens nothing: the buyer committed to {}
    session.try_merchant_reveal()
    served = TABLE.served_receipt(session.current, stored)
    assert [(r["party"], r["matches"]) for r in served["reveals"]] == [
        ("buyer", False),
        ("merchant", True),
    ]
    assert served["reveals"][1]["private"] == {"nonce": MERCHANT_NONCE, "floor_minor": 38000}
    assert served["invariants"]["I3_commitments_unchanged"] is False
    assert list(served) == list(stored)  # members stay where they were

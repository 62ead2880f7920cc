"""An arbitrated session through the SDK against a real server on 127.0.0.1 (the `shop`
fixture's merchant and policy): a buyer from open to a verified receipt and its hand-off, the
merchant's own surface with its secret key, and refusals as AccordError."""

import pytest

from accord.sdk import Accord, AccordError, BuyerSession
from tests.sdk.conftest import SKU
from tests.sessions.conftest import POLICY, Shop
from tests.sessions.support import FAIR_LOW, OPENING


@pytest.fixture
def buyer(accord: Accord, shop: Shop) -> BuyerSession:
    return accord.sessions.open(shop.keys["publishable_test"], SKU, agent_id="buyer-1")


def test_a_session_from_open_to_a_verified_receipt(
    accord: Accord, shop: Shop, buyer: BuyerSession
) -> None:
    opening = buyer.opening
    assert opening is not None and opening.state == "negotiating" and opening.your_turn
    assert opening.offer_on_table is not None and opening.offer_on_table.proposer == "merchant"
    assert "session_token" in opening.to_json() and buyer.token not in repr(opening)

    view = buyer.offer(FAIR_LOW, justification="the fair edge")
    assert view.state == "negotiating" and view.round == 1
    assert [e.type for e in view.events][:2] == ["offer.counter", "arbitration.evaluate"]
    assert view.last_verdict is not None
    agreed = buyer.offer(OPENING, message_id="final-offer")
    assert agreed.state == "agreed" and agreed.is_final
    again = buyer.offer(OPENING, message_id="final-offer")
    assert again.duplicate and again.state == "agreed"

    receipt = buyer.receipt()
    assert receipt.is_signed and receipt.mode == "test"
    jwks = accord.receipts.jwks()
    checked = accord.receipts.verify(receipt, jwks=jwks, log=buyer.log(), allow_test=True)
    assert checked.ok, checked.to_json()
    assert not accord.receipts.verify(receipt, jwks=jwks).ok  # a test receipt needs allow_test

    handoff = buyer.claim_handoff()
    assert handoff.kind == "discount_code" and handoff.value
    assert handoff.value not in repr(handoff)
    assert buyer.view().log is not None


def test_the_merchant_reads_its_sessions(accord: Accord, shop: Shop, buyer: BuyerSession) -> None:
    buyer.accept()
    merchant = accord.merchant(shop.keys["secret_test"])
    assert merchant.me().to_json() == {
        "tenant_id": shop.tenant_id, "mode": "test", "key_kind": "secret"
    }  # fmt: skip
    listed = merchant.sessions(limit=5)
    assert [(s.session_id, s.state) for s in listed.sessions] == [(buyer.session_id, "agreed")]
    shown = merchant.session(buyer.session_id)
    assert shown.log is not None and shown.state == "agreed"
    assert merchant.log(buyer.session_id).to_json()["envelopes"] == shown.to_json()["log"]
    assert merchant.receipt(buyer.session_id).state == "agreed"
    (reveal,) = merchant.reveal(buyer.session_id).reveals
    assert reveal["party"] == "merchant" and reveal["matches"] is True


def test_the_merchant_keeps_its_policies(accord: Accord, shop: Shop) -> None:
    merchant = accord.merchant(shop.keys["secret_test"])
    stored = merchant.put_policy(SKU, POLICY | {"list_price_minor": 45900})
    assert stored.list_price_minor == 45900 and str(stored.floor_minor) not in repr(stored)
    assert [p.sku for p in merchant.policies().policies] == [SKU]
    (item,) = accord.sessions.catalogue(shop.keys["publishable_test"]).items
    assert (item.sku, item.list_price_minor) == (SKU, 45900)
    assert "floor_minor" not in item.to_json()


def test_a_buyer_walks_away_and_reveals(accord: Accord, buyer: BuyerSession) -> None:
    closed = buyer.reject(reason="too dear")
    assert closed.state == "closed" and closed.close is not None
    assert closed.close.reason == "rejected" and closed.close.detail == "too dear"
    assert not buyer.receipt().is_signed
    revealed = buyer.reveal({})
    assert revealed.state == "closed"
    attached = accord.sessions.attach(buyer.token, buyer.session_id)
    assert attached.view().session_id == buyer.session_id and attached.opening is None


@pytest.mark.parametrize(
    ("act", "code", "status"),
    [
        pytest.param(lambda b, m: b.receipt(), "session_open", 409, id="session_open"),
        pytest.param(lambda b, m: b.claim_handoff(), "not_agreed", 409, id="not_agreed"),
        pytest.param(lambda b, m: b.offer(100, inclusions=["gold"]), "unattested_inclusion", 422,
                     id="unattested_inclusion"),
        pytest.param(lambda b, m: (b.offer(41000), b.offer(40000)), "non_monotonic", 422,
                     id="non_monotonic"),
        pytest.param(lambda b, m: m.sessions(limit=0), "invalid_request", 400,
                     id="limit_out_of_range"),
        pytest.param(lambda b, m: m.session("ses_unknown"), "session_not_found", 404,
                     id="session_not_found"),
        pytest.param(lambda b, m: m.reveal(b.session_id), "session_open", 409,
                     id="reveal_before_the_end"),
    ],
)  # fmt: skip
def test_refusals(accord: Accord, shop: Shop, buyer: BuyerSession, act, code, status) -> None:
    merchant = accord.merchant(shop.keys["secret_test"])
    with pytest.raises(AccordError) as caught:
        act(buyer, merchant)
    assert (caught.value.code, caught.value.status) == (code, status)


def test_keys_are_held_to_their_kind(accord: Accord, shop: Shop) -> None:
    with pytest.raises(AccordError) as caught:
        accord.merchant(shop.keys["publishable_test"]).sessions()
    assert (caught.value.code, caught.value.status) == ("forbidden", 403)
    with pytest.raises(AccordError) as caught:
        accord.sessions.open(shop.keys["publishable_test"], "NO-SUCH-SKU", agent_id="b")
    assert (caught.value.code, caught.value.status) == ("sku_not_found", 404)
    with pytest.raises(AccordError) as caught:
        accord.sessions.open("acc_pk_test_wrong", SKU, agent_id="b")
    assert (caught.value.code, caught.value.status) == ("unauthenticated", 401)

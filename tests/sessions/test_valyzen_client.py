"""An unmodified `valyzen` client (0.1.0, from PyPI) negotiates against Accord over HTTP: only
its base URL and key change."""

from valyzen import GatewayClient, verify_receipt
from valyzen.buyer import Ceiling, FairEdgeModel, run_buyer
from valyzen.keys import ArbiterKey

from tests.sessions.conftest import POLICY, Shop


def _pinned(client: GatewayClient) -> dict[str, ArbiterKey]:
    return {
        key["kid"]: ArbiterKey(key["x"], "Accord", key.get("mode", "live"))
        for key in client.jwks()["keys"]
    }


def test_fair_edge_buyer_reaches_an_agreement_whose_receipt_verifies(shop: Shop) -> None:
    with shop.gateway() as client, shop.gateway("secret_test") as merchant:
        _agree_and_verify(client, merchant)


def _raise_floor(shop: Shop) -> None:
    """A floor above the buyer's fair edge: the fair-edge buyer can never meet it."""
    with shop.client("secret_test") as merchant:
        raised = merchant.put(f"/v1/policies/{POLICY['sku']}", json=POLICY | {"floor_minor": 40500})
        assert raised.status_code == 200, raised.text


def test_a_buyer_whose_edge_is_below_the_floor_closes_at_max_rounds(shop: Shop) -> None:
    _raise_floor(shop)
    with shop.gateway() as client:
        run = run_buyer(
            client, FairEdgeModel(), sku=POLICY["sku"], ceiling=Ceiling(45000), max_turns=30
        )
    assert run.state == "closed"
    assert run.receipt is not None and run.receipt["artifact"] is None


def _agree_and_verify(client: GatewayClient, merchant: GatewayClient) -> None:
    run = run_buyer(
        client,
        FairEdgeModel(),
        sku=POLICY["sku"],
        ceiling=Ceiling(45000),
        inclusions=["warranty", "cable"],
        utilities={"warranty": "0.5", "cable": "0.5"},
    )
    assert run.state == "agreed", run.transcript[-3:]
    assert run.receipt is not None
    log = merchant.session(run.session_id or "").view["log"]
    result = verify_receipt(run.receipt, log=log, trusted_keys=_pinned(client), allow_test=True)
    assert result.ok, [c for c in result.checks if not c.ok]


def test_a_close_by_reject(shop: Shop) -> None:
    with shop.gateway() as client:
        _reject(client)


def _reject(client: GatewayClient) -> None:
    session = client.open_session(POLICY["sku"], agent_id="walker")
    view = session.reject("too dear")
    assert view["state"] == "closed"
    assert view["close"] == {"reason": "rejected", "detail": "too dear"}
    receipt = session.receipt()
    assert receipt["artifact"] is None and receipt["jwks"] == {"keys": []}


def test_a_close_by_max_rounds(shop: Shop) -> None:
    _raise_floor(shop)
    with shop.gateway() as client:
        _offer_past_the_last_round(client)


def _offer_past_the_last_round(client: GatewayClient) -> None:
    session = client.open_session(POLICY["sku"], agent_id="stubborn", max_rounds=2)
    edge = session.fair_edge_minor
    assert edge is not None
    session.offer(edge)
    assert session.state == "negotiating"
    session.offer(edge)
    assert session.state == "negotiating"
    session.offer(edge)
    assert session.view["close"]["reason"] == "max_rounds"

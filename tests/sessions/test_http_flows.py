"""Arbitrated sessions over the real server, end to end (spec/arbitrated-rest.md): rounds and
the corrective round, hand-offs, reveals, timeouts, receipts, and what a buyer never sees."""

import json
import re
import secrets
from typing import Any, cast

import httpx
import pytest
from joserfc import jws
from joserfc.errors import SecurityWarning
from joserfc.jwk import KeySet, KeySetSerialization
from typer.testing import CliRunner

from accord.app.root import Accord
from accord.cli.main import app as cli
from accord.core.jsonio import canonical
from accord.store.database import Database
from accord.trust.commitments import commit_set, private_set
from accord.trust.verify import load_trusted, verify_receipt
from tests.conftest import swept
from tests.http.support import auth
from tests.sessions.conftest import POLICY, Shop
from tests.sessions.support import (
    FLOOR,
    OPENING,
    UNFAIR,
    JSONBody,
    Session,
    agree,
    assert_shape,
    floor_problems,
    get,
    log_of,
    move,
    offer,
    open_body,
    open_session,
    put_policy,
    refused,
)

USD = "USD"
DISCOUNT_CODE = re.compile(r"ACC(-[A-Z2-7]{4}){4}")  # 16 base32 characters: 80 bits
INVARIANTS = [
    "I1_bounded_rounds",
    "I2_same_public_information",
    "I3_commitments_unchanged",
    "I4_monotonic_concession",
    "I5_verdict_for_every_offer",
    "I6_signed_artifact",
    "I7_hash_chain",
]


def _open(api: httpx.Client, shop: Shop, **declared: Any) -> Session:
    return open_session(api, shop.keys["publishable_test"], open_body(**declared))


def _types(view: JSONBody) -> list[str]:
    return [e["type"] for e in view["events"]]


def _receipt(api: httpx.Client, session: Session) -> JSONBody:
    return get(api, f"{session.url}/receipt", session.token)


# -- rounds and the corrective round -------------------------------------------------------


def test_an_offer_unfair_to_the_merchant_opens_a_corrective_round(
    shop: Shop, api: httpx.Client
) -> None:
    session = _open(api, shop)
    view = offer(api, session, UNFAIR)
    assert _types(view) == ["offer.counter", "arbitration.evaluate", "arbitration.reject"]
    counter, evaluate, reject = (e["payload"] for e in view["events"])
    assert view["events"][0]["sender"] == {"role": "buyer"}
    assert counter["round"] == evaluate["round"] == reject["round"] == 1
    assert evaluate["verdict"] == "unfair_to_merchant"
    assert reject["reason"] == "unfair_to_merchant"
    assert reject["suggested_adjustment"] == {"amount_minor": 41900, "currency": USD}
    assert (view["state"], view["corrective"], view["your_turn"]) == ("corrective", True, True)
    assert view["offer_on_table"] is None and view["round"] == 1
    assert view["last_verdict"]["outcome"] == "rejected"
    assert get(api, session.url, session.token)["state"] == "corrective"
    # The corrective offer belongs to the round it corrects, and is a proposal: nothing stands.
    corrected = offer(api, session, 40000)
    assert _types(corrected) == [
        "offer.propose",
        "arbitration.evaluate",
        "offer.counter",
        "arbitration.evaluate",
    ]
    assert [e["payload"]["round"] for e in corrected["events"]] == [1, 1, 1, 1]
    assert [e["sender"]["role"] for e in corrected["events"]] == [
        "buyer",
        "arbiter",
        "merchant",
        "arbiter",
    ]
    assert (corrected["state"], corrected["corrective"], corrected["round"]) == (
        "negotiating",
        False,
        1,
    )
    assert corrected["offer_on_table"]["proposer"] == "merchant"
    # The next offer is round 2.
    assert offer(api, session, 40000)["events"][0]["payload"]["round"] == 2


def test_a_second_unfair_offer_closes_the_session_unfair_offers(
    shop: Shop, api: httpx.Client
) -> None:
    session = _open(api, shop)
    offer(api, session, UNFAIR)
    view = offer(api, session, UNFAIR + 1)
    assert _types(view) == ["offer.propose", "arbitration.evaluate", "session.close"]
    assert view["events"][-1]["payload"]["reason"] == "unfair_offers"
    assert (view["state"], view["close"]["reason"], view["your_turn"]) == (
        "closed",
        "unfair_offers",
        False,
    )
    assert view["offer_on_table"] is None and view["corrective"] is False
    receipt = _receipt(api, session)
    assert receipt["artifact"] is None and receipt["signature"]["status"] == "unsigned"
    # Both of the buyer's offers were refused by the arbiter.
    assert [(v["round"], v["verdict"], v["outcome"]) for v in receipt["verdicts"]] == [
        (0, "fair", "pending"),
        (1, "unfair_to_merchant", "rejected"),
        (1, "unfair_to_merchant", "rejected"),
    ]


def test_a_reject_closes_with_the_buyers_reason(shop: Shop, api: httpx.Client) -> None:
    session = _open(api, shop)
    view = move(api, session, {"type": "reject", "reason": "too dear"})
    assert _types(view) == ["session.close"]
    assert view["close"] == {"reason": "rejected", "detail": "too dear"}
    assert view["receipt"] == f"{shop.server.url}{session.url}/receipt"


def _last_round(api: httpx.Client, shop: Shop) -> tuple[Session, JSONBody]:
    """max_rounds 2 and a floor above the fair edge: two fair offers below the floor, both
    countered, the second in the last round."""
    put_policy(api, shop.keys["secret_test"], floor_minor=FLOOR)
    session = _open(api, shop, max_rounds=2)
    first = offer(api, session, 39905)
    assert _types(first)[-2:] == ["offer.counter", "arbitration.evaluate"]
    last = offer(api, session, 39916)
    assert (last["state"], last["round"], last["max_rounds"]) == ("negotiating", 2, 2)
    assert last["offer_on_table"]["proposer"] == "merchant"
    return session, last


def test_an_offer_past_the_last_round_closes_max_rounds_unrecorded(
    shop: Shop, api: httpx.Client
) -> None:
    session, _ = _last_round(api, shop)
    secret = shop.keys["secret_test"]
    before = log_of(api, session, secret)
    view = offer(api, session, 40000)
    assert _types(view) == ["session.close"]
    assert view["close"] == {"reason": "max_rounds", "detail": None}
    after = log_of(api, session, secret)
    assert after[:-1] == before and after[-1]["type"] == "session.close"
    assert not any(
        e["payload"].get("terms", {}).get("price", {}).get("amount_minor") == 40000 for e in after
    )
    receipt = _receipt(api, session)
    assert all(v["round"] <= 2 for v in receipt["verdicts"])
    assert all(receipt["invariants"].values())


def test_an_accept_after_the_last_merchant_answer_agrees(shop: Shop, api: httpx.Client) -> None:
    session, last = _last_round(api, shop)
    standing = last["offer_on_table"]["terms"]
    view = move(api, session, {"type": "accept"})
    assert _types(view) == ["session.agree"]
    agreed = view["events"][0]["payload"]
    assert agreed == {"final_terms": standing, "accepted_by": "buyer", "round": 2}
    assert view["state"] == "agreed" and view["offer_on_table"] is None
    receipt = _receipt(api, session)
    assert receipt["final_terms"] == standing
    assert receipt["verdicts"][-1]["outcome"] == "accepted"


def test_the_merchant_accepts_at_its_floor_in_the_last_round(shop: Shop, api: httpx.Client) -> None:
    session, _ = _last_round(api, shop)
    refused(
        api.post(
            f"{session.url}/messages",
            json={"type": "offer", "price_minor": 39915},
            headers=auth(session.token),
        ),
        "non_monotonic",
    )
    # Past the last round any offer closes: the floor is reached only within the rounds.
    assert offer(api, session, FLOOR)["close"]["reason"] == "max_rounds"


def test_an_offer_unfair_to_the_buyer_is_recorded_and_may_agree(
    shop: Shop, api: httpx.Client
) -> None:
    session = _open(api, shop)
    view = offer(api, session, 50000)
    assert _types(view) == ["offer.counter", "arbitration.evaluate", "session.agree"]
    assert view["events"][1]["payload"]["verdict"] == "unfair_to_buyer"
    assert view["events"][2]["payload"]["accepted_by"] == "merchant"
    verdicts = _receipt(api, session)["verdicts"]
    assert [(v["verdict"], v["outcome"]) for v in verdicts] == [
        ("fair", "pending"),
        ("unfair_to_buyer", "accepted"),
    ]


# -- hand-off ------------------------------------------------------------------------------


def _everything_the_parties_read(api: httpx.Client, shop: Shop, session: Session) -> list[str]:
    secret = shop.keys["secret_test"]
    return [
        api.get(session.url, headers=auth(session.token)).text,
        api.get(session.url, headers=auth(secret)).text,
        api.get(f"{session.url}/log", headers=auth(session.token)).text,
        api.get(f"{session.url}/log", headers=auth(secret)).text,
        api.get(f"{session.url}/receipt", headers=auth(session.token)).text,
        api.get(f"{session.url}/receipt", headers=auth(secret)).text,
        api.get("/v1/sessions", headers=auth(secret)).text,
    ]


def test_an_automatic_discount_code_is_only_in_the_claims_answer(
    shop: Shop, api: httpx.Client
) -> None:
    session = open_session(api, shop.keys["publishable_test"])
    agreed = api.post(
        f"{session.url}/messages",
        json={"type": "offer", "price_minor": OPENING},
        headers=auth(session.token),
    )
    assert agreed.json()["state"] == "agreed"
    claimed = api.post(f"{session.url}/handoff/claim", headers=auth(session.token))
    assert claimed.status_code == 200, claimed.text
    handoff = claimed.json()
    assert set(handoff) == {"kind", "value", "checkout_url", "expires_at"}
    assert handoff["kind"] == "discount_code"
    assert DISCOUNT_CODE.fullmatch(handoff["value"]), handoff
    assert handoff["checkout_url"] == POLICY["handoff"]["checkout_url"]
    assert handoff["expires_at"] == "2026-11-30T13:00:00Z"  # agreed at 12:00, ttl 3600 s
    again = api.post(f"{session.url}/handoff/claim", headers=auth(session.token)).json()
    assert again == handoff
    for text in [agreed.text, *_everything_the_parties_read(api, shop, session)]:
        assert handoff["value"] not in text
    # Each agreement gets a fresh code.
    other, _ = agree(api, shop.keys["publishable_test"])
    code = api.post(f"{other.url}/handoff/claim", headers=auth(other.token)).json()["value"]
    assert DISCOUNT_CODE.fullmatch(code) and code != handoff["value"]


def test_an_automatic_invoice_url_names_the_session(shop: Shop, api: httpx.Client) -> None:
    put_policy(
        api,
        shop.keys["secret_test"],
        handoff=POLICY["handoff"] | {"kind": "invoice_url", "ttl_seconds": 60},
    )
    session, _ = agree(api, shop.keys["publishable_test"])
    claimed = api.post(f"{session.url}/handoff/claim", headers=auth(session.token))
    assert claimed.status_code == 200, claimed.text
    assert claimed.json() == {
        "kind": "invoice_url",
        "value": f"https://shop.example/checkout?session_id={session.session_id}",
        "checkout_url": "https://shop.example/checkout",
        "expires_at": "2026-11-30T12:01:00Z",
    }
    for text in _everything_the_parties_read(api, shop, session):
        assert claimed.json()["value"] not in text


def test_a_manual_hand_off_is_pending_until_the_merchant_publishes_it(
    shop: Shop, api: httpx.Client
) -> None:
    secret = shop.keys["secret_test"]
    put_policy(api, secret, handoff=POLICY["handoff"] | {"publish": "manual"})
    session, _ = agree(api, shop.keys["publishable_test"])
    before = log_of(api, session, secret)
    pending = api.post(f"{session.url}/handoff/claim", headers=auth(session.token))
    error = refused(pending, "handoff_pending")
    assert isinstance(error["retry_after"], int) and error["retry_after"] > 0
    assert pending.headers["Retry-After"] == str(error["retry_after"])
    published_body = {
        "kind": "discount_code",
        "value": "MANUAL-SECRET-7731",
        "checkout_url": "https://shop.example/pay",
        "expires_at": "2026-12-01T12:00:00Z",
    }
    published = api.post(f"{session.url}/handoff", json=published_body, headers=auth(secret))
    assert published.status_code == 200, published.text
    assert published.json() == published_body
    claimed = api.post(f"{session.url}/handoff/claim", headers=auth(session.token))
    assert claimed.status_code == 200 and claimed.json() == published_body
    assert log_of(api, session, secret) == before  # the hand-off is beside the chain
    for text in _everything_the_parties_read(api, shop, session):
        assert "MANUAL-SECRET-7731" not in text


def test_no_hand_off_for_a_closed_session(shop: Shop, api: httpx.Client) -> None:
    session = _open(api, shop)
    move(api, session, {"type": "reject"})
    refused(api.post(f"{session.url}/handoff/claim", headers=auth(session.token)), "not_agreed")
    body = {
        "kind": "discount_code",
        "value": "X",
        "checkout_url": "https://shop.example/pay",
        "expires_at": "2026-12-01T12:00:00Z",
    }
    refused(
        api.post(f"{session.url}/handoff", json=body, headers=auth(shop.keys["secret_test"])),
        "not_agreed",
    )


# -- reveals -------------------------------------------------------------------------------


def _committed(api: httpx.Client, shop: Shop) -> tuple[Session, dict[str, Any], str]:
    private = private_set({"ceiling_minor": 45000}, nonce=secrets.token_urlsafe(24))
    commitment = commit_set(private)
    body = {"sku": POLICY["sku"], "buyer": {"agent_id": "committed", "commitment": commitment}}
    session = open_session(api, shop.keys["publishable_test"], body)
    parties = session.view["events"][0]["payload"]["parties"]
    assert parties["buyer"]["commitment"] == commitment
    assert parties["buyer"]["commitment_by"] == "buyer"
    return session, private, commitment


def test_the_buyers_reveal_after_the_end_matches_its_commitment(
    shop: Shop, api: httpx.Client
) -> None:
    session, private, commitment = _committed(api, shop)
    refused(
        api.post(
            f"{session.url}/messages",
            json={"type": "reveal", "private": private},
            headers=auth(session.token),
        ),
        "session_open",
    )
    offer(api, session, OPENING)
    before = log_of(api, session, shop.keys["secret_test"])
    move(api, session, {"type": "reveal", "private": private})
    assert log_of(api, session, shop.keys["secret_test"]) == before  # beside the chain
    reveals = _receipt(api, session)["reveals"]
    assert reveals == [
        {"party": "buyer", "commitment": commitment, "matches": True, "private": private}
    ]


def test_a_reveal_that_does_not_open_the_commitment_does_not_match(
    shop: Shop, api: httpx.Client
) -> None:
    session, private, _ = _committed(api, shop)
    move(api, session, {"type": "reject"})
    move(api, session, {"type": "reveal", "private": private | {"ceiling_minor": 45001}})
    (reveal,) = _receipt(api, session)["reveals"]
    assert (reveal["party"], reveal["matches"]) == ("buyer", False)


def test_the_merchants_reveal_opens_its_floor_after_the_end(shop: Shop, api: httpx.Client) -> None:
    secret = shop.keys["secret_test"]
    put_policy(api, secret, floor_minor=FLOOR)
    session, _ = agree(api, shop.keys["publishable_test"])
    revealed = api.post(f"{session.url}/reveal", json={}, headers=auth(secret))
    assert revealed.status_code == 200, revealed.text
    commitment = session.view["events"][0]["payload"]["parties"]["merchant"]["commitment"]
    (reveal,) = _receipt(api, session)["reveals"]
    assert revealed.json()["reveals"] == [reveal]
    assert reveal["party"] == "merchant" and reveal["matches"] is True
    assert reveal["commitment"] == commitment
    assert set(reveal["private"]) == {"nonce", "floor_minor"}
    assert reveal["private"]["floor_minor"] == FLOOR
    assert commit_set(reveal["private"]) == commitment


# -- timeouts ------------------------------------------------------------------------------


def test_silence_past_the_round_timeout_closes_on_the_next_read(
    shop: Shop, api: httpx.Client
) -> None:
    session = _open(api, shop)
    shop.server.clock.advance(seconds=POLICY["round_timeout_seconds"] - 1)
    assert get(api, session.url, session.token)["state"] == "negotiating"
    shop.server.clock.advance(seconds=2)
    view = get(api, session.url, session.token)
    assert view["state"] == "closed" and view["close"] == {"reason": "timeout", "detail": None}
    log = log_of(api, session, shop.keys["secret_test"])
    assert log[-1]["type"] == "session.close"
    assert log[-1]["payload"] == {"reason": "timeout", "detail": None}
    assert [e["type"] for e in log].count("session.close") == 1
    refused(
        api.post(f"{session.url}/messages", json={"type": "accept"}, headers=auth(session.token)),
        "session_ended",
    )
    assert _receipt(api, session)["state"] == "closed"


def test_a_move_after_the_timeout_is_refused_session_ended(shop: Shop, api: httpx.Client) -> None:
    session = _open(api, shop)
    shop.server.clock.advance(seconds=POLICY["round_timeout_seconds"] + 1)
    refused(
        api.post(f"{session.url}/messages", json={"type": "accept"}, headers=auth(session.token)),
        "session_ended",
    )
    assert get(api, session.url, session.token)["close"]["reason"] == "timeout"


def test_the_sweeper_closes_a_silent_session(shop: Shop, api: httpx.Client) -> None:
    silent = _open(api, shop)
    shop.server.clock.advance(seconds=600)
    recent = _open(api, shop)
    shop.server.clock.advance(seconds=301)
    settings, clock = shop.server.settings, shop.server.clock
    db = Database(settings.database, apply_migrations=False)
    try:
        sweeper = Accord(settings, clock=clock, db=db)
        assert swept(sweeper) == [silent.session_id]
        assert swept(sweeper) == []
    finally:
        db.close()
    secret = shop.keys["secret_test"]
    closed = log_of(api, silent, secret)
    assert closed[-1]["type"] == "session.close" and closed[-1]["payload"]["reason"] == "timeout"
    assert [e["type"] for e in log_of(api, recent, secret)][-1] == "arbitration.evaluate"
    states = {s["session_id"]: s["state"] for s in get(api, "/v1/sessions", secret)["sessions"]}
    assert states == {silent.session_id: "closed", recent.session_id: "negotiating"}


# -- receipts ------------------------------------------------------------------------------


def _joserfc_verify(receipt: JSONBody, jwks: JSONBody) -> Any:
    artifact = receipt["artifact"]
    compact = f"{artifact['protected']}..{artifact['signature']}"
    with pytest.warns(SecurityWarning, match="RFC 9864"):
        return jws.deserialize_compact(
            compact,
            KeySet.import_key_set(cast(KeySetSerialization, jwks)),
            algorithms=["EdDSA"],
            payload=canonical(receipt["signed_payload"]),
        )


@pytest.mark.parametrize("mode", ["test", "live"])
def test_an_agreed_receipt_is_signed_with_the_key_of_the_sessions_mode(
    shop: Shop, api: httpx.Client, mode: str
) -> None:
    put_policy(api, shop.keys[f"secret_{mode}"])
    session, _ = agree(api, shop.keys[f"publishable_{mode}"])
    secret = shop.keys[f"secret_{mode}"]
    receipt = _receipt(api, session)
    assert get(api, f"{session.url}/receipt", secret) == receipt
    log = log_of(api, session, secret)
    jwks = get(api, "/.well-known/jwks.json", session.token)
    assert_shape(receipt, "Receipt")
    assert (receipt["state"], receipt["mode"], receipt["session_id"]) == (
        "agreed",
        mode,
        session.session_id,
    )
    assert receipt["signature"]["status"] == "valid"
    assert receipt["chain"]["length"] == len(log)
    (signer,) = [k for k in jwks["keys"] if k["mode"] == mode]
    assert [k["kid"] for k in receipt["jwks"]["keys"]] == [signer["kid"]]
    verification = verify_receipt(
        receipt, trusted=load_trusted(jwks), log=log, allow_test=mode == "test"
    )
    assert (verification.ok, verification.status, verification.kid) == (
        True,
        "valid",
        signer["kid"],
    )
    strict = verify_receipt(receipt, trusted=load_trusted(jwks), log=log, allow_test=False)
    assert strict.ok is (mode == "live")
    verified = _joserfc_verify(receipt, jwks)
    assert verified.headers()["kid"] == signer["kid"]
    assert sorted(receipt["invariants"]) == INVARIANTS
    assert all(receipt["invariants"].values()), receipt["invariants"]
    assert receipt["final_terms"] == receipt["signed_payload"]["final_terms"]
    assert [
        (v["round"], v["verdict"], v["price_minor"], v["outcome"]) for v in receipt["verdicts"]
    ] == [
        (0, "fair", OPENING, "pending"),
        (1, "fair", OPENING, "accepted"),
    ]


def test_a_closed_session_gets_an_unsigned_receipt(shop: Shop, api: httpx.Client) -> None:
    session = _open(api, shop)
    offer(api, session, 40000)
    move(api, session, {"type": "reject", "reason": "later"})
    receipt = _receipt(api, session)
    assert_shape(receipt, "Receipt")
    assert receipt["state"] == "closed" and receipt["final_terms"] is None
    assert receipt["artifact"] is None and receipt["signed_payload"] is None
    assert receipt["signature"]["status"] == "unsigned" and receipt["jwks"] == {"keys": []}
    assert sorted(receipt["invariants"]) == INVARIANTS and all(receipt["invariants"].values())
    assert [v["outcome"] for v in receipt["verdicts"]] == ["pending", "pending", "pending"]
    log = log_of(api, session, shop.keys["secret_test"])
    verification = verify_receipt(receipt, log=log)
    assert (verification.ok, verification.status) == (False, "unsigned")


def test_every_view_matches_the_schema(shop: Shop, api: httpx.Client) -> None:
    session = _open(api, shop)
    views = [session.view, offer(api, session, UNFAIR), offer(api, session, 40000)]
    views += [move(api, session, {"type": "accept"}), get(api, session.url, session.token)]
    for view in views:
        assert_shape(view, "SessionView")


# -- privacy -------------------------------------------------------------------------------


def test_a_buyer_never_sees_the_floor_nor_the_merchants_nonce(
    shop: Shop, api: httpx.Client
) -> None:
    """Every answer a session token or the publishable key gets, in a session that goes through
    a corrective round, counters, refusals, the last round, an agreement and a claim."""
    secret, pk = shop.keys["secret_test"], shop.keys["publishable_test"]
    stored = put_policy(api, secret, floor_minor=FLOOR)
    assert stored["floor_minor"] == FLOOR  # the merchant's own reads may show it
    assert floor_problems(api.get("/v1/policies", headers=auth(secret)).text)
    texts: list[str] = []

    def buyer(method: str, url: str, token: str, body: Any = None) -> httpx.Response:
        response = api.request(method, url, json=body, headers=auth(token))
        texts.append(response.text)
        return response

    texts.append(api.get("/v1/catalogue", headers=auth(pk)).text)
    texts.append(api.get("/v1/me", headers=auth(pk)).text)
    opened = buyer("POST", "/v1/sessions", pk, open_body(max_rounds=3, utilities={"cable": "0.5"}))
    session = Session(opened.json()["session_id"], opened.json()["session_token"], opened.json())
    token, url = session.token, session.url
    moves = [
        {"type": "accept", "message_id": "a"},
        {"type": "offer", "price_minor": UNFAIR},
        {"type": "accept"},  # nothing_to_accept in the corrective round
        {"type": "offer", "price_minor": 39905 + 750, "inclusions": ["cable"]},
        {"type": "offer", "price_minor": 1, "inclusions": ["cable"]},  # price_not_above
        {"type": "offer", "price_minor": 39906, "inclusions": ["gold"]},  # unattested
        {"type": "offer", "price_minor": 39904},  # non_monotonic
        {"type": "offer", "price_minor": 39905},  # round 2, countered
        {"type": "offer", "price_minor": 39910},  # round 3, the last, below the floor: countered
        {"type": "offer", "price_minor": 39916},  # past the last round: closes max_rounds
        {"type": "reveal", "private": {}},
    ]
    for body in moves:
        buyer("POST", f"{url}/messages", token, body)
        for path in ("", "/log", "/receipt", "/handoff/claim"):
            buyer("POST" if path == "/handoff/claim" else "GET", f"{url}{path}", token)
    # Another session agrees, for an agreed view, receipt and claim.
    other = open_session(api, pk)
    texts.append(
        api.post(
            f"{other.url}/messages",
            json={"type": "offer", "price_minor": OPENING},
            headers=auth(other.token),
        ).text
    )
    for path in ("", "/log", "/receipt"):
        buyer("GET", f"{other.url}{path}", other.token)
    buyer("POST", f"{other.url}/handoff/claim", other.token)
    buyer("POST", f"{other.url}/messages", other.token, {"type": "offer", "price_minor": 1})
    # A third session times out.
    silent = open_session(api, pk)
    shop.server.clock.advance(seconds=POLICY["round_timeout_seconds"] + 1)
    for path in ("", "/log", "/receipt"):
        buyer("GET", f"{silent.url}{path}", silent.token)
    assert get(api, url, token)["state"] in ("closed", "agreed")
    # Only now does the merchant open its commitments, which tells the test their nonces.
    nonces = []
    for s in (session, other, silent):
        revealed = api.post(f"{s.url}/reveal", json={}, headers=auth(secret))
        assert revealed.status_code == 200, revealed.text
        nonces.append(revealed.json()["reveals"][-1]["private"]["nonce"])
    assert len(texts) > 50
    for text in texts:
        for nonce in nonces:
            assert not floor_problems(text, nonce=nonce), (floor_problems(text, nonce=nonce), text)


@pytest.mark.parametrize("ending", ["agreed", "closed"])
def test_a_reveal_that_does_not_match_is_reported_by_invariant_i3(
    shop: Shop, api: httpx.Client, ending: str
) -> None:
    session, private, _ = _committed(api, shop)
    if ending == "agreed":
        offer(api, session, OPENING)
    else:
        move(api, session, {"type": "reject"})
    assert _receipt(api, session)["invariants"]["I3_commitments_unchanged"] is True
    move(api, session, {"type": "reveal", "private": private | {"ceiling_minor": 1}})
    receipt = _receipt(api, session)
    assert [r["matches"] for r in receipt["reveals"]] == [False]
    assert receipt["invariants"]["I3_commitments_unchanged"] is False


def test_the_cli_sweep_closes_a_silent_session(shop: Shop, api: httpx.Client) -> None:
    """`accord sweep --json` on the server's database, with the real clock: the session was
    opened ten years back on the server's clock, so it is long due whatever today is."""
    shop.server.clock.advance(days=-3650)
    silent = _open(api, shop)
    settings = shop.server.settings
    args = ["sweep", "--json", "--data-dir", str(settings.data_dir)]
    if settings.database_url:
        args += ["--database-url", settings.database_url]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "expired": [],
        "closed": [{"protocol": "arbitrated", "id": silent.session_id, "reason": "timeout"}],
        "opportunities_expired": [],
    }
    view = get(api, silent.url, silent.token)
    assert view["state"] == "closed" and view["close"]["reason"] == "timeout"

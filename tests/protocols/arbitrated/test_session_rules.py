"""The arbitrated session rules, one row per rule and per refusal, in the spec's check order
(spec/arbitrated-rest.md, Session flow).

Unless a row says otherwise the policy is `session_builder.policy()` and the buyer declares
`max_rounds` 6 and utility 0.5 for both inclusions, so:
t_target 41900, band 0.05: fair_low 39905, fair_high 44105; floor 38000, so the reservation is
fair_low; W(warranty) = 1950 and W(case) = round_half_even(1950.5) = 1950; linear asks
(44105, 43405, 42706, 42005, 41306, 40605); the opening is 44105 + W(warranty) = 46055 with
the default `warranty`.
With floor 42000 the reservation is the floor: max_rounds 2 gives asks (44105, 43053), and
max_rounds 1 gives (44105,).
"""

from collections.abc import Mapping, Sequence
from typing import Any, Final

import pytest

from accord.core.commit import is_opening
from accord.core.envelope import Envelope
from accord.core.refusals import RefusalCode
from accord.protocols.arbitrated.moves import (
    AcceptMove,
    BuyerMove,
    OfferMove,
    RejectMove,
    RevealMove,
)
from accord.protocols.arbitrated.receipt import build_receipt, invariants
from accord.protocols.arbitrated.state import Phase
from accord.trust.commitments import commit_set
from tests.protocols.arbitrated.session_builder import (
    MERCHANT_NONCE,
    Session,
    policy,
    refused,
    request,
)

HALF: Final = {"warranty": "0.5", "case": "0.5"}
DECLARED: Final[dict[str, Any]] = {"max_rounds": 6, "utilities": HALF}
FLOORED: Final[dict[str, Any]] = {"floor_minor": 42000}
OPENING: Final = 46055
OPENING_TERMS: Final = {
    "price": {"amount_minor": OPENING, "currency": "EUR"},
    "inclusions": [{"kind": "warranty", "value": "included"}],
}
EVALUATED: Final = ("offer.counter", "arbitration.evaluate")
COUNTERED: Final = [*EVALUATED, "offer.counter", "arbitration.evaluate"]
AGREED: Final = [*EVALUATED, "session.agree"]
REFUSED: Final = [*EVALUATED, "arbitration.reject"]

Step = tuple[Any, ...]


def eur(amount_minor: int) -> dict[str, Any]:
    return {"amount_minor": amount_minor, "currency": "EUR"}


def offer(price_minor: int, *inclusions: str) -> OfferMove:
    return OfferMove(type="offer", price_minor=price_minor, inclusions=list(inclusions))


ACCEPT: Final = AcceptMove(type="accept")
REJECT: Final = RejectMove(type="reject")


def opened(
    policy_overrides: Mapping[str, Any] | None = None,
    declared: Mapping[str, Any] | None = None,
    steps: Sequence[Step] = (),
) -> Session:
    """A session opened and played through `steps`: ("offer", price, *kinds), ("accept",),
    ("reject", reason) or ("expire", seconds)."""
    session = Session(policy=policy(**(policy_overrides or {})))
    session.open(request(**(DECLARED if declared is None else declared)))
    for step in steps:
        match step:
            case ("offer", int(price), *kinds):
                session.offer(price, *kinds)
            case ("accept",):
                session.accept()
            case ("reject", reason):
                session.reject(reason)
            case ("expire", seconds):
                session.advance_time(seconds=seconds)
                assert session.expire() is not None
            case _:
                raise AssertionError(f"unknown step {step!r}")
    return session


def waiting(session: Session) -> Session:
    """The same session as if it were the merchant's turn. No move of the buyer leaves the
    pure protocol there (every offer is answered in the same decision), but the server could
    be, between two writes, and the check must still come in its place."""
    session.state = session.current.model_copy(update={"your_turn": False})
    return session


def answer(session: Session) -> Envelope:
    """The last envelope the last call appended, other than the arbiter's evaluation."""
    return [e for e in session.events if e.type != "arbitration.evaluate"][-1]


# -- opening ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "code"),
    [
        pytest.param(
            request(fairness_profile="default/v9", currency="USD"),
            RefusalCode.UNKNOWN_FAIRNESS_PROFILE,
            id="unknown_profile_before_currency",
        ),
        pytest.param(
            request(fairness_profile="nash/v1"),
            RefusalCode.UNKNOWN_FAIRNESS_PROFILE,
            id="unknown_fairness_profile",
        ),
        pytest.param(request(currency="USD"), RefusalCode.CURRENCY_MISMATCH, id="currency"),
    ],
)
def test_open_refusals_in_order(body: Any, code: RefusalCode) -> None:
    session = Session()
    assert refused(session.try_open(body)).code == code
    assert session.state is None
    assert session.log == []
    assert session.private == []


def test_open_with_the_skus_currency_declared() -> None:
    session = Session()
    session.open(request(currency="EUR"))
    assert session.types == ["session.accept", "offer.propose", "arbitration.evaluate"]


@pytest.mark.parametrize(
    ("declared", "policy_rounds", "expected"),
    [
        pytest.param({}, 6, 5, id="default_5_below_the_policy"),
        pytest.param({}, 3, 3, id="default_capped_by_the_policy"),
        pytest.param({"max_rounds": 2}, 6, 2, id="declared_below_the_policy"),
        pytest.param({"max_rounds": 6}, 6, 6, id="declared_equal_to_the_policy"),
        pytest.param({"max_rounds": 100}, 8, 8, id="declared_capped_by_the_policy"),
    ],
)
def test_max_rounds_capped_by_the_policy(
    declared: dict[str, Any], policy_rounds: int, expected: int
) -> None:
    session = opened({"max_rounds": policy_rounds}, declared)
    accept = session.log[0].payload
    assert accept["session_rules"]["max_rounds"] == expected
    assert session.current.max_rounds == expected
    assert session.view()["max_rounds"] == expected


BUYER_COMMITMENT: Final = commit_set({"nonce": "buyer-nonce-6f0b1c2d3e4f5a6b7c8d", "max": 42000})


@pytest.mark.parametrize(
    ("commitment", "expected", "by"),
    [
        pytest.param(BUYER_COMMITMENT, BUYER_COMMITMENT, "buyer", id="given_by_the_buyer"),
        pytest.param(None, commit_set({}), "server", id="server_commits_to_the_empty_set"),
    ],
)
def test_buyer_commitment(commitment: str | None, expected: str, by: str) -> None:
    session = Session()
    session.open(request(commitment=commitment))
    buyer = session.log[0].payload["parties"]["buyer"]
    assert buyer["commitment"] == expected
    assert buyer["commitment_by"] == by
    merchant = session.log[0].payload["parties"]["merchant"]
    floor = session.policy["floor_minor"]
    assert is_opening(merchant["commitment"], {"nonce": MERCHANT_NONCE, "floor_minor": floor})


def test_session_accept_publishes_the_rules_and_attested_inputs() -> None:
    session = opened()
    payload = session.log[0].payload
    assert payload["session_rules"] == {
        "max_rounds": 6,
        "fair_band": "0.05",
        "round_timeout_seconds": 600,
        "fairness_profile": "default/v0.1",
    }
    attested = payload["attested"]
    assert attested["list_price"] == eur(49900)
    assert attested["t_target"] == eur(41900)
    assert attested["inclusion_values"] == {"warranty": eur(3900), "case": eur(3901)}
    assert session.log[0].sender == {"role": "arbiter"}


@pytest.mark.parametrize(
    ("policy_overrides", "declared", "price", "inclusions"),
    [
        pytest.param({}, DECLARED, OPENING, ["warranty"], id="lowered_to_fair_high_plus_w"),
        pytest.param({}, {}, 44105, ["warranty"], id="no_utilities_w_is_zero"),
        # listed = 43000 - 1950 = 41050 < fair_high: the list price itself
        pytest.param({"list_price_minor": 43000}, DECLARED, 43000, ["warranty"], id="at_list"),
        # listed = 41900 - 1950 = 39950 > reservation 39905: still K0 = default
        pytest.param(
            {"list_price_minor": 41900}, DECLARED, 41900, ["warranty"], id="list_is_reference"
        ),
        # W(default) = 1 * 20000: 49900 - 20000 ≤ 39905, so K0 is empty
        pytest.param(
            {
                "inclusions": [
                    {"kind": "warranty", "value_minor": 20000, "included_by_default": True}
                ]
            },
            {"max_rounds": 6, "utilities": {"warranty": "1"}},
            44105,
            [],
            id="k0_empty_when_default_reaches_the_reservation",
        ),
        # list - W(default) = 44000 - 1950 = 42050, not above the floor 42050: K0 empty
        pytest.param(
            {"list_price_minor": 44000, "floor_minor": 42050},
            DECLARED,
            44000,
            [],
            id="k0_empty_when_the_floor_binds",
        ),
        pytest.param(FLOORED, DECLARED, OPENING, ["warranty"], id="floor_not_in_the_opening"),
    ],
)
def test_round_0_merchant_offer_at_the_opening_ask(
    policy_overrides: dict[str, Any], declared: dict[str, Any], price: int, inclusions: list[str]
) -> None:
    session = opened(policy_overrides, declared)
    assert session.types == ["session.accept", "offer.propose", "arbitration.evaluate"]
    propose, evaluate = session.log[1], session.log[2]
    assert propose.sender == {"role": "merchant"}
    assert propose.payload["round"] == 0
    assert propose.payload["terms"]["price"] == eur(price)
    assert [i["kind"] for i in propose.payload["terms"].get("inclusions", [])] == inclusions
    assert evaluate.payload["round"] == 0
    assert evaluate.payload["verdict"] == "fair"
    view = session.view()
    assert (view["state"], view["round"], view["your_turn"]) == ("negotiating", 0, True)
    assert view["offer_on_table"] == {"proposer": "merchant", "terms": propose.payload["terms"]}


# -- buyer moves: refusals in check order -------------------------------------------------


@pytest.mark.parametrize(
    ("policy_overrides", "declared", "steps", "merchant_turn", "move", "code"),
    [
        pytest.param(
            {}, None, [("reject", None)], True, offer(0, "gift_wrap"),
            RefusalCode.SESSION_ENDED, id="session_ended_before_not_your_turn",
        ),
        pytest.param(
            {}, None, [("accept",)], False, ACCEPT,
            RefusalCode.SESSION_ENDED, id="session_ended_after_agreement",
        ),
        pytest.param(
            {}, None, [("expire", 601)], False, REJECT,
            RefusalCode.SESSION_ENDED, id="session_ended_after_timeout",
        ),
        pytest.param(
            {}, None, [("offer", 30000)], True, ACCEPT,
            RefusalCode.NOT_YOUR_TURN, id="not_your_turn_before_nothing_to_accept",
        ),
        pytest.param(
            {}, None, [], True, offer(0, "gift_wrap"),
            RefusalCode.NOT_YOUR_TURN, id="not_your_turn_before_unattested_inclusion",
        ),
        pytest.param(
            {}, None, [], True, REJECT,
            RefusalCode.NOT_YOUR_TURN, id="not_your_turn_for_reject",
        ),
        pytest.param(
            {}, None, [("offer", 30000)], False, ACCEPT,
            RefusalCode.NOTHING_TO_ACCEPT, id="nothing_to_accept_when_corrective",
        ),
        pytest.param(
            {}, None, [], False, offer(0, "gift_wrap"),
            RefusalCode.UNATTESTED_INCLUSION, id="unattested_before_price_not_above",
        ),
        pytest.param(
            {}, None, [], False, offer(60000, "warranty", "gift_wrap"),
            RefusalCode.UNATTESTED_INCLUSION, id="unattested_beside_an_attested_one",
        ),
        pytest.param(
            {}, None, [("offer", 41000)], False, offer(1950, "warranty"),
            RefusalCode.PRICE_NOT_ABOVE_INCLUSIONS, id="net_zero_before_non_monotonic",
        ),
        pytest.param(
            {}, None, [], False, offer(0),
            RefusalCode.PRICE_NOT_ABOVE_INCLUSIONS, id="price_zero",
        ),
        pytest.param(
            {}, None, [("offer", 41000)], False, offer(40999),
            RefusalCode.NON_MONOTONIC, id="non_monotonic_price",
        ),
        pytest.param(
            {}, None, [("offer", 41000)], False, offer(42949, "warranty"),
            RefusalCode.NON_MONOTONIC, id="non_monotonic_net_with_inclusions",
        ),
        pytest.param(
            {}, None, [("offer", 30000)], False, offer(29999),
            RefusalCode.NON_MONOTONIC, id="corrective_below_the_refused_offer",
        ),
        pytest.param(
            FLOORED, {"max_rounds": 1, "utilities": HALF}, [("offer", 41000)], False,
            offer(40000), RefusalCode.NON_MONOTONIC, id="non_monotonic_before_max_rounds",
        ),
    ],
)  # fmt: skip
def test_buyer_move_refusals_in_check_order(
    policy_overrides: dict[str, Any],
    declared: dict[str, Any] | None,
    steps: list[Step],
    merchant_turn: bool,
    move: BuyerMove,
    code: RefusalCode,
) -> None:
    session = opened(policy_overrides, declared, steps)
    if merchant_turn:
        waiting(session)
    before = (session.current, list(session.log), list(session.private))
    assert refused(session.try_move(move)).code == code
    assert (session.current, session.log, session.private) == before


# -- buyer offers: scored, refused, answered -----------------------------------------------


@pytest.mark.parametrize(
    ("steps", "kind"),
    [
        pytest.param([], "offer.counter", id="counter_to_the_opening"),
        pytest.param([("offer", 41000)], "offer.counter", id="counter_to_a_merchant_counter"),
        pytest.param([("offer", 30000)], "offer.propose", id="propose_when_nothing_stands"),
    ],
)
def test_buyer_offer_kind(steps: list[Step], kind: str) -> None:
    session = opened(steps=steps)
    session.offer(41000)
    buyer = session.events[0]
    assert (buyer.type, buyer.sender) == (kind, {"role": "buyer"})


@pytest.mark.parametrize(
    ("policy_overrides", "declared", "steps", "move", "types", "last"),
    [
        pytest.param(
            {}, None, [], offer(43405), AGREED,
            {"final_terms": {"price": eur(43405)}, "accepted_by": "merchant", "round": 1},
            id="accepted_at_ask_1",
        ),
        pytest.param(
            {}, None, [], offer(45355, "warranty"), AGREED,
            {
                "final_terms": {
                    "price": eur(45355), "inclusions": [{"kind": "warranty", "value": "included"}]
                },
                "accepted_by": "merchant",
                "round": 1,
            },
            id="accepted_net_of_inclusions",
        ),
        pytest.param(
            {}, None, [], offer(43404), COUNTERED,
            {"round": 1, "terms": {"price": eur(43405)}}, id="countered_one_below_ask_1",
        ),
        pytest.param(
            {}, None, [], offer(42000, "case"), COUNTERED,
            {
                "round": 1,
                "terms": {
                    "price": eur(45355), "inclusions": [{"kind": "case", "value": "included"}]
                },
            },
            id="counter_carries_the_buyers_inclusions",
        ),
        pytest.param(
            {}, None, [("offer", 41000)], offer(42706), AGREED,
            {"final_terms": {"price": eur(42706)}, "accepted_by": "merchant", "round": 2},
            id="accepted_at_ask_2",
        ),
        pytest.param(
            {}, None, [("offer", 41000)], offer(41000), COUNTERED,
            {"round": 2, "terms": {"price": eur(42706)}}, id="same_net_again_is_monotonic",
        ),
        pytest.param(
            {}, None, [], offer(46000), AGREED,
            {"final_terms": {"price": eur(46000)}, "accepted_by": "merchant", "round": 1},
            id="unfair_to_buyer_is_recorded_and_accepted",
        ),
        pytest.param(
            {}, None, [], offer(39904), REFUSED,
            {"round": 1, "reason": "unfair_to_merchant", "suggested_adjustment": eur(41900)},
            id="one_below_fair_low_refused",
        ),
        pytest.param(
            {}, None, [], offer(39905), COUNTERED,
            {"round": 1, "terms": {"price": eur(43405)}}, id="fair_low_is_fair",
        ),
        # the last round (2 of 2) accepts at the reservation, the floor here ...
        pytest.param(
            FLOORED, {"max_rounds": 2, "utilities": HALF}, [("offer", 41000)], offer(42000),
            AGREED, {"final_terms": {"price": eur(42000)}, "accepted_by": "merchant", "round": 2},
            id="last_round_accepts_at_the_reservation",
        ),
        # ... and otherwise counters at ask(max_rounds - 1), never lower
        pytest.param(
            FLOORED, {"max_rounds": 2, "utilities": HALF}, [("offer", 41000)], offer(41999),
            COUNTERED, {"round": 2, "terms": {"price": eur(43053)}},
            id="last_round_counters_at_the_previous_ask",
        ),
        pytest.param(
            {}, {"max_rounds": 2, "utilities": HALF}, [("offer", 41000)], offer(41000),
            AGREED, {"final_terms": {"price": eur(41000)}, "accepted_by": "merchant", "round": 2},
            id="last_round_accepts_any_fair_offer_above_fair_low",
        ),
        pytest.param(
            FLOORED, {"max_rounds": 1, "utilities": HALF}, [("offer", 41000)], offer(41999),
            ["session.close"], {"reason": "max_rounds", "detail": None},
            id="offer_after_the_last_round_closes_unrecorded",
        ),
        pytest.param(
            FLOORED, {"max_rounds": 1, "utilities": HALF}, [("offer", 41000)], offer(50000),
            ["session.close"], {"reason": "max_rounds", "detail": None},
            id="max_rounds_close_even_above_every_ask",
        ),
    ],
)  # fmt: skip
def test_buyer_offer_answers(
    policy_overrides: dict[str, Any],
    declared: dict[str, Any] | None,
    steps: list[Step],
    move: BuyerMove,
    types: list[str],
    last: dict[str, Any],
) -> None:
    session = opened(policy_overrides, declared, steps)
    session.try_move(move)
    assert session.event_types == types
    assert dict(answer(session).payload) == last
    evaluations = [e for e in session.events if e.type == "arbitration.evaluate"]
    assert all(e.payload["round"] == session.current.round for e in evaluations)


def test_offer_after_the_last_round_leaves_the_counter_unanswered() -> None:
    session = opened(FLOORED, {"max_rounds": 1, "utilities": HALF}, [("offer", 41000)])
    offers = len(session.of_type("offer.counter"))
    session.offer(41999)
    assert len(session.of_type("offer.counter")) == offers
    assert session.current.phase is Phase.CLOSED
    assert session.current.round == 1


# -- the corrective round ----------------------------------------------------------------


def test_unfair_offer_is_refused_into_the_corrective_round() -> None:
    session = opened(steps=[("offer", 30000)])
    assert session.event_types == REFUSED
    assert session.events[1].payload["verdict"] == "unfair_to_merchant"
    view = session.view()
    assert (view["state"], view["corrective"], view["your_turn"]) == ("corrective", True, True)
    assert view["offer_on_table"] is None
    assert view["round"] == 1


@pytest.mark.parametrize(
    ("move", "types", "last", "phase"),
    [
        pytest.param(
            offer(30001), ["offer.propose", "arbitration.evaluate", "session.close"],
            {"reason": "unfair_offers"}, Phase.CLOSED, id="second_unfair_offer_closes",
        ),
        pytest.param(
            offer(41000), ["offer.propose", "arbitration.evaluate", *COUNTERED[2:]],
            {"round": 1, "terms": {"price": eur(43405)}}, Phase.NEGOTIATING,
            id="fair_corrective_offer_continues_in_the_same_round",
        ),
        pytest.param(
            offer(43405), ["offer.propose", "arbitration.evaluate", "session.agree"],
            {"accepted_by": "merchant", "round": 1}, Phase.AGREED,
            id="corrective_offer_at_ask_1_is_accepted_in_round_1",
        ),
        pytest.param(
            RejectMove(type="reject", reason="no deal"), ["session.close"],
            {"reason": "rejected", "detail": "no deal"}, Phase.CLOSED,
            id="reject_instead_of_correcting",
        ),
    ],
)  # fmt: skip
def test_corrective_offer(
    move: BuyerMove, types: list[str], last: dict[str, Any], phase: Phase
) -> None:
    session = opened(steps=[("offer", 30000)])
    session.try_move(move)
    assert session.event_types == types
    assert dict(answer(session).payload).items() >= last.items()
    assert session.current.phase is phase
    assert session.current.round == 1
    rounds = {e.payload["round"] for e in session.events if "round" in e.payload}
    assert rounds <= {1}


def test_round_after_a_corrected_round_is_the_next() -> None:
    session = opened(steps=[("offer", 30000), ("offer", 41000)])
    session.offer(41500)
    assert session.events[0].payload["round"] == 2
    assert session.current.round == 2


# -- accept, reject, timeout -------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy_overrides", "declared", "steps", "terms", "round_"),
    [
        pytest.param({}, None, [], OPENING_TERMS, 0, id="the_opening"),
        pytest.param(
            {}, None, [("offer", 41000)], {"price": eur(43405)}, 1, id="a_counter"
        ),
        pytest.param(
            {}, None, [("offer", 42000, "case")],
            {"price": eur(45355), "inclusions": [{"kind": "case", "value": "included"}]}, 1,
            id="a_counter_with_inclusions",
        ),
        pytest.param(
            FLOORED, {"max_rounds": 2, "utilities": HALF}, [("offer", 41000), ("offer", 41500)],
            {"price": eur(43053)}, 2, id="after_the_last_round",
        ),
    ],
)  # fmt: skip
def test_buyer_accepts_the_standing_offer(
    policy_overrides: dict[str, Any],
    declared: dict[str, Any] | None,
    steps: list[Step],
    terms: dict[str, Any],
    round_: int,
) -> None:
    session = opened(policy_overrides, declared, steps)
    session.accept()
    assert session.event_types == ["session.agree"]
    assert dict(session.events[0].payload) == {
        "final_terms": terms,
        "accepted_by": "buyer",
        "round": round_,
    }
    assert session.current.phase is Phase.AGREED
    assert session.current.final_terms == terms
    # publish: automatic, discount_code: the hand-off is made at once, privately
    [handoff] = session.private_of("handoff")
    assert handoff.type == "handoff.published"
    assert session.view()["offer_on_table"] is None


@pytest.mark.parametrize(
    ("reason", "detail"),
    [
        pytest.param("too expensive for me", "too expensive for me", id="with_detail"),
        pytest.param(None, None, id="without_detail"),
    ],
)
def test_reject_closes_with_the_buyers_reason(reason: str | None, detail: str | None) -> None:
    session = opened(steps=[("offer", 41000)])
    session.reject(reason)
    assert session.event_types == ["session.close"]
    assert dict(session.events[0].payload) == {"reason": "rejected", "detail": detail}
    assert session.view()["close"] == {"reason": "rejected", "detail": detail}


@pytest.mark.parametrize(
    ("steps", "after_seconds", "closes"),
    [
        pytest.param([], 599, False, id="before_the_timeout"),
        pytest.param([], 601, True, id="past_the_timeout"),
        pytest.param([], 86_400, True, id="long_past_the_timeout"),
        pytest.param([("offer", 30000)], 601, True, id="past_the_timeout_when_corrective"),
        pytest.param([("accept",)], 86_400, False, id="agreed_never_times_out"),
        pytest.param([("reject", None)], 86_400, False, id="closed_never_times_out"),
    ],
)
def test_timeout_by_expire(steps: list[Step], after_seconds: int, closes: bool) -> None:
    session = opened(steps=steps)
    length = len(session.log)
    session.advance_time(seconds=after_seconds)
    decision = session.expire()
    assert (decision is not None) == closes
    if closes:
        assert session.types[length:] == ["session.close"]
        assert dict(session.log[-1].payload) == {"reason": "timeout", "detail": None}
    else:
        assert len(session.log) == length


def test_timeout_counts_from_the_merchants_last_answer() -> None:
    session = opened()
    session.advance_time(seconds=500)
    session.offer(41000)
    session.advance_time(seconds=500)
    assert session.expire() is None
    session.advance_time(seconds=101)
    assert session.expire() is not None


# -- verdicts, invariants and reveals ----------------------------------------------------


@pytest.mark.parametrize(
    ("steps", "outcomes"),
    [
        pytest.param([], ["pending"], id="opening"),
        pytest.param([("accept",)], ["accepted"], id="buyer_accepts_the_opening"),
        pytest.param([("offer", 41000)], ["pending"] * 3, id="countered"),
        pytest.param([("offer", 43405)], ["pending", "accepted"], id="merchant_accepts"),
        pytest.param([("offer", 41000), ("accept",)], [*["pending"] * 2, "accepted"], id="b_acc"),
        pytest.param([("offer", 30000)], ["pending", "rejected"], id="refused"),
        pytest.param(
            [("offer", 30000), ("offer", 41000)],
            ["pending", "rejected", "pending", "pending"],
            id="corrected",
        ),
        # arbitrated-rest, "Verdicts in the receipt": `rejected` is "the arbiter refused the
        # offer"; a refused corrective offer is refused by the arbiter (Session flow 4), and
        # nobody answered it, so it is not `pending` ("answered by the other side").
        pytest.param(
            [("offer", 30000), ("offer", 30001)],
            ["pending", "rejected", "rejected"],
            id="refused_corrective_offer_is_rejected",
        ),
        pytest.param([("offer", 41000), ("reject", "no")], ["pending"] * 3, id="rejected_by_buyer"),
    ],
)
def test_verdict_outcomes(steps: list[Step], outcomes: list[str]) -> None:
    session = opened(steps=steps)
    assert [v.outcome for v in session.current.verdicts] == outcomes
    if session.current.is_final:
        receipt = build_receipt(session.current, session.log, arbiter_id="arb", retention_days=30)
        assert [v["outcome"] for v in receipt.members["verdicts"]] == outcomes


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param([("accept",)], id="agreed"),
        pytest.param([("offer", 41000), ("reject", "no")], id="rejected"),
        pytest.param([("offer", 30000), ("offer", 30001)], id="unfair_offers"),
    ],
)
def test_invariants_hold_at_the_end(steps: list[Step]) -> None:
    session = opened(steps=steps)
    checks = invariants(session.current, session.log)
    agreed = session.current.phase is Phase.AGREED
    assert checks.pop("I6_signed_artifact") is not agreed
    assert all(checks.values()), checks


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param([], id="negotiating"),
        pytest.param([("offer", 30000)], id="corrective"),
    ],
)
def test_reveals_only_after_the_end(steps: list[Step]) -> None:
    session = opened(steps=steps)
    assert refused(session.try_reveal({})).code == RefusalCode.SESSION_OPEN
    assert refused(session.try_merchant_reveal()).code == RefusalCode.SESSION_OPEN
    assert [record.type for _, record in session.private] == ["merchant.context"]
    assert session.current.reveals == ()


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param([("accept",)], id="after_agreement"),
        pytest.param([("reject", None)], id="after_reject"),
        pytest.param([("expire", 601)], id="after_timeout"),
    ],
)
def test_reveals_after_the_end_match_their_commitments(steps: list[Step]) -> None:
    session = opened(steps=steps)
    length = len(session.log)
    session.try_move(RevealMove(type="reveal", private={}))
    session.try_merchant_reveal()
    assert len(session.log) == length  # reveals are beside the chain, never in it
    reveals = session.current.reveals
    assert [r["party"] for r in reveals] == ["buyer", "merchant"]
    assert reveals[1]["private"] == {"nonce": MERCHANT_NONCE, "floor_minor": 38000}
    assert invariants(session.current, session.log)["I3_commitments_unchanged"]
    receipt = build_receipt(session.current, session.log, arbiter_id="arb", retention_days=30)
    assert [(r["party"], r["matches"]) for r in receipt.members["reveals"]] == [
        ("buyer", True),
        ("merchant", True),
    ]

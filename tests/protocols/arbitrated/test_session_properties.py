"""Properties of arbitrated sessions over random valid policies and random buyers
(spec/arbitrated-rest.md: Session flow, Invariants, Fairness profile).

After every step: the chain verifies and the state is the fold of the log and the private
records (the builder checks both on every append); a refused move changes nothing; the
invariants hold (I6 until signing); the merchant never agrees below its floor, never makes an
offer the arbiter scores unfair and never raises its net ask; nothing follows the end; and
nothing a buyer can read carries the floor or the merchant's nonce.

The floor check is meant to fail only on a leak. Every member of the buyer-visible output that
echoes the buyer's own offer (its terms, and the arbiter's `price_minor`/`t_minor` for it) is
taken out first, so that the buyer may offer exactly at the floor; and the floor is drawn
unequal to every other number the public inputs give (list and reference prices, inclusion
values, W of every inclusion set and t_target + W), while the merchant's asks are above the
floor by construction (merchant.py). What remains may not hold the floor as a number, nor as
a run of digits in any string other than a hash.
"""

import itertools
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from accord.core.chain import verify_chain
from accord.core.commit import is_opening
from accord.core.refusals import Refusal, RefusalCode
from accord.protocols.arbitrated.apply import replay
from accord.protocols.arbitrated.moves import AcceptMove, OfferMove, RejectMove
from accord.protocols.arbitrated.policy import band_top
from accord.protocols.arbitrated.receipt import build_receipt, invariants
from accord.protocols.arbitrated.state import Phase
from tests.protocols.arbitrated.session_builder import Session, policy, request

KINDS: Final = ("warranty", "case", "shipping", "setup")
BANDS: Final = ("0.01", "0.05", "0.1", "0.2", "0.25")
UTILITIES: Final = ("0", "0.25", "0.5", "0.333", "0.75", "1", "1.0")
NONCE: Final = "nonce-m-ZXhhbXBsZS1tZXJjaGFudC1ub25jZS0x"
TERMINAL: Final = frozenset({"session.agree", "session.close"})
HASH: Final = re.compile(r"sha256:[0-9a-f]{64}")
DIGITS: Final = re.compile(r"[0-9]+")
EXAMPLES: Final = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def weight(kinds: Sequence[str], utilities: Mapping[str, str], values: Mapping[str, int]) -> int:
    """W as the spec defines it, written again here: Σ u(k) · value(k), half-even."""
    total = sum(
        (Fraction(Decimal(utilities.get(k, "0"))) * values[k] for k in dict.fromkeys(kinds)),
        Fraction(0),
    )
    return round(total)


def fair_low_of(t_target_minor: int, band: str) -> int:
    return math.ceil(Fraction(t_target_minor) / (1 + Fraction(band)))


def subsets(kinds: Sequence[str]) -> Iterator[tuple[str, ...]]:
    for size in range(len(kinds) + 1):
        yield from itertools.combinations(kinds, size)


@st.composite
def setups(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A valid policy (per `policy_problems`, which the builder checks) and the buyer's
    declared members, with a floor no public input gives."""
    band = draw(st.sampled_from(BANDS))
    list_price = draw(st.integers(20_000, 2_000_000))
    reference = draw(st.integers(15_000, list_price))
    fair_low = fair_low_of(reference, band)
    top = min(list_price, band_top(reference, band))
    floor = draw(
        st.one_of(
            st.integers(10_000, top - 1),  # anywhere, mostly below fair_low
            st.integers(max(10_000, fair_low - 50), top - 1),  # near or above it: it binds
        )
    )
    kinds = draw(st.lists(st.sampled_from(KINDS), unique=True, max_size=3))
    values = {k: draw(st.integers(0, list_price // 3)) for k in kinds}
    inclusions = [
        {"kind": k, "value_minor": v, "included_by_default": draw(st.booleans())}
        for k, v in values.items()
    ]
    utilities = {
        k: draw(st.sampled_from(UTILITIES))
        for k in draw(st.lists(st.sampled_from(KINDS), unique=True))
    }
    public = {list_price, reference, *values.values()}
    for subset in subsets(kinds):
        w = weight(subset, utilities, values)
        public |= {w, reference + w}
    assume(floor not in public)
    members = {
        "list_price_minor": list_price,
        "reference_price_minor": reference,
        "floor_minor": floor,
        "inclusions": inclusions,
        "concession": {"style": draw(st.sampled_from(["boulware", "linear", "conceder"]))},
        "max_rounds": draw(st.integers(1, 8)),
        "fair_band": band,
    }
    declared: dict[str, Any] = {"utilities": utilities}
    if draw(st.booleans()):
        declared["max_rounds"] = draw(st.integers(1, 10))
    return members, declared


# -- what a buyer may read ------------------------------------------------------------------


def redacted_log(log: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The envelopes without what echoes the buyer's own offers (its terms, the arbiter's
    price_minor and t_minor for them, and the agreement on them)."""
    out: list[dict[str, Any]] = []
    buyer_offer = False
    for envelope in log:
        copy = json.loads(json.dumps(envelope))
        payload = copy["payload"]
        kind = copy["type"]
        if kind in ("offer.propose", "offer.counter"):
            buyer_offer = copy["sender"]["role"] == "buyer"
            if buyer_offer:
                del payload["terms"]
        elif kind == "arbitration.evaluate" and buyer_offer:
            del payload["price_minor"], payload["t_minor"]
        elif kind == "session.agree" and payload["accepted_by"] == "merchant":
            del payload["final_terms"]
        elif kind == "arbitration.reject":
            del payload["suggested_adjustment"]["amount_minor"]  # t_target + W: public anyway
        out.append(copy)
    return out


def redacted_view(view: Mapping[str, Any], session: Session) -> dict[str, Any]:
    copy: dict[str, Any] = json.loads(json.dumps(view))
    copy["events"] = redacted_log(copy["events"])
    copy["log"] = redacted_log(copy["log"])
    verdicts = session.current.verdicts
    if verdicts and verdicts[-1].proposer == "buyer":
        del copy["last_verdict"]["price_minor"]
    return copy


def numbers_and_strings(value: Any) -> Iterator[int | str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from numbers_and_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from numbers_and_strings(item)
    elif isinstance(value, int | str) and not isinstance(value, bool):
        yield value


def assert_private_values_hidden(session: Session, floor: int) -> None:
    wire = [e.to_json() for e in session.log]
    visible: list[Any] = [redacted_view(session.view(), session), redacted_log(wire)]
    if session.current.is_final and not session.current.reveals:
        receipt = build_receipt(session.current, session.log, arbiter_id="arb", retention_days=1)
        # verdict prices are in the log; terms the merchant accepted are the buyer's own
        echoed = {"verdicts": None}
        if session.current.accepted_by == "merchant":
            echoed["final_terms"] = None
        visible.append(receipt.members | echoed)
        if receipt.signed_payload is not None:
            visible.append(receipt.signed_payload | echoed)
    for item in numbers_and_strings(visible):
        if isinstance(item, int):
            assert item != floor, "the floor is in what the buyer reads"
        elif not HASH.fullmatch(item):
            assert str(floor) not in DIGITS.findall(item), f"the floor is in {item!r}"
    text = session.buyer_visible_json()
    assert NONCE not in text
    assert "floor" not in text


# -- the checks after every step ----------------------------------------------------------


def check_step(session: Session, floor: int, previous_length: int, was_final: bool) -> None:
    state = session.current
    log = session.log
    verify_chain([e.to_json() for e in log])
    assert replay(log, session.private) == state
    checks = invariants(state, log)
    assert checks.pop("I6_signed_artifact") is (state.phase is not Phase.AGREED)
    assert all(checks.values()), checks
    if was_final:
        assert len(log) == previous_length, "appended after the end"
    terminal = [i for i, e in enumerate(log) if e.type in TERMINAL]
    assert terminal in ([], [len(log) - 1]), "the end is the last envelope, and only one"
    assert state.is_final == bool(terminal)

    values = {k: v["amount_minor"] for k, v in state.attested["inclusion_values"].items()}
    utilities = state.buyer_utilities
    merchant_ts: list[int] = []
    for offer, evaluation in itertools.pairwise(log):
        if offer.type not in ("offer.propose", "offer.counter"):
            continue
        assert evaluation.type == "arbitration.evaluate"
        if offer.sender["role"] == "merchant":
            assert evaluation.payload["verdict"] == "fair", "a merchant offer scored unfair"
            merchant_ts.append(evaluation.payload["t_minor"])
    assert merchant_ts == sorted(merchant_ts, reverse=True), "the merchant's ask rose"

    for agree in session.of_type("session.agree"):
        terms = agree.payload["final_terms"]
        kinds = [i["kind"] for i in terms.get("inclusions", [])]
        t = terms["price"]["amount_minor"] - weight(kinds, utilities, values)
        assert t >= floor, f"the merchant agreed to t {t} below its floor {floor}"
    assert_private_values_hidden(session, floor)


def draw_offer(data: st.DataObject, session: Session, floor: int) -> OfferMove:
    state = session.current
    values = {k: v["amount_minor"] for k, v in state.attested["inclusion_values"].items()}
    offered = [*values, "gift_card"] if data.draw(st.integers(0, 9)) == 0 else [*values]
    kinds = data.draw(st.lists(st.sampled_from(offered), max_size=4)) if offered else []
    w = weight([k for k in kinds if k in values], state.buyer_utilities, values)
    target = state.attested["t_target"]["amount_minor"]
    standing = state.offer_on_table
    ask = standing.t_minor if standing is not None and standing.t_minor is not None else target
    last = state.buyer_last_t or target * 8 // 10
    fair_low = fair_low_of(target, state.rules["fair_band"])
    t = data.draw(
        st.one_of(
            st.integers(target * 7 // 10, target * 13 // 10),
            st.sampled_from([floor - 1, floor, floor + 1, ask - 1, ask, last, last + 1]),
            st.just(max(last, fair_low)),  # a stubborn buyer, to reach the last round
            st.integers(-5, 5),
        )
    )
    return OfferMove(type="offer", price_minor=max(0, t + w), inclusions=kinds)


@EXAMPLES
@given(setup=setups(), data=st.data())
def test_random_buyers_against_random_policies(
    setup: tuple[dict[str, Any], dict[str, Any]], data: st.DataObject
) -> None:
    members, declared = setup
    floor = members["floor_minor"]
    session = Session(policy=policy(**members), nonce=NONCE)
    session.open(request(**declared))
    check_step(session, floor, len(session.log), was_final=False)
    for _ in range(data.draw(st.integers(1, 20), label="steps")):
        step = data.draw(
            st.sampled_from(["offer"] * 6 + ["accept", "reject", "expire"]), label="kind"
        )
        before = (session.current, list(session.log), list(session.private))
        was_final = session.current.is_final
        result: object
        match step:
            case "offer":
                result = session.try_move(draw_offer(data, session, floor))
            case "accept":
                result = session.try_move(AcceptMove(type="accept"))
            case "reject":
                reason = data.draw(st.sampled_from([None, "", "too expensive", "found it cheaper"]))
                result = session.try_move(RejectMove(type="reject", reason=reason))
            case _:
                session.advance_time(seconds=data.draw(st.sampled_from([1, 599, 601, 7200])))
                result = session.expire()
        if isinstance(result, Refusal) or result is None:
            assert (session.current, session.log, session.private) == before, "refusal changed"
            if was_final and isinstance(result, Refusal):
                assert result.code == RefusalCode.SESSION_ENDED
        check_step(session, floor, len(before[1]), was_final)

    state = session.current
    band = state.rules["fair_band"]
    event(f"ended: {state.close['reason'] if state.close else state.phase}")
    if state.phase is Phase.AGREED:
        binds = floor >= fair_low_of(state.attested["t_target"]["amount_minor"], band)
        event(f"agreed by {state.accepted_by}, floor binds: {binds}")
    if session.current.is_final:
        session.try_merchant_reveal()
        [reveal] = session.current.reveals
        assert reveal["private"] == {"nonce": NONCE, "floor_minor": floor}
        assert is_opening(session.current.parties["merchant"]["commitment"], reveal["private"])
        assert invariants(session.current, session.log)["I3_commitments_unchanged"]

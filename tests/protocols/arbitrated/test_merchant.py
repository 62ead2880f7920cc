"""The hosted merchant policy (spec/arbitrated-rest.md, "Session flow" item 5)."""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.protocols.arbitrated.fairness import (
    DEFAULT_PROFILE,
    Attested,
    Score,
    Verdict,
    fair_high,
    fair_low,
    inclusions_weight,
    score,
)
from accord.protocols.arbitrated.merchant import (
    Accept,
    Counter,
    MerchantPolicy,
    ask,
    asks,
    opening,
    opening_inclusions,
    opening_offer,
    reservation,
    respond,
)

BAND = Decimal("0.05")
# t_target 41900, band 0.05: fair_low = ceil(41900 / 1.05) = 39905,
# fair_high = floor(41900 / 0.95) = 44105.
ATTESTED = Attested("EUR", 41900, {"warranty": 3900, "case": 3901})
HALF = {"warranty": Decimal("0.5"), "case": Decimal("0.5")}  # W(warranty) = 1950
POLICY = MerchantPolicy(
    list_price_minor=49900,
    floor_minor=38000,
    default_inclusions=("warranty",),
    style="linear",
    max_rounds=6,
    band=BAND,
)
FLOORED = replace(POLICY, floor_minor=42000)  # a floor above fair_low binds


def _kw(utilities: Mapping[str, Decimal] | None = None) -> dict[str, Any]:
    return {"attested": ATTESTED, "utilities": HALF if utilities is None else utilities}


# Expected asks by hand: reservation + ceil(spread * (1 - (r / 6) ** e)) in doubles.
# POLICY: reservation 39905 (fair_low), opening min(49900 - 1950, 44105) = 44105, spread 4200.
# FLOORED: reservation 42000 (the floor), opening 44105, spread 2105.
@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        # 4200 * (1 - (r/6)**3) = 4200, 4180.56, 4044.44, 3675.0, 2955.56, 1769.44
        pytest.param(
            replace(POLICY, style="boulware"),
            (44105, 44086, 43950, 43580, 42861, 41675),
            id="boulware_fair_low_binds",
        ),
        # 4200 * (1 - r/6) = 4200, 3500, 2800.0000000000005 (ceil 2801!), 2100,
        # 1400.0000000000002 (ceil 1401!), 699.9999999999999 (ceil 700)
        pytest.param(
            POLICY,
            (44105, 43405, 42706, 42005, 41306, 40605),
            id="linear_fair_low_binds_with_double_rounding",
        ),
        # 4200 * (1 - (r/6)**(1/3)) = 4200, 1888.65, 1287.88, 866.46, 530.96, 247.65
        pytest.param(
            replace(POLICY, style="conceder"),
            (44105, 41794, 41193, 40772, 40436, 40153),
            id="conceder_fair_low_binds",
        ),
        # 2105 * (1 - (r/6)**3) = 2105, 2095.25, 2027.04, 1841.875, 1481.30, 886.83
        pytest.param(
            replace(FLOORED, style="boulware"),
            (44105, 44096, 44028, 43842, 43482, 42887),
            id="boulware_floor_binds",
        ),
        # 2105 * (1 - r/6) = 2105, 1754.17, 1403.33, 1052.5, 701.67, 350.83
        pytest.param(
            FLOORED,
            (44105, 43755, 43404, 43053, 42702, 42351),
            id="linear_floor_binds",
        ),
        # 2105 * (1 - (r/6)**(1/3)) = 2105, 946.57, 645.47, 434.26, 266.11, 124.12
        pytest.param(
            replace(FLOORED, style="conceder"),
            (44105, 42947, 42646, 42435, 42267, 42125),
            id="conceder_floor_binds",
        ),
        # 9 * (1 - 1/3) is 6.000000000000001 and 9 * (1 - 2/3) is 3.0000000000000004 in
        # doubles: ceil 7 and 4, where exact arithmetic gives 6 and 3.
        pytest.param(
            replace(POLICY, list_price_minor=39914 + 1950, max_rounds=3),
            (39914, 39912, 39909),
            id="linear_spread_9_in_three_rounds",
        ),
        pytest.param(replace(POLICY, max_rounds=1), (44105,), id="one_round_only_the_opening"),
    ],
)
def test_asks(policy, expected):
    assert asks(policy, **_kw()) == expected
    assert [ask(policy, r, **_kw()) for r in range(policy.max_rounds)] == list(expected)


@pytest.mark.parametrize(
    ("policy", "utilities", "expected"),
    [
        # (reservation, K0, opening, opening offer price)
        pytest.param(
            POLICY, HALF, (39905, ("warranty",), 44105, 44105 + 1950),
            id="defaults_kept_opening_capped_at_fair_high",
        ),
        pytest.param(
            replace(POLICY, list_price_minor=41855), HALF, (39905, (), 41855, 41855),
            id="defaults_dropped_when_list_minus_w_equals_reservation",
        ),
        pytest.param(
            replace(POLICY, list_price_minor=41856), HALF,
            (39905, ("warranty",), 39906, 39906 + 1950),
            id="defaults_kept_when_list_minus_w_just_above_reservation",
        ),
        pytest.param(
            POLICY, {}, (39905, ("warranty",), 44105, 44105),
            id="defaults_the_buyer_does_not_value_weigh_nothing",
        ),
        pytest.param(
            replace(POLICY, default_inclusions=()), HALF, (39905, (), 44105, 44105),
            id="no_default_inclusions",
        ),
        pytest.param(
            replace(POLICY, list_price_minor=39000), HALF, (39905, (), 39905, 39905),
            id="list_below_fair_low_opens_at_fair_low_not_the_floor",
        ),
        pytest.param(
            replace(FLOORED, list_price_minor=43000), HALF, (42000, (), 43000, 43000),
            id="floor_binds_defaults_dropped_opening_at_list",
        ),
        pytest.param(
            replace(FLOORED, default_inclusions=("warranty", "case")), HALF,
            (42000, ("warranty", "case"), 44105, 44105 + 3900),
            id="two_defaults_weighed_together",
        ),
    ],
)  # fmt: skip
def test_opening(policy, utilities, expected):
    kw = _kw(utilities)
    k0 = opening_inclusions(policy, **kw)
    got = (reservation(policy, ATTESTED), k0, opening(policy, **kw), opening_offer(policy, **kw)[0])
    assert got == expected
    assert opening_offer(policy, **kw) == (expected[3], k0)
    assert ask(policy, 0, **kw) == expected[2]


# POLICY's asks: 44105, 43405, 42706, 42005, 41306, 40605; reservation 39905.
# FLOORED's asks: 44105, 43755, 43404, 43053, 42702, 42351; reservation 42000.
@pytest.mark.parametrize(
    ("policy", "round", "buyer_t", "inclusions", "expected"),
    [
        pytest.param(POLICY, 1, 43405, (), Accept(), id="round_1_accepts_at_ask_1"),
        pytest.param(
            POLICY, 1, 43404, ("warranty",), Counter(43405 + 1950, ("warranty",)),
            id="round_1_counters_at_ask_1_with_the_buyers_inclusions",
        ),
        pytest.param(
            POLICY, 1, 43404, (), Counter(43405, ()),
            id="round_1_counter_drops_defaults_the_buyer_dropped",
        ),
        pytest.param(
            POLICY, 2, 42705, ("warranty", "case"), Counter(42706 + 3900, ("warranty", "case")),
            id="round_2_counters_at_ask_2",
        ),
        pytest.param(POLICY, 4, 41306, (), Accept(), id="round_4_accepts_at_ask_4"),
        pytest.param(POLICY, 4, 41305, (), Counter(41306, ()), id="round_4_counters_at_ask_4"),
        pytest.param(POLICY, 5, 40605, (), Accept(), id="round_5_accepts_at_ask_5"),
        pytest.param(POLICY, 5, 40604, (), Counter(40605, ()), id="round_5_counters_at_ask_5"),
        pytest.param(
            POLICY, 6, 39904, (), Counter(40605, ()),
            id="last_round_below_reservation_counters_at_ask_5",
        ),
        pytest.param(POLICY, 6, 39905, (), Accept(), id="last_round_accepts_at_reservation"),
        pytest.param(FLOORED, 6, 42000, (), Accept(), id="last_round_accepts_at_the_floor"),
        pytest.param(
            FLOORED, 6, 41999, ("warranty",), Counter(42351 + 1950, ("warranty",)),
            id="last_round_counters_at_ask_of_max_rounds_minus_1_not_the_floor",
        ),
        pytest.param(
            FLOORED, 5, 42350, (), Counter(42351, ()),
            id="round_5_counters_at_the_same_ask_as_the_last_round",
        ),
        pytest.param(
            replace(FLOORED, max_rounds=1), 1, 42000, (), Accept(),
            id="single_round_accepts_at_reservation",
        ),
        pytest.param(
            replace(FLOORED, max_rounds=1), 1, 41999, (), Counter(44105, ()),
            id="single_round_counters_at_the_opening",
        ),
    ],
)  # fmt: skip
def test_respond(policy, round, buyer_t, inclusions, expected):
    got = respond(policy, round=round, buyer_t=buyer_t, buyer_inclusions=inclusions, **_kw())
    assert got == expected


@pytest.mark.parametrize("round", [pytest.param(0, id="opening"), pytest.param(7, id="after")])
def test_respond_outside_rounds_1_to_max_is_a_bug(round):
    with pytest.raises(ValueError, match="rounds 1"):
        respond(POLICY, round=round, buyer_t=50000, buyer_inclusions=(), **_kw())


@pytest.mark.parametrize("r", [pytest.param(-1, id="negative"), pytest.param(6, id="max_rounds")])
def test_ask_outside_0_to_max_minus_1_is_a_bug(r):
    with pytest.raises(ValueError, match="rounds 0"):
        ask(POLICY, r, **_kw())


def test_an_unattested_buyer_inclusion_is_a_bug():
    with pytest.raises(ValueError, match="attested"):
        respond(POLICY, round=1, buyer_t=50000, buyer_inclusions=("gift_wrap",), **_kw())


# Properties over policies `PUT /v1/policies` accepts: floor below the list price and below
# fair_high.

KINDS = ("warranty", "case", "strap", "setup")


@st.composite
def setups(draw):
    t_target = draw(st.integers(2, 10**7))
    band = draw(st.decimals("0", "0.3", places=3))
    values = draw(st.fixed_dictionaries({k: st.integers(0, 10**6) for k in KINDS}))
    utilities = draw(st.dictionaries(st.sampled_from(KINDS), st.decimals("0", "1", places=3)))
    attested = Attested("EUR", t_target, values)
    high = fair_high(t_target, band)
    floor_minor = draw(st.integers(0, high - 1))
    policy = MerchantPolicy(
        list_price_minor=draw(st.integers(floor_minor + 1, floor_minor + 3 * t_target + 10**6)),
        floor_minor=floor_minor,
        default_inclusions=tuple(draw(st.lists(st.sampled_from(KINDS), unique=True))),
        style=draw(st.sampled_from(["boulware", "linear", "conceder"])),
        max_rounds=draw(st.integers(1, 10)),
        band=band,
    )
    return policy, attested, utilities


def _score(
    policy: MerchantPolicy,
    attested: Attested,
    utilities: Mapping[str, Decimal],
    price: int,
    inclusions: Sequence[str],
) -> Score:
    return score(
        DEFAULT_PROFILE,
        price_minor=price,
        currency="EUR",
        inclusions=inclusions,
        utilities=utilities,
        attested=attested,
        band=policy.band,
    )


@given(setups())
def test_asks_never_rise_and_stay_in_the_band_above_the_floor(setup):
    policy, attested, utilities = setup
    kw = {"attested": attested, "utilities": utilities}
    got = asks(policy, **kw)
    low = reservation(policy, attested)
    assert low == max(policy.floor_minor, fair_low(attested.t_target_minor, policy.band))
    assert got[0] == opening(policy, **kw)
    assert all(a >= b for a, b in pairwise(got))
    assert all(low <= a <= fair_high(attested.t_target_minor, policy.band) for a in got)
    # Stronger than "never reveals the floor": no ask is the floor at all.
    assert all(a > policy.floor_minor for a in got)


@given(setups(), st.data())
def test_every_merchant_offer_scores_fair(setup, data):
    policy, attested, utilities = setup
    kw = {"attested": attested, "utilities": utilities}
    price, k0 = opening_offer(policy, **kw)
    assert _score(policy, attested, utilities, price, k0).verdict is Verdict.FAIR
    for r in range(1, policy.max_rounds + 1):
        kinds = tuple(data.draw(st.lists(st.sampled_from(KINDS), unique=True)))
        answer = respond(policy, round=r, buyer_t=0, buyer_inclusions=kinds, **kw)
        assert isinstance(answer, Counter)
        assert answer.inclusions == kinds
        result = _score(policy, attested, utilities, answer.price_minor, kinds)
        assert result.verdict is Verdict.FAIR
        assert result.t_minor == ask(policy, min(r, policy.max_rounds - 1), **kw)


@given(setups(), st.data())
def test_the_merchant_never_accepts_below_its_floor_or_reservation(setup, data):
    policy, attested, utilities = setup
    kw = {"attested": attested, "utilities": utilities}
    low = reservation(policy, attested)
    r = data.draw(st.integers(1, policy.max_rounds))
    buyer_t = data.draw(st.integers(1, 2 * low + 1))
    answer = respond(policy, round=r, buyer_t=buyer_t, buyer_inclusions=(), **kw)
    if isinstance(answer, Accept):
        assert buyer_t >= low >= policy.floor_minor
        verdict = _score(policy, attested, utilities, buyer_t, ()).verdict
        assert verdict is not Verdict.UNFAIR_TO_MERCHANT
    else:
        assert buyer_t < ask(policy, min(r, policy.max_rounds - 1), **kw)
    # The last round accepts exactly from the reservation up.
    last = respond(policy, round=policy.max_rounds, buyer_t=buyer_t, buyer_inclusions=(), **kw)
    assert isinstance(last, Accept) == (buyer_t >= low)


@given(setups(), st.data())
def test_floors_below_fair_low_give_the_same_offers(setup, data):
    policy, attested, utilities = setup
    kw = {"attested": attested, "utilities": utilities}
    low = fair_low(attested.t_target_minor, policy.band)
    floors = data.draw(st.lists(st.integers(0, low), min_size=2, max_size=2))
    first, second = (replace(policy, floor_minor=f) for f in floors)
    assert asks(first, **kw) == asks(second, **kw)
    assert opening_offer(first, **kw) == opening_offer(second, **kw)
    kinds = tuple(data.draw(st.lists(st.sampled_from(KINDS), unique=True)))
    w = inclusions_weight(kinds, utilities, attested)
    assert w is not None
    for r in range(1, policy.max_rounds + 1):
        one = respond(first, round=r, buyer_t=0, buyer_inclusions=kinds, **kw)
        two = respond(second, round=r, buyer_t=0, buyer_inclusions=kinds, **kw)
        assert one == two
        assert isinstance(one, Counter)
        assert one.price_minor - w == ask(first, min(r, first.max_rounds - 1), **kw)

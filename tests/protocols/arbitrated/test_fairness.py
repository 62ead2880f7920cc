"""The `default/v0.1` fairness profile (spec/arbitrated-rest.md, "Fairness profile")."""

from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.protocols.arbitrated.fairness import (
    DEFAULT_PROFILE,
    PROFILES,
    Attested,
    Cause,
    Score,
    Verdict,
    buyer_lowest_fair_price,
    fair_high,
    fair_low,
    format_score,
    inclusions_weight,
    is_known_profile,
    score,
)

BAND = Decimal("0.05")
ATTESTED = Attested(
    currency="EUR",
    t_target_minor=41900,
    inclusion_values={"warranty": 3900, "case": 3901, "strap": 3903, "sticker": 1, "pin": 1},
)
HALF = {"warranty": Decimal("0.5"), "case": Decimal("0.5"), "strap": Decimal("0.5")}


def _score(
    price: int,
    inclusions: Sequence[str] = (),
    utilities: Mapping[str, Decimal] | None = None,
    *,
    currency: str = "EUR",
    attested: Attested = ATTESTED,
    band: Decimal = BAND,
) -> Score:
    return score(
        DEFAULT_PROFILE,
        price_minor=price,
        currency=currency,
        inclusions=inclusions,
        utilities=utilities or {},
        attested=attested,
        band=band,
    )


def _target(t_target: int) -> Attested:
    return Attested("EUR", t_target, {})


@pytest.mark.parametrize(
    ("price", "inclusions", "utilities", "attested", "expected"),
    [
        # The spec's worked example: band 0.05, t_target 41900, no inclusions.
        pytest.param(
            38285, (), {}, ATTESTED,
            Score(Verdict.UNFAIR_TO_MERCHANT, "1.0944", 0, 38285, 38285, 41900),
            id="worked_38285_unfair_to_merchant",
        ),
        pytest.param(
            39904, (), {}, ATTESTED,
            Score(Verdict.UNFAIR_TO_MERCHANT, "1.0500", 0, 39904, 39904, 41900),
            id="worked_39904_rounds_to_band_but_exact_ratio_above",
        ),
        pytest.param(
            39905, (), {}, ATTESTED,
            Score(Verdict.FAIR, "1.0500", 0, 39905, 39905, 41900),
            id="worked_39905_fair_low_is_fair",
        ),
        pytest.param(
            41900, (), {}, ATTESTED,
            Score(Verdict.FAIR, "1.0000", 0, 41900, 41900, 41900),
            id="worked_41900_scores_one",
        ),
        # The buyer's edge: fair_high = floor(41900 / 0.95) = 44105 (41900 / 0.95 = 44105.26…).
        pytest.param(
            44105, (), {}, ATTESTED,
            Score(Verdict.FAIR, "0.9500", 0, 44105, 44105, 41900),
            id="fair_high_is_fair",
        ),
        pytest.param(
            44106, (), {}, ATTESTED,
            Score(Verdict.UNFAIR_TO_BUYER, "0.9500", 0, 44106, 44106, 41900),
            id="fair_high_plus_one_unfair_to_buyer_though_it_rounds_to_band",
        ),
        # The score at an exact half in the 5th decimal rounds to even.
        pytest.param(
            20000, (), {}, _target(20001),
            Score(Verdict.FAIR, "1.0000", 0, 20000, 20000, 20001),
            id="score_1.00005_rounds_down_to_even",
        ),
        pytest.param(
            20000, (), {}, _target(20003),
            Score(Verdict.FAIR, "1.0002", 0, 20000, 20000, 20003),
            id="score_1.00015_rounds_up_to_even",
        ),
        pytest.param(
            20000, (), {}, _target(19999),
            Score(Verdict.FAIR, "1.0000", 0, 20000, 20000, 19999),
            id="score_0.99995_rounds_up_to_even",
        ),
        pytest.param(
            20000, (), {}, _target(19997),
            Score(Verdict.FAIR, "0.9998", 0, 20000, 20000, 19997),
            id="score_0.99985_rounds_down_to_even",
        ),
        # W with the buyer's utilities, and the suggested adjustment t_target + W.
        pytest.param(
            43850, ("warranty",), HALF, ATTESTED,
            Score(Verdict.FAIR, "1.0000", 1950, 41900, 43850, 43850),
            id="half_of_a_3900_warranty_weighs_1950",
        ),
        pytest.param(
            38285, ("warranty",), HALF, ATTESTED,
            Score(Verdict.UNFAIR_TO_MERCHANT, "1.1532", 1950, 36335, 38285, 43850),
            id="suggested_adjustment_adds_w_to_t_target",
        ),
        pytest.param(
            41900, ("warranty",), {}, ATTESTED,
            Score(Verdict.FAIR, "1.0000", 0, 41900, 41900, 41900),
            id="an_inclusion_the_buyer_did_not_value_weighs_nothing",
        ),
        pytest.param(
            41900, ("warranty", "warranty"), HALF, ATTESTED,
            Score(Verdict.FAIR, "1.0488", 1950, 39950, 41900, 43850),
            id="an_inclusion_named_twice_counts_once",
        ),
        # Unscoreable, in the spec's order: currency, unattested inclusion, t <= 0.
        pytest.param(
            41900, ("gift_wrap",), {}, Attested("USD", 41900, {}),
            Score(Verdict.UNSCOREABLE, None, None, None, 41900, None, Cause.CURRENCY),
            id="unscoreable_currency_checked_first",
        ),
        pytest.param(
            41900, ("warranty", "gift_wrap"), HALF, ATTESTED,
            Score(Verdict.UNSCOREABLE, None, None, None, 41900, None, Cause.UNATTESTED_INCLUSION),
            id="unscoreable_unattested_inclusion",
        ),
        pytest.param(
            1950, ("warranty",), HALF, ATTESTED,
            Score(
                Verdict.UNSCOREABLE, None, 1950, 0, 1950, 43850, Cause.PRICE_NOT_ABOVE_INCLUSIONS
            ),
            id="unscoreable_price_equal_to_inclusions",
        ),
        pytest.param(
            1000, ("warranty",), HALF, ATTESTED,
            Score(
                Verdict.UNSCOREABLE, None, 1950, -950, 1000, 43850, Cause.PRICE_NOT_ABOVE_INCLUSIONS
            ),
            id="unscoreable_price_below_inclusions",
        ),
        pytest.param(
            0, (), {}, ATTESTED,
            Score(Verdict.UNSCOREABLE, None, 0, 0, 0, 41900, Cause.PRICE_NOT_ABOVE_INCLUSIONS),
            id="unscoreable_zero_price",
        ),
    ],
)  # fmt: skip
def test_score(price, inclusions, utilities, attested, expected):
    assert _score(price, inclusions, utilities, attested=attested) == expected


@pytest.mark.parametrize(
    ("inclusions", "utilities", "expected"),
    [
        pytest.param((), {}, 0, id="no_inclusions"),
        pytest.param(("warranty",), HALF, 1950, id="half_of_3900"),
        pytest.param(("case",), HALF, 1950, id="half_of_3901_is_1950.5_rounds_to_even_1950"),
        pytest.param(("strap",), HALF, 1952, id="half_of_3903_is_1951.5_rounds_to_even_1952"),
        pytest.param(("warranty",), {"warranty": Decimal("1")}, 3900, id="full_utility"),
        pytest.param(("warranty",), {"warranty": Decimal("0")}, 0, id="zero_utility"),
        pytest.param(("warranty",), {"case": Decimal("1")}, 0, id="undeclared_utility_is_zero"),
        pytest.param(
            ("warranty",), {"warranty": Decimal("0.3333")}, 1300, id="1299.87_rounds_to_1300"
        ),
        pytest.param(
            ("sticker", "pin"),
            {"sticker": Decimal("0.5"), "pin": Decimal("0.5")},
            1,
            id="summed_then_rounded_once",
        ),
        pytest.param(
            ("case", "strap"), HALF, 3902, id="1950.5_plus_1951.5_is_3902_not_1950_plus_1952"
        ),
        pytest.param(("warranty", "gift_wrap"), HALF, None, id="unattested_is_none"),
    ],
)
def test_inclusions_weight(inclusions, utilities, expected):
    assert inclusions_weight(inclusions, utilities, ATTESTED) == expected


def test_same_terms_score_the_same_whoever_proposes():
    # The profile takes no proposer: a merchant counter with the buyer's inclusions and a buyer
    # offer on the same terms are both weighed with the buyer's utilities.
    merchant = _score(46055, ("warranty",), HALF)
    buyer = _score(46055, ("warranty",), HALF)
    assert merchant == buyer
    assert (merchant.w_minor, merchant.t_minor, merchant.verdict) == (1950, 44105, Verdict.FAIR)


@pytest.mark.parametrize(
    ("t_target", "band", "low", "high"),
    [
        pytest.param(41900, "0.05", 39905, 44105, id="worked_example"),
        pytest.param(41900, "0", 41900, 41900, id="zero_band_is_t_target"),
        pytest.param(2100, "0.05", 2000, 2210, id="exact_quotients_not_moved"),
        pytest.param(1, "0.05", 1, 1, id="one_minor_unit"),
        pytest.param(41900, "0.1", 38091, 46555, id="wider_band"),
    ],
)
def test_fair_low_and_high(t_target, band, low, high):
    assert fair_low(t_target, Decimal(band)) == low
    assert fair_high(t_target, Decimal(band)) == high


def test_buyer_lowest_fair_price_adds_w_to_fair_low():
    assert buyer_lowest_fair_price(41900, BAND, 1950) == 39905 + 1950
    assert _score(39905 + 1950, ("warranty",), HALF).verdict is Verdict.FAIR
    assert _score(39904 + 1950, ("warranty",), HALF).verdict is Verdict.UNFAIR_TO_MERCHANT


@pytest.mark.parametrize(
    "band",
    [
        pytest.param(Decimal("1"), id="one"),
        pytest.param(Decimal("-0.01"), id="negative"),
        pytest.param(Decimal("NaN"), id="nan"),
        pytest.param(Decimal("Infinity"), id="infinite"),
    ],
)
def test_a_band_outside_zero_to_one_is_a_bug(band):
    with pytest.raises(ValueError, match="fair band"):
        fair_high(41900, band)
    with pytest.raises(ValueError, match="fair band"):
        _score(41900, band=band)


def test_profiles_are_known_by_name():
    assert is_known_profile("default/v0.1")
    assert not is_known_profile("default/v0.2")
    assert set(PROFILES) == {"default/v0.1"}
    with pytest.raises(KeyError):
        score(
            "default/v0.2",
            price_minor=41900,
            currency="EUR",
            inclusions=(),
            utilities={},
            attested=ATTESTED,
            band=BAND,
        )


@pytest.mark.parametrize(
    ("ratio", "text"),
    [
        pytest.param(Fraction(1), "1.0000", id="one"),
        pytest.param(Fraction(0), "0.0000", id="zero"),
        pytest.param(Fraction(1, 20000), "0.0000", id="0.00005_to_even_0"),
        pytest.param(Fraction(3, 20000), "0.0002", id="0.00015_to_even_2"),
        pytest.param(Fraction(123456789, 10000), "12345.6789", id="large"),
    ],
)
def test_format_score(ratio, text):
    assert format_score(ratio) == text


@given(
    t_target=st.integers(1, 10**8),
    t=st.integers(1, 10**8),
    band=st.decimals("0", "0.5", places=3),
)
def test_verdict_agrees_with_fair_low_and_high(t_target, t, band):
    result = _score(t, attested=_target(t_target), band=band)
    low, high = fair_low(t_target, band), fair_high(t_target, band)
    if t < low:
        assert result.verdict is Verdict.UNFAIR_TO_MERCHANT
    elif t > high:
        assert result.verdict is Verdict.UNFAIR_TO_BUYER
    else:
        assert result.verdict is Verdict.FAIR
    with localcontext() as context:
        context.prec = 60
        oracle = (Decimal(t_target) / Decimal(t)).quantize(Decimal("0.0001"), ROUND_HALF_EVEN)
    assert result.fairness_score == str(oracle)
    assert result.suggested_adjustment_minor == t_target


@given(
    values=st.dictionaries(st.sampled_from("abcdef"), st.integers(0, 10**7), min_size=1),
    utilities=st.dictionaries(st.sampled_from("abcdef"), st.decimals("0", "1", places=4)),
    data=st.data(),
)
def test_the_suggested_adjustment_scores_one(values, utilities, data):
    kinds = data.draw(st.lists(st.sampled_from(sorted(values)), unique=True))
    attested = Attested("EUR", 41900, values)
    w = inclusions_weight(kinds, utilities, attested)
    assert w is not None
    result = _score(41900 + w, kinds, utilities, attested=attested)
    assert (result.verdict, result.fairness_score, result.w_minor) == (Verdict.FAIR, "1.0000", w)
    assert result.suggested_adjustment_minor == 41900 + w

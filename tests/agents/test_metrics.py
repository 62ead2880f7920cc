"""Tournament metrics (spec/agents.md, Metrics) on hand-computed scenarios, and properties of the
frontier and the optimality scores on random ones."""

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.agents.domain import Domain, Issue, Outcome
from accord.agents.metrics import ScenarioStats, pareto_frontier, scenario_stats, score
from accord.agents.preferences import Preferences

SQRT2 = math.sqrt(2)
OPTIMALITIES = (
    "pareto_optimality",
    "nash_optimality",
    "kalai_optimality",
    "ks_optimality",
    "max_welfare_optimality",
)
PRICE_KEYS = ("nash_product_share", "zoa_midpoint_distance")

# The two-issue scenario. Issue a has 2 values, b has 3; both weights 0.5.
#   first:  a (1, 0),   b (0, 0.4, 1)   -> u1 = 0.5·ea + 0.5·eb
#   second: a (0, 1),   b (1, 0.8, 0)   -> u2 = 0.5·ea + 0.5·eb
# outcome  (0,0)      (0,1)      (0,2)      (1,0)      (1,1)      (1,2)
# (u1,u2)  (.5,.5)    (.7,.4)    (1,0)      (0,1)      (.2,.9)    (.5,.5)
# With r = (0.1, 0.1) the rational outcomes are (0,0) (0,1) (1,1) (1,2); (0,2) and (1,0) give a
# side 0. (0,0) and (1,2) share one point, so the frontier is three distinct points:
#   F = {(.2,.9), (.5,.5), (.7,.4)}       (none dominates another)
# Nash (u1-.1)(u2-.1):      .1·.8 = .08    .4·.4 = .16    .6·.3 = .18   -> (.7,.4)
# Kalai min(u1-.1, u2-.1):  .1             .4             .3            -> (.5,.5)
# KS |(u1-.1)/.9 - (u2-.1)/.9| (u_max = 1 for both):
#                           |.1-.8|/.9     0              |.6-.3|/.9    -> (.5,.5)
# Max welfare u1+u2:        1.1            1.0            1.1           -> 1.1
# The normaliser: both utilities span [0, 1], so √(1² + 1²) = √2.
TWO = Domain((Issue("a", ("a0", "a1")), Issue("b", ("b0", "b1", "b2"))))
TWO_FIRST = ((1.0, 0.0), (0.0, 0.4, 1.0))
TWO_SECOND = ((0.0, 1.0), (1.0, 0.8, 0.0))
D_KALAI_FROM_NASH = math.sqrt(0.2**2 + 0.1**2)  # (.7,.4) to (.5,.5)


def two_issue(r1: float, r2: float) -> tuple[Preferences, Preferences]:
    return (
        Preferences(TWO, (0.5, 0.5), TWO_FIRST, reservation=r1),
        Preferences(TWO, (0.5, 0.5), TWO_SECOND, reservation=r2),
    )


def one_issue(
    values: tuple[str, ...],
    first: tuple[float, ...],
    second: tuple[float, ...],
    r1: float,
    r2: float,
) -> tuple[Preferences, Preferences]:
    domain = Domain((Issue("x", values),))
    return (
        Preferences(domain, (1.0,), (first,), reservation=r1),
        Preferences(domain, (1.0,), (second,), reservation=r2),
    )


def scored(prefs: tuple[Preferences, Preferences], agreement: Outcome | None) -> dict[str, Any]:
    return score(scenario_stats(*prefs), agreement, *prefs)


def test_the_two_issue_scenario_has_the_hand_computed_points() -> None:
    stats = scenario_stats(*two_issue(0.1, 0.1))
    assert stats.has_zoa and stats.zoa
    assert stats.frontier == pytest.approx(np.array([[0.2, 0.9], [0.5, 0.5], [0.7, 0.4]]))
    assert stats.nash == pytest.approx(np.array([[0.7, 0.4]]))
    assert stats.kalai == pytest.approx(np.array([[0.5, 0.5]]))
    assert stats.ks == pytest.approx(np.array([[0.5, 0.5]]))
    assert stats.max_welfare == pytest.approx(1.1)
    assert stats.max_distance == pytest.approx(SQRT2)
    assert stats.price is None


@pytest.mark.parametrize(
    ("agreement", "expected"),
    [
        pytest.param(
            (0, 1),
            # (.7,.4) is the Nash point and on the frontier; Kalai and KS lie √.05 away.
            {
                "utilities": [0.7, 0.4],
                "advantages": [0.6 / 0.9, 0.3 / 0.9],
                "surpluses": [0.6, 0.3],
                "rational": True,
                "welfare": 1.1,
                "pareto_optimality": 1.0,
                "nash_optimality": 1.0,
                "kalai_optimality": 1 - D_KALAI_FROM_NASH / SQRT2,
                "ks_optimality": 1 - D_KALAI_FROM_NASH / SQRT2,
                "max_welfare_optimality": 1.0,
            },
            id="nash-point",
        ),
        pytest.param(
            (1, 2),
            # (.5,.5), the Kalai and KS point, shared with outcome (0,0); welfare 1.0 of 1.1.
            {
                "utilities": [0.5, 0.5],
                "advantages": [0.4 / 0.9, 0.4 / 0.9],
                "rational": True,
                "welfare": 1.0,
                "pareto_optimality": 1.0,
                "nash_optimality": 1 - D_KALAI_FROM_NASH / SQRT2,
                "kalai_optimality": 1.0,
                "ks_optimality": 1.0,
                "max_welfare_optimality": 1.0 / 1.1,
            },
            id="kalai-and-ks-point",
        ),
        pytest.param(
            (0, 2),
            # (1,0): below the second side's reservation. Nearest frontier point (.7,.4) at
            # √(.09+.16) = .5, which is also the Nash point; (.5,.5) at √.5.
            {
                "utilities": [1.0, 0.0],
                "advantages": [1.0, -0.1 / 0.9],
                "surpluses": [0.9, -0.1],
                "rational": False,
                "welfare": 1.0,
                "pareto_optimality": 1 - 0.5 / SQRT2,
                "nash_optimality": 1 - 0.5 / SQRT2,
                "kalai_optimality": 0.5,
                "ks_optimality": 0.5,
                "max_welfare_optimality": 1.0 / 1.1,
            },
            id="irrational-agreement",
        ),
        pytest.param(
            None,
            # A disagreement is scored at (r1, r2) = (.1,.1): nearest frontier point (.5,.5) at
            # √(.16+.16) = .4·√2, so 1 - .4 = .6; Nash (.7,.4) at √(.36+.09) = √.45.
            {
                "utilities": [0.1, 0.1],
                "advantages": [0.0, 0.0],
                "surpluses": [0.0, 0.0],
                "rational": True,
                "welfare": 0.2,
                "pareto_optimality": 0.6,
                "nash_optimality": 1 - math.sqrt(0.45) / SQRT2,
                "kalai_optimality": 0.6,
                "ks_optimality": 0.6,
                "max_welfare_optimality": 0.2 / 1.1,
            },
            id="disagreement",
        ),
    ],
)
def test_two_issue_scores(agreement: Outcome | None, expected: dict[str, Any]) -> None:
    result = scored(two_issue(0.1, 0.1), agreement)
    for key, value in expected.items():
        assert result[key] == pytest.approx(value), key
    assert not set(PRICE_KEYS) & set(result)


@pytest.mark.parametrize(
    ("agreement", "rational", "advantages"),
    [
        # r = (.8,.8): u1 ≥ .8 only at (0,2), where u2 = 0; no zone of agreement.
        # (.5,.5): advantages (.5-.8)/(1-.8) = -1.5 each.
        pytest.param((1, 2), False, [-1.5, -1.5], id="agreement-below-reservation"),
        pytest.param(None, True, [0.0, 0.0], id="disagreement"),
    ],
)
def test_without_a_zone_of_agreement_the_optimalities_are_null(
    agreement: Outcome | None, rational: bool, advantages: list[float]
) -> None:
    prefs = two_issue(0.8, 0.8)
    stats = scenario_stats(*prefs)
    assert not stats.has_zoa
    assert len(stats.frontier) == len(stats.nash) == 0
    assert stats.max_welfare is None
    result = score(stats, agreement, *prefs)
    assert result["rational"] is rational
    assert result["advantages"] == pytest.approx(advantages)
    assert all(result[key] is None for key in OPTIMALITIES)


def test_advantage_is_zero_when_the_best_is_the_reservation() -> None:
    # r1 = 1 = u1_max: the only outcome rational for the first side is (0,2) at (1,0), which is
    # the whole frontier and every solution. (.7,.4) has advantages 0 and (.4-0)/(1-0).
    prefs = two_issue(1.0, 0.0)
    stats = scenario_stats(*prefs)
    assert stats.frontier.tolist() == [[1.0, 0.0]]
    assert stats.nash.tolist() == stats.kalai.tolist() == stats.ks.tolist() == [[1.0, 0.0]]
    result = score(stats, (0, 1), *prefs)
    assert result["advantages"] == pytest.approx([0.0, 0.4])
    assert result["rational"] is False
    assert score(stats, (0, 2), *prefs)["advantages"] == [0.0, 0.0]


# Ties, one issue of colours (not numbers, so not a price scenario), r = (0, 0):
#   red (.2,.8)   green (.5,.3)   blue (.8,.2)      none dominates another
# Nash u1·u2: .16, .15, .16  -> red and blue tie; green is √(.09+.01) = √.1 from blue and
# √(.09+.25) from red, so its distance is √.1. Normaliser √(.6² + .6²) = √.72.
# Kalai min: .2, .3, .2 -> green. KS |u1/.8 - u2/.8|: .75, .25, .75 -> green.
# Max welfare: 1.0, .8, 1.0 -> 1.0.
COLOURS = ("red", "green", "blue")


@pytest.mark.parametrize(
    ("first", "second", "agreement", "nash_ties", "expected"),
    [
        pytest.param(
            (0.2, 0.5, 0.8),
            (0.8, 0.3, 0.2),
            (1,),
            [[0.2, 0.8], [0.8, 0.2]],
            {
                "nash_optimality": 1 - math.sqrt(0.1) / math.sqrt(0.72),
                "kalai_optimality": 1.0,
                "ks_optimality": 1.0,
                "max_welfare_optimality": 0.8,
            },
            id="equal-nash-products-nearest-tie",
        ),
        pytest.param(
            (0.2, 0.5, 0.8),
            (0.8, 0.3, 0.2),
            (0,),
            [[0.2, 0.8], [0.8, 0.2]],
            {"nash_optimality": 1.0, "max_welfare_optimality": 1.0},
            id="either-tie-scores-one",
        ),
        pytest.param(
            # .3·.6 = .18 and .6·(.1+.2) = .18000000000000002: a tie within 1e-12 only, so
            # red scores 1 too (.4·.4 = .16 is no tie).
            (0.3, 0.4, 0.6),
            (0.6, 0.4, 0.1 + 0.2),
            (0,),
            [[0.3, 0.6], [0.6, 0.1 + 0.2]],
            {"nash_optimality": 1.0},
            id="float-noise-tie",
        ),
    ],
)
def test_ties_score_the_nearest(
    first: tuple[float, ...],
    second: tuple[float, ...],
    agreement: Outcome,
    nash_ties: list[list[float]],
    expected: dict[str, float],
) -> None:
    prefs = one_issue(COLOURS, first, second, 0.0, 0.0)
    stats = scenario_stats(*prefs)
    assert stats.nash == pytest.approx(np.array(nash_ties))  # the frontier's order: u1 rising
    result = score(stats, agreement, *prefs)
    assert result["pareto_optimality"] == 1.0
    for key, value in expected.items():
        assert result[key] == pytest.approx(value), key
    assert not set(PRICE_KEYS) & set(result)


# A price scenario: one issue of decimal prices, listed out of order (and "9.5" sorts after
# "13" as text). The seller (first) gains with the price, the buyer (second) loses:
#   price   9.5   10    11    12    13
#   u1      0     .25   .5    .75   1
#   u2      1     .75   .5    .25   0
PRICES = ("12", "9.5", "10", "11", "13")
SELLER = (0.75, 0.0, 0.25, 0.5, 1.0)
BUYER = (0.25, 1.0, 0.75, 0.5, 0.0)


def at(price: str) -> Outcome:
    return (PRICES.index(price),)


@pytest.mark.parametrize(
    ("r1", "r2", "agreement", "share", "midpoint"),
    [
        # r = (.2,.2): the seller needs ≥ 10, the buyer ≤ 12: zone [10, 12], middle 11.
        # Products: 10 → .05·.55 = .0275, 11 → .3·.3 = .09, 12 → .55·.05 = .0275; max .09.
        pytest.param(0.2, 0.2, at("11"), 1.0, 0.0, id="middle"),
        pytest.param(0.2, 0.2, at("12"), 0.0275 / 0.09, 0.5, id="zone-edge"),
        # 13 is below the buyer's reservation: .8·(-.2)/.09, and |13-11|/2.
        pytest.param(0.2, 0.2, at("13"), -0.16 / 0.09, 1.0, id="outside-the-zone"),
        pytest.param(0.2, 0.2, None, None, None, id="disagreement"),
        # r = (.4,.4): the seller needs ≥ 11, the buyer ≤ 11: p_lo = p_hi = 11, distance 0;
        # the only rational product .1·.1 = .01.
        pytest.param(0.4, 0.4, at("11"), 1.0, 0.0, id="single-price-zone"),
        # r = (.5,.5): zone [11, 11] again, but its product is 0: the share is undefined.
        pytest.param(0.5, 0.5, at("11"), None, 0.0, id="zero-nash-product"),
        # r = (.8,.8): the seller needs 13, the buyer 9.5: no zone of agreement.
        pytest.param(0.8, 0.8, at("11"), None, None, id="no-zone"),
    ],
)
def test_price_scenarios(
    r1: float, r2: float, agreement: Outcome | None, share: float | None, midpoint: float | None
) -> None:
    prefs = one_issue(PRICES, SELLER, BUYER, r1, r2)
    stats = scenario_stats(*prefs)
    assert stats.price is not None
    assert stats.price.prices == (12.0, 9.5, 10.0, 11.0, 13.0)
    result = score(stats, agreement, *prefs)
    for key, value in (("nash_product_share", share), ("zoa_midpoint_distance", midpoint)):
        assert key in result
        assert result[key] == (None if value is None else pytest.approx(value)), key


@pytest.mark.parametrize(
    ("values", "first", "second"),
    [
        pytest.param(PRICES, SELLER, SELLER, id="same-direction"),
        pytest.param(PRICES, SELLER, (0.25, 1.0, 0.5, 0.75, 0.0), id="buyer-not-monotone"),
        pytest.param(("1", "1.0", "2", "3", "4"), SELLER, BUYER, id="equal-prices"),
        pytest.param(("1", "2", "nan", "4", "5"), SELLER, BUYER, id="not-a-number"),
    ],
)
def test_other_one_issue_scenarios_have_no_price_metrics(
    values: tuple[str, ...], first: tuple[float, ...], second: tuple[float, ...]
) -> None:
    prefs = one_issue(values, first, second, 0.0, 0.0)
    stats = scenario_stats(*prefs)
    assert stats.price is None
    assert not set(PRICE_KEYS) & set(score(stats, (0,), *prefs))


# Random scenarios: 1-3 issues of 1-4 values; evaluations in eighths so that points repeat and
# tie; reservations in tenths.
EIGHTHS = st.integers(0, 8).map(lambda n: n / 8)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Preferences, Preferences]:
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    domain = Domain(
        tuple(Issue(f"i{k}", tuple(f"v{j}" for j in range(n))) for k, n in enumerate(sizes))
    )

    def side() -> Preferences:
        weights = draw(st.lists(st.integers(1, 4), min_size=len(sizes), max_size=len(sizes)))
        evaluations = [draw(st.lists(EIGHTHS, min_size=n, max_size=n)) for n in sizes]
        reservation = draw(st.integers(0, 10)) / 10
        return Preferences.normalised(domain, weights, evaluations, reservation=reservation)

    return side(), side()


def rational_points(first: Preferences, second: Preferences) -> list[tuple[float, float]]:
    return [
        (float(a), float(b))
        for a, b in zip(first.utilities, second.utilities, strict=True)
        if a >= first.reservation and b >= second.reservation
    ]


@settings(max_examples=200, deadline=None)
@given(prefs=scenarios())
def test_the_frontier_is_the_non_dominated_rational_points(
    prefs: tuple[Preferences, Preferences],
) -> None:
    stats = scenario_stats(*prefs)
    points = rational_points(*prefs)
    frontier = [(float(a), float(b)) for a, b in stats.frontier]
    assert stats.has_zoa == bool(points)
    assert len(set(frontier)) == len(frontier)
    assert set(frontier) <= set(points)
    for p in points:
        dominated = any(q[0] >= p[0] and q[1] >= p[1] and q != p for q in points)
        assert (p in frontier) is not dominated
    for solution in (stats.nash, stats.kalai, stats.ks):
        assert {tuple(p) for p in solution.tolist()} <= set(frontier)
        assert len(solution) > 0 or not points


def check_unit(result: dict[str, Any], stats: ScenarioStats) -> None:
    for key in OPTIMALITIES[:-1]:
        value = result[key]
        # None without a zone of agreement, or when no utility varies (a one-outcome domain).
        assert (value is None) is not (stats.has_zoa and stats.max_distance > 0)
        assert value is None or 0.0 <= value <= 1.0


@settings(max_examples=200, deadline=None)
@given(prefs=scenarios())
def test_optimalities_lie_in_the_unit_interval(prefs: tuple[Preferences, Preferences]) -> None:
    first, second = prefs
    stats = scenario_stats(first, second)
    agreements: list[Outcome | None] = [*first.domain.outcomes(), None]
    for agreement in agreements:
        result = score(stats, agreement, first, second)
        check_unit(result, stats)
        if result["rational"] and stats.max_welfare:
            assert 0.0 <= result["max_welfare_optimality"] <= 1.0 + 1e-12
    if stats.has_zoa and stats.max_distance > 0 and stats.max_welfare:
        welfare = first.utilities + second.utilities
        rational = (first.utilities >= first.reservation) & (second.utilities >= second.reservation)
        best = first.domain.outcome_at(int(np.where(rational, welfare, -np.inf).argmax()))
        result = score(stats, best, first, second)
        assert result["max_welfare_optimality"] == pytest.approx(1.0)
        assert result["pareto_optimality"] == 1.0


def test_pareto_frontier_of_no_points_is_empty() -> None:
    assert pareto_frontier(np.empty((0, 2))).shape == (0, 2)

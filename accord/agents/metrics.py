"""The per-negotiation metrics of tournaments (spec/agents.md, Metrics): advantage, surplus,
welfare and rationality per side; distances to the Pareto frontier, Nash, Kalai,
Kalai-Smorodinsky and maximum-welfare points, as NegMAS 0.16 computes them in the discrete model
(`calc_scenario_stats`, `calc_outcome_optimality`, `convex_hull=False`); and, in price scenarios,
the Nash-product share and the distance from the middle of the zone of agreement.

A tournament plays each scenario many times, so everything that needs the whole outcome space is
computed once by `scenario_stats`; `score` only evaluates the agreement and measures distances
to the few points kept. Undefined values are None, never NaN, so a score is plain JSON."""

import math
import re
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from accord.agents.domain import Outcome
from accord.agents.preferences import Preferences

Floats = npt.NDArray[np.float64]
Points = npt.NDArray[np.float64]
"""Utility points, shape (n, 2): column 0 the first side's utility, column 1 the second's."""

TIE: Final = 1e-12
"""Points whose objective is within this of the optimum tie (NegMAS's `eps`)."""

_NUMBER: Final = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
"""A plain decimal number: stricter than `float()`, which takes "nan", "inf" and "1_0"."""


@dataclass(frozen=True)
class PriceStats:
    """A price scenario's one issue read as prices, and its zone of agreement in them."""

    prices: tuple[float, ...]
    """The price of each of the issue's values, by value index."""
    low: float | None
    """The lowest price rational for both sides; None without a zone of agreement."""
    high: float | None
    max_nash_product: float | None
    """The largest `(u₁-r₁)(u₂-r₂)` on rational outcomes; None without a zone of agreement."""


@dataclass(frozen=True, eq=False)
class ScenarioStats:
    """What every negotiation of one scenario is measured against, computed once per scenario.
    Point arrays are (n, 2) and never empty when there is a zone of agreement."""

    reservations: tuple[float, float]
    best: tuple[float, float]
    """Each side's best utility over the whole outcome space (the advantage's `u_max`)."""
    worst: tuple[float, float]
    has_zoa: bool
    """Some outcome is rational for both sides; without one every optimality is None."""
    frontier: Points
    """The distinct non-dominated utility points of the outcomes rational for both sides."""
    nash: Points
    kalai: Points
    ks: Points
    max_welfare: float | None
    """The largest `u₁+u₂` on the frontier; None without a zone of agreement."""
    max_distance: float
    """`√Σ(uᵢmax - uᵢmin)²`, the distance that scores an optimality 0."""
    price: PriceStats | None
    """Set in price scenarios only."""

    @property
    def zoa(self) -> bool:
        """Alias of `has_zoa`, the name tournaments read."""
        return self.has_zoa


def scenario_stats(first: Preferences, second: Preferences) -> ScenarioStats:
    """Everything that needs the whole outcome space, once per scenario (pair of profiles)."""
    if first.domain != second.domain:
        raise ValueError("both sides must share one domain")
    u1, u2 = first.utilities, second.utilities
    r1, r2 = first.reservation, second.reservation
    rational = (u1 >= r1) & (u2 >= r2)
    frontier = pareto_frontier(np.column_stack((u1[rational], u2[rational])))
    has_zoa = len(frontier) > 0
    best = (first.best, second.best)
    worst = (first.worst, second.worst)
    empty: Points = np.empty((0, 2), dtype=np.float64)
    nash, kalai, ks = _solutions(frontier, (r1, r2), best) if has_zoa else (empty, empty, empty)
    for shared in (frontier, nash, kalai, ks):
        shared.flags.writeable = False  # reused by every negotiation of the scenario
    return ScenarioStats(
        reservations=(r1, r2),
        best=best,
        worst=worst,
        has_zoa=has_zoa,
        frontier=frontier,
        nash=nash,
        kalai=kalai,
        ks=ks,
        max_welfare=float(frontier.sum(axis=1).max()) if has_zoa else None,
        max_distance=math.hypot(best[0] - worst[0], best[1] - worst[1]),
        price=_price_stats(first, second, rational),
    )


def pareto_frontier(points: Points) -> Points:
    """The distinct points of `points` that no other point dominates (at least as good for both
    sides and better for one), by the first side's utility ascending. O(n log n): sorted by the
    first utility descending, then the second descending, a point is on the frontier exactly
    when its second utility beats every point before it."""
    if len(points) == 0:
        return np.empty((0, 2), dtype=np.float64)
    order = np.lexsort((-points[:, 1], -points[:, 0]))
    ranked = points[order]
    seconds = ranked[:, 1]
    before = np.concatenate(([-np.inf], np.maximum.accumulate(seconds)[:-1]))
    frontier: Points = ranked[seconds > before][::-1].copy()
    return frontier


def _solutions(
    frontier: Points, reservations: tuple[float, float], best: tuple[float, float]
) -> tuple[Points, Points, Points]:
    """The Nash, Kalai and Kalai-Smorodinsky points on the frontier, each with its ties. A side
    with no room above its reservation makes every frontier point a tie (as NegMAS does)."""
    gains = frontier - np.asarray(reservations)
    rooms = np.asarray(best) - np.asarray(reservations)
    if bool((rooms <= TIE).any()):
        return frontier, frontier, frontier
    products = gains[:, 0] * gains[:, 1]
    nash = frontier[products >= products.max() - TIE]
    least = gains.min(axis=1)
    kalai = frontier[least >= least.max() - TIE]
    relative = gains / rooms
    gaps = np.abs(relative[:, 0] - relative[:, 1])
    ks = frontier[gaps <= gaps.min() + TIE]
    return nash, kalai, ks


def _price_stats(
    first: Preferences, second: Preferences, rational: npt.NDArray[np.bool_]
) -> PriceStats | None:
    """The price view of a scenario with one issue whose values are all distinct numbers and
    whose two evaluations are monotone in opposite directions; None for any other scenario."""
    issues = first.domain.issues
    if len(issues) != 1:
        return None
    values = issues[0].values
    if not all(_NUMBER.fullmatch(value) for value in values):
        return None
    prices = np.asarray([float(value) for value in values], dtype=np.float64)
    if len(np.unique(prices)) != len(prices):
        return None
    order = np.argsort(prices)
    steps1 = np.diff(first.utilities[order])
    steps2 = np.diff(second.utilities[order])
    rising = bool((steps1 >= 0).all() and (steps2 <= 0).all())
    falling = bool((steps1 <= 0).all() and (steps2 >= 0).all())
    if not (rising or falling):
        return None
    listed = tuple(float(price) for price in prices)
    if not rational.any():
        return PriceStats(listed, None, None, None)
    inside = prices[rational]
    products = (first.utilities[rational] - first.reservation) * (
        second.utilities[rational] - second.reservation
    )
    return PriceStats(listed, float(inside.min()), float(inside.max()), float(products.max()))


def score(
    stats: ScenarioStats,
    agreement: Outcome | None,
    first: Preferences,
    second: Preferences,
) -> dict[str, Any]:
    """One negotiation's metrics; a disagreement (None) scores each side its reservation.
    Cheap: utilities of one outcome and distances to the points `stats` keeps."""
    r1, r2 = stats.reservations
    u1, u2 = (
        (r1, r2) if agreement is None else (first.utility(agreement), second.utility(agreement))
    )
    scores: dict[str, Any] = {
        "utilities": [u1, u2],
        "advantages": [_advantage(u1, r1, stats.best[0]), _advantage(u2, r2, stats.best[1])],
        "surpluses": [u1 - r1, u2 - r2],
        "rational": u1 >= r1 and u2 >= r2,
        "welfare": u1 + u2,
    }
    point = np.asarray([u1, u2], dtype=np.float64)
    for name, points in (
        ("pareto", stats.frontier),
        ("nash", stats.nash),
        ("kalai", stats.kalai),
        ("ks", stats.ks),
    ):
        scores[f"{name}_optimality"] = _optimality(point, points, stats)
    top = stats.max_welfare
    scores["max_welfare_optimality"] = (u1 + u2) / top if top is not None and top >= TIE else None
    if stats.price is not None:
        scores.update(_price_scores(stats.price, agreement, (u1 - r1) * (u2 - r2)))
    return scores


def _advantage(utility: float, reservation: float, best: float) -> float:
    """`(u - r)/(u_max - r)`, 0 when the side has nothing to gain above its reservation."""
    room = best - reservation
    return 0.0 if abs(room) <= TIE else (utility - reservation) / room


def _optimality(point: Floats, points: Points, stats: ScenarioStats) -> float | None:
    """`max(0, 1 - d/√Σ(uᵢmax - uᵢmin)²)`, `d` the distance to the nearest of `points`; None
    without a zone of agreement or when both sides' utilities are constant."""
    if len(points) == 0 or stats.max_distance < TIE:
        return None
    distance = float(np.hypot(*(points - point).T).min())
    return max(0.0, 1.0 - distance / stats.max_distance)


def _price_scores(
    price: PriceStats, agreement: Outcome | None, product: float
) -> dict[str, float | None]:
    """The Nash-product share and the distance from the middle of the zone of agreement."""
    if agreement is None or price.low is None or price.high is None:
        return {"nash_product_share": None, "zoa_midpoint_distance": None}
    top = price.max_nash_product
    share = product / top if top is not None and top > 0 else None
    width = price.high - price.low
    at = price.prices[agreement[0]]
    middle = 0.0 if width == 0 else abs(at - (price.low + price.high) / 2) / width
    return {"nash_product_share": share, "zoa_midpoint_distance": middle}

"""Time-based concession: `boulware`, `linear` and `conceder` (spec/agents.md, Strategies)."""

from dataclasses import dataclass
from typing import cast

from accord.agents.preferences import Preferences
from accord.agents.strategies.base import (
    EPSILON,
    Randomness,
    Response,
    SeatView,
    lowest_at_or_above,
)

BOULWARE = 0.25
LINEAR = 1.0
CONCEDER = 4.0


def target(preferences: Preferences, exponent: float, t: float) -> float:
    r = preferences.reservation
    return float(r + (preferences.best - r) * (1 - t ** (1 / exponent)))


def schedule(
    preferences: Preferences, exponent: float, rounds: int
) -> tuple[list[float], list[int]]:
    """Each round's target and offer: a function of the round alone, so a tournament computes
    it once per profile (and keeps it with the profile) rather than once per move."""
    key = ("time_based", exponent, rounds)
    found = preferences.memo.get(key)
    if found is None:
        targets = [target(preferences, exponent, (k + 1) / (rounds + 1)) for k in range(rounds)]
        found = preferences.memo[key] = (
            targets,
            [lowest_at_or_above(preferences, u) for u in targets],
        )
    return cast(tuple[list[float], list[int]], found)  # what this function put in the memo


@dataclass(slots=True)
class TimeBased:
    """`target(t) = r + (u_max - r)(1 - t^(1/e))`: offer the outcome of lowest utility at or
    above the target, accept an offer at or above it."""

    targets: list[float]
    offers: list[int]
    utility: list[float]

    def propose(self, view: SeatView) -> int:
        return self.offers[view.round]

    def respond(self, view: SeatView) -> Response:
        offered = self.utility[view.received[-1]]
        return "accept" if offered >= self.targets[view.round] - EPSILON else "reject"


def time_based(preferences: Preferences, rounds: int, exponent: float) -> TimeBased:
    targets, offers = schedule(preferences, exponent, rounds)
    return TimeBased(targets, offers, preferences.utility_list)


def boulware(preferences: Preferences, rounds: int, rng: Randomness) -> TimeBased:
    return time_based(preferences, rounds, BOULWARE)


def linear(preferences: Preferences, rounds: int, rng: Randomness) -> TimeBased:
    return time_based(preferences, rounds, LINEAR)


def conceder(preferences: Preferences, rounds: int, rng: Randomness) -> TimeBased:
    return time_based(preferences, rounds, CONCEDER)

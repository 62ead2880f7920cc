"""`tit_for_tat`: relative concession mirroring the other side's, measured in the seat's own
utility under a zero-sum assumption (NegMAS `NaiveTitForTatNegotiator`): the better the other
side's last offer is for this seat, the further it concedes, a minimal step forced early on."""

from dataclasses import dataclass, field

from accord.agents.preferences import Preferences
from accord.agents.strategies.base import (
    EPSILON,
    Randomness,
    Response,
    SeatView,
    lowest_at_or_above,
)

FORCED_FROM, MIRROR_FROM = 1, 3
"""Rounds 1 and 2 concede one minimal step; from round 3 the concession is the mirror."""


@dataclass(slots=True)
class TitForTat:
    preferences: Preferences
    low: float = field(init=False)
    span: float = field(init=False)
    minimal: float = field(init=False)

    def __post_init__(self) -> None:
        prefs = self.preferences
        self.low = max(prefs.reservation, prefs.worst)
        self.span = max(prefs.best - self.low, EPSILON)
        levels = prefs.levels
        gap = levels[-1] - levels[-2] if len(levels) > 1 else 0.0
        self.minimal = (gap + EPSILON) / self.span

    def _normalised(self, outcome: int) -> float:
        return (self.preferences.utility_list[outcome] - self.low) / self.span

    def _concession(self, view: SeatView) -> float:
        if view.round < FORCED_FROM:
            return 0.0
        if view.round < MIRROR_FROM:  # NegMAS's recommender gives the minimal step alone here
            return min(self.minimal, 1.0)
        mirrored = max(self._normalised(view.received[-1]), 0.0) if view.received else 0.0
        return min(mirrored, 1.0)

    def propose(self, view: SeatView) -> int:
        target = 1.0 - self._concession(view)
        return lowest_at_or_above(self.preferences, self.low + target * self.span)

    def respond(self, view: SeatView) -> Response:
        target = 1.0 - self._concession(view)
        return "accept" if self._normalised(view.received[-1]) >= target - EPSILON else "reject"


def tit_for_tat(preferences: Preferences, rounds: int, rng: Randomness) -> TitForTat:
    return TitForTat(preferences)

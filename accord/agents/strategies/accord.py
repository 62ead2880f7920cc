"""`accord`, the default strategy (spec/agents.md, Strategies): a tough aspiration schedule whose
floor rises with the best offer received, a frequency model of the other side learnt from its
offers alone, offers chosen among those of the target utility to please that model most
(Pareto-seeking, and new ones first, since some opponents concede only to new offers), and an
acceptance rule that takes what beats its next offer, takes the best it can get at the deadline,
and never goes below the reservation value."""

from bisect import bisect_left
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from accord.agents.preferences import Floats, Preferences
from accord.agents.strategies.base import EPSILON, Randomness, Response, SeatView

EXPONENT = 0.2
"""`target(t) = floor + (u_max - floor)(1 - t^(1/e))`: concede little until late."""
WINDOW = 0.05
"""How much of its own span the seat gives up, at most, to please the other side."""
CANDIDATES = 256
"""Outcomes of about the target utility the model ranks per offer: a move's budget."""
LEARNING = 0.2
"""How much an issue's weight grows each time the other side leaves it unchanged."""
FINAL_ROUNDS = 2
"""In these last rounds the seat offers the best the other side has offered it."""


@dataclass(slots=True)
class Accord:
    preferences: Preferences
    rng: Randomness
    counts: list[Floats] = field(init=False)
    weights: Floats = field(init=False)
    counted: int = 0
    best_received: int | None = None
    sent: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        sizes = self.preferences.domain.sizes
        self.counts = [np.zeros(size) for size in sizes]
        self.weights = np.full(len(sizes), 1 / len(sizes))

    # -- what the other side's offers teach ----------------------------------------------

    def _observe(self, view: SeatView) -> None:
        utility = self.preferences.utility_list
        table = self.preferences.domain.table
        while self.counted < len(view.received):
            offer = view.received[self.counted]
            values = table[offer]
            for issue, value in enumerate(values):
                self.counts[issue][value] += 1
            if self.counted:
                unchanged = values == table[view.received[self.counted - 1]]
                if unchanged.any() and not unchanged.all():
                    self.weights = self.weights + LEARNING * (1 - view.t) * unchanged
                    self.weights = self.weights / self.weights.sum()
            if utility[offer] >= self.preferences.reservation and (
                self.best_received is None or utility[offer] > utility[self.best_received]
            ):
                self.best_received = offer
            self.counted += 1

    def _liking(self, outcomes: npt.NDArray[np.int64]) -> Floats:
        """The model's utility of each outcome for the other side: issue weights times value
        frequencies, each issue's most offered value counting 1."""
        rows = self.preferences.domain.table[outcomes]
        total = np.zeros(len(outcomes))
        for issue, counts in enumerate(self.counts):
            top = counts.max()
            if top > 0:
                total += self.weights[issue] * counts[rows[:, issue]] / top
        return total

    # -- the schedule --------------------------------------------------------------------

    def _floor(self) -> float:
        floor = self.preferences.reservation
        if self.best_received is not None:
            floor = max(floor, self.preferences.utility_list[self.best_received])
        return floor

    def _target(self, t: float) -> float:
        floor = min(self._floor(), self.preferences.best)
        return float(floor + (self.preferences.best - floor) * (1 - t ** (1 / EXPONENT)))

    def propose(self, view: SeatView) -> int:
        self._observe(view)
        prefs = self.preferences
        if self.best_received is not None and view.round >= view.rounds - FINAL_ROUNDS:
            return self.best_received
        target = self._target(view.t)
        levels = prefs.levels
        low = min(bisect_left(levels, target - EPSILON), len(levels) - 1)
        high = max(bisect_left(levels, target + WINDOW * (prefs.best - target) + EPSILON), low + 1)
        candidates = prefs.ladder[low : min(high, low + CANDIDATES)]
        if not self.counted or len(candidates) == 1:
            choice = int(candidates[0])
        else:
            liking = self._liking(candidates)
            fresh = np.fromiter(
                (int(o) not in self.sent for o in candidates), bool, len(candidates)
            )
            choice = int(candidates[int(np.argmax(liking + fresh))])
        self.sent.add(choice)
        return choice

    def respond(self, view: SeatView) -> Response:
        self._observe(view)
        prefs = self.preferences
        if prefs.best < prefs.reservation:
            return "end"
        offered = prefs.utility_list[view.received[-1]]
        if offered < prefs.reservation:
            return "reject"
        if view.last_round or offered >= self._target(view.t) - EPSILON:
            return "accept"
        return "reject"


def accord(preferences: Preferences, rounds: int, rng: Randomness) -> Accord:
    return Accord(preferences, rng)

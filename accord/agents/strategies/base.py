"""What a strategy sees and what it answers (spec/agents.md, Seat interface and Information
boundary). Outcomes travel as outcome numbers (`Domain.outcome_at`), the cheapest thing a move
can carry; a seat's view holds its own preferences, the rounds, the relative time and the
offers exchanged, nothing of the other side's."""

import random
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from accord.agents.preferences import Preferences

Response = Literal["accept", "reject", "end"]
"""`reject` carries on (a counter-offer follows); `end` walks away."""

EPSILON = 1e-12
"""Utilities equal within this are one level: a sum of weighted floats is not exact."""


@dataclass(slots=True)
class SeatView:
    """One seat's view, kept by the engine and updated in place between moves (a negotiation
    makes thousands of them): strategies read it and never write it."""

    preferences: Preferences
    rounds: int
    round: int = 0
    """0-based; a round is one move by each seat."""
    t: float = 0.0
    """Relative time `(round + 1) / (rounds + 1)`, as NegMAS computes it."""
    received: list[int] = field(default_factory=list)
    """The other side's offers, oldest first; `respond` answers the last."""
    sent: list[int] = field(default_factory=list)

    @property
    def last_round(self) -> bool:
        return self.round >= self.rounds - 1


class Strategy(Protocol):
    """A small pure object acting for one seat in one negotiation: `propose` when it is the
    seat's turn to offer, `respond` to the offer in `view.received[-1]` first."""

    def propose(self, view: SeatView) -> int: ...

    def respond(self, view: SeatView) -> Response: ...


class Randomness(Protocol):
    @property
    def generator(self) -> random.Random: ...


Factory = Callable[[Preferences, int, Randomness], Strategy]
"""Builds a strategy for one seat from its preferences and the rounds; all its randomness
comes from the engine's seeded generator."""


def lowest_at_or_above(preferences: Preferences, target: float) -> int:
    """The outcome of lowest utility still at or above `target`, ties broken by outcome order;
    the best outcome when nothing reaches the target."""
    levels = preferences.levels
    index = bisect_left(levels, target - EPSILON)
    if index == len(levels):
        return preferences.ladder_list[-1]
    # bisect lands on the first of equal levels, which the stable ladder keeps in outcome order
    return preferences.ladder_list[index]

"""`micro`: MiCRO (de Jonge, 2022; NegMAS `MiCRONegotiator`). It walks down its own ranking of
the rational outcomes one outcome at a time, and takes a step only once the other side has
proposed as many distinct outcomes as it has; otherwise it repeats one of its own offers. It
accepts whatever is at least as good as its next offer."""

from dataclasses import dataclass, field

from accord.agents.preferences import Preferences
from accord.agents.strategies.base import EPSILON, Randomness, Response, SeatView


@dataclass(slots=True)
class Micro:
    preferences: Preferences
    rng: Randomness
    next_index: int = 0
    """Position in the ranking, best first, of the next new offer."""
    sent: list[int] = field(default_factory=list)
    """Distinct, in the order first offered: MiCRO never offers an outcome twice as new."""
    received: set[int] = field(default_factory=set)
    counted: int = 0
    """How many of `view.received` are in `received`."""

    def _ranked(self, index: int) -> int | None:
        """The outcome ranked `index`, best first, or None past the rational ones."""
        ladder = self.preferences.ladder_list
        if not 0 <= index < len(ladder):
            return None
        outcome = ladder[-1 - index]
        if self.preferences.utility_list[outcome] < self.preferences.reservation:
            return None
        return outcome

    def _observe(self, view: SeatView) -> None:
        while self.counted < len(view.received):
            self.received.add(view.received[self.counted])
            self.counted += 1

    def _ready(self) -> bool:
        return len(self.sent) <= len(self.received)

    def propose(self, view: SeatView) -> int:
        self._observe(view)
        outcome = self._ranked(self.next_index)
        if outcome is None or not self._ready():
            if self.sent:
                return self.rng.generator.choice(self.sent)
            return self.preferences.ladder_list[-1]
        self.next_index += 1
        self.sent.append(outcome)
        return outcome

    def respond(self, view: SeatView) -> Response:
        self._observe(view)
        mine = self._ranked(self.next_index if self._ready() else self.next_index - 1)
        floor = self.preferences.reservation
        if mine is not None:
            floor = self.preferences.utility_list[mine]
        offered = self.preferences.utility_list[view.received[-1]]
        return "accept" if offered >= floor - EPSILON else "reject"


def micro(preferences: Preferences, rounds: int, rng: Randomness) -> Micro:
    return Micro(preferences, rng)

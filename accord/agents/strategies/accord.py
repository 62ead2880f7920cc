"""`accord`, the default strategy (spec/agents.md, Strategies).

Why it plays as it does:

- It concedes on a tough (Boulware) schedule because most opponents concede with time, and the
  seat that waits collects their concession; its floor rises with the best offer received, so it
  never asks for less than it has already been offered, and in the last rounds it offers that
  best offer back, which any opponent that stands by its own offers accepts (HardHeaded, AgentK),
  when it is worth it (below).
- It never asks for much more than an estimate of the Nash point: holding out for the last bit of
  utility buys little and costs the other side a lot near the top of a flat frontier, and against
  an opponent that concedes fast it leaves an agreement far from the fair one. The estimate is the
  Nash product over a fixed spread of its own rational outcomes, the other side's utility read
  from a frequency model and its reservation, unknown, taken as 0.
- Nor does it concede below that estimate until late (HOLD): many opponents give way only near
  the deadline and accept there whatever clears their own reservation, so the seat that still
  stands near the fair point then is the one that gets it. In the last stretch its floor falls
  a little toward its reservation, for a Nash estimate that is wrong; the opponents that
  concede only in answer to concessions (tit-for-tat, MiCRO) then agree less often, a price
  the deadline-acceptors more than repay.
- The frequency model weighs early offers most (e^(-FADE t)): every opponent opens near its own
  top and then walks away from it, so late offers, however many, say little about what it
  likes. With one issue no frequency can rank the values, so the other side is assumed opposed.
- Among the outcomes of about the target utility it offers the one of largest estimated Nash
  product (its gain times the model's liking), preferring ones not yet sent, since some
  opponents (MiCRO) concede only to new offers.
- In the last rounds it offers the other side's best offer back only when that offer is worth
  it: as good as its own end floor, or a step the other side took away from its opening. An
  opponent that never moved from its opening gives way, if at all, at the deadline, and then
  to what stands: to its schedule's offer rather than to the opponent's own.
- Where nothing rational was ever received and the zone of agreement it estimates (the other
  side's reservation taken as equal to its own, since it cannot know it) is at most a sliver,
  its last answerable offer is that sliver's Nash point: there the only deal both sides can take
  lies at about both reservations, and an opponent that stands by its reservation takes nothing
  else.
- It accepts what reaches its current target, anything rational in the last round, and nothing
  below its reservation, ever. It reads only its own preferences and the offers."""

from bisect import bisect_left
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from accord.agents.preferences import Floats, Preferences
from accord.agents.strategies.base import EPSILON, Randomness, Response, SeatView

EXPONENT = 0.2
"""`target(t) = floor + (top - floor)(1 - t^(1/e))`: concede little until late."""
CAP = 0.65
"""`top = nash + CAP (u_max - nash)`: how far past the estimated Nash point it asks."""
REFRESH = 5
"""Rounds between two estimates of the Nash point, after the first few offers."""
WINDOW = 0.1
"""How much of its own span above the target it searches for the largest estimated Nash product."""
CANDIDATES = 256
"""Outcomes of about the target utility the model ranks per offer: a move's budget."""
POOL = 2000
"""Outcomes, spread over its own rational range, on which it estimates the frontier."""
TOP = 200
"""Its own best outcomes, always in the pool: where the early offers are made."""
LEARNING = 0.2
"""How much an issue's weight grows each time the other side leaves it unchanged."""
FINAL_ROUNDS = 2
"""In these last rounds the seat offers the best the other side has offered it."""
FADE = 22.0
"""An offer made at time t counts `e^(-FADE t)`: early offers show the other side's top."""
HOLD = 0.85
"""Until this time the schedule's floor is the estimated Nash point."""
END_FLOOR = 0.85
"""From HOLD to the deadline the floor falls to `r + END_FLOOR (nash - r)`: little, since the
agents that give way at the deadline take what still stands then, and only the few that concede
solely in answer to concessions would have needed more."""
OPENING = 0.1
"""The share of the rounds whose offers are the other side's opening, against which a later
offer is a step (its first 10 offers in 100 rounds)."""
SLIVER = 0.02
"""A zone whose largest estimated Nash product is below this share of `(u_max - r)(1 - r)`."""
TINY = 1e-6
"""Keeps the logarithms of the Nash product finite."""


@dataclass(slots=True)
class Accord:
    preferences: Preferences
    rng: Randomness
    counts: list[Floats] = field(init=False)
    weights: Floats = field(init=False)
    pool: npt.NDArray[np.int64] = field(init=False)
    pool_gain: Floats = field(init=False)
    pool_rows: npt.NDArray[np.int64] = field(init=False)
    counted: int = 0
    best_received: int | None = None
    sent: set[int] = field(default_factory=set)
    nash_round: int = -1
    nash_utility: float = 0.0

    def __post_init__(self) -> None:
        prefs = self.preferences
        sizes = prefs.domain.sizes
        self.counts = [np.zeros(size) for size in sizes]
        self.weights = np.full(len(sizes), 1 / len(sizes))
        ladder = prefs.ladder
        start = bisect_left(prefs.levels, prefs.reservation - EPSILON)
        rational = ladder[start:]
        if len(rational) > POOL + TOP:
            step = len(rational) // POOL
            spread = rational[: len(rational) - TOP : step]
            rational = np.concatenate((spread, rational[-TOP:]))
        self.pool = rational
        self.pool_gain = prefs.utilities[rational] - prefs.reservation
        self.pool_rows = prefs.domain.table[rational]

    # -- what the other side's offers teach ----------------------------------------------

    def _observe(self, view: SeatView) -> None:
        utility = self.preferences.utility_list
        table = self.preferences.domain.table
        while self.counted < len(view.received):
            offer = view.received[self.counted]
            values = table[offer]
            weight = np.exp(-FADE * (self.counted + 1) / (view.rounds + 1))
            for issue, value in enumerate(values):
                self.counts[issue][value] += weight
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

    def _liking(
        self, outcomes: npt.NDArray[np.int64], rows: npt.NDArray[np.int64] | None = None
    ) -> Floats:
        """The model's utility of each outcome for the other side, in [0, 1]: issue weights
        times value frequencies, each issue's most offered value counting 1; with one issue,
        opposed to its own."""
        prefs = self.preferences
        if len(prefs.domain.sizes) == 1:
            span = max(prefs.best - prefs.worst, EPSILON)
            result: Floats = (prefs.best - prefs.utilities[outcomes]) / span
            return result
        if rows is None:
            rows = prefs.domain.table[outcomes]
        total = np.zeros(len(outcomes))
        for issue, counts in enumerate(self.counts):
            top = counts.max()
            if top > 0:
                total += self.weights[issue] * counts[rows[:, issue]] / top
        return total

    # -- the schedule --------------------------------------------------------------------

    def _nash(self, view: SeatView) -> float | None:
        """Its own utility at the Nash point of the pool under the model, re-estimated every
        few rounds; None before the other side has shown anything."""
        if not self.counted or not len(self.pool):
            return None
        stale = view.round - self.nash_round >= REFRESH or self.counted <= REFRESH
        if self.nash_round != view.round and stale:
            their_gain = self._liking(self.pool, self.pool_rows)  # their reservation unknown: 0
            score = np.log(self.pool_gain + TINY) + np.log(their_gain + TINY)
            self.nash_utility = float(self.preferences.utilities[self.pool[int(np.argmax(score))]])
            self.nash_round = view.round
        return self.nash_utility

    def _target(self, view: SeatView) -> float:
        prefs = self.preferences
        floor = prefs.reservation
        if self.best_received is not None:
            floor = max(floor, prefs.utility_list[self.best_received])
        floor = min(floor, prefs.best)
        top = prefs.best
        nash = self._nash(view)
        if nash is not None:
            late = min(1.0, max(0.0, (view.t - HOLD) / (1 - HOLD)))
            floor = max(floor, self._nash_floor(nash, late))
            top = max(floor, min(top, nash + CAP * (prefs.best - nash)))
        return float(floor + (top - floor) * (1 - view.t ** (1 / EXPONENT)))

    def _nash_floor(self, nash: float, late: float) -> float:
        """The floor the Nash estimate sets: the estimate itself until HOLD (`late` 0), then
        falling to `r + END_FLOOR (nash - r)` at the deadline (`late` 1)."""
        r = self.preferences.reservation
        return r + (1 - (1 - END_FLOOR) * late) * (nash - r)

    def propose(self, view: SeatView) -> int:
        self._observe(view)
        prefs = self.preferences
        received = self.best_received
        if received is not None and view.round >= view.rounds - FINAL_ROUNDS:
            if self._worth_offering_back(view, received):
                return received
        elif received is None and view.round == last_answerable(view):
            point = self._sliver_point()
            if point is not None:
                self.sent.add(point)
                return point
        target = self._target(view)
        levels = prefs.levels
        low = min(bisect_left(levels, target - EPSILON), len(levels) - 1)
        high = max(bisect_left(levels, target + WINDOW * (prefs.best - target) + EPSILON), low + 1)
        candidates = prefs.ladder[low : min(high, low + CANDIDATES)]
        if not self.counted or len(candidates) == 1:
            choice = int(candidates[0])
        else:
            choice = self._nashest(candidates)
        self.sent.add(choice)
        return choice

    def _worth_offering_back(self, view: SeatView, received: int) -> bool:
        """Whether the other side's best offer is worth offering back at the end: it reaches
        the floor the schedule ends on, or the other side moved to it from its opening."""
        utility = self.preferences.utility_list
        best = utility[received]
        nash = self._nash(view)
        if nash is not None and best >= self._nash_floor(nash, 1.0) - EPSILON:
            return True
        opening = max(utility[o] for o in view.received[: max(1, int(OPENING * view.rounds))])
        return best > opening + EPSILON

    def _sliver_point(self) -> int | None:
        """The Nash point of the zone of agreement it estimates, the other side's reservation
        taken as its own, when that zone is at most a sliver; None otherwise."""
        prefs = self.preferences
        r = prefs.reservation
        if not self.counted or not len(self.pool):
            return None
        liking = self._liking(self.pool, self.pool_rows)
        inside = liking >= r - EPSILON
        if not inside.any():
            return None
        product = np.where(inside, self.pool_gain * np.maximum(liking - r, 0.0), -1.0)
        best = int(np.argmax(product))
        if product[best] > SLIVER * (prefs.best - r) * (1 - r):
            return None
        return int(self.pool[best])

    def _nashest(self, candidates: npt.NDArray[np.int64]) -> int:
        """The candidate of largest estimated Nash product, preferring ones not yet sent: of
        offers worth about the same to it, the one nearest the fair point is the likeliest to
        be taken and leaves the agreement nearest that point."""
        gain = self.preferences.utilities[candidates] - self.preferences.reservation
        score = np.log(gain + TINY) + np.log(self._liking(candidates) + TINY)
        fresh = np.fromiter((int(o) not in self.sent for o in candidates), bool, len(candidates))
        if fresh.any():
            score = np.where(fresh, score, -np.inf)
        return int(candidates[int(np.argmax(score))])

    def respond(self, view: SeatView) -> Response:
        self._observe(view)
        prefs = self.preferences
        if prefs.best < prefs.reservation:
            return "end"
        offered = prefs.utility_list[view.received[-1]]
        if offered < prefs.reservation:
            return "reject"
        if view.last_round or offered >= self._target(view) - EPSILON:
            return "accept"
        return "reject"


def last_answerable(view: SeatView) -> int:
    """The round of a seat's last offer that the other side can still answer: the last round
    for the seat that opens each round, the one before for the other (its last offer comes
    after the other side's last move)."""
    opens = len(view.received) == len(view.sent)  # read while proposing
    return view.rounds - 1 if opens else view.rounds - 2


def accord(preferences: Preferences, rounds: int, rng: Randomness) -> Accord:
    return Accord(preferences, rng)

"""Scenarios and scripted seats for engine and strategy tests."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from accord.agents.domain import Domain, Issue
from accord.agents.preferences import Preferences
from accord.agents.scenarios import Scenario, find_scenarios
from accord.agents.strategies import Factory, Randomness, Response, SeatView

DATA = Path(__file__).parent / "data" / "scenarios"


def data_scenarios() -> list[Scenario]:
    found, _ = find_scenarios(DATA)
    return found


@st.composite
def preferences_pairs(draw: st.DrawFn, max_issues: int = 3) -> tuple[Preferences, Preferences]:
    """Two random linear profiles over one random domain, reservations included."""
    sizes = draw(st.lists(st.integers(1, 5), min_size=1, max_size=max_issues))
    domain = Domain(
        tuple(Issue(f"i{n}", tuple(f"v{k}" for k in range(size))) for n, size in enumerate(sizes))
    )
    unit = st.floats(0, 1, allow_nan=False)

    def profile() -> Preferences:
        weights = [draw(st.floats(0.01, 1)) for _ in sizes]
        evaluations = [[draw(unit) for _ in range(size)] for size in sizes]
        total = sum(weights)
        head = [w / total for w in weights[:-1]]
        return Preferences(
            domain,
            (*head, 1 - sum(head)),
            tuple(tuple(values) for values in evaluations),
            reservation=draw(st.floats(0, 0.9)),
        )

    return profile(), profile()


@dataclass
class Scripted:
    """A seat that offers a fixed list of outcomes in turn and never accepts."""

    offers: Sequence[int]
    seen: list[tuple[int, float, int]] = field(default_factory=list)
    """(round, t, offers received) at each call: what the engine showed it."""

    def propose(self, view: SeatView) -> int:
        self.seen.append((view.round, view.t, len(view.received)))
        return self.offers[len(view.sent) % len(self.offers)]

    def respond(self, view: SeatView) -> Response:
        self.seen.append((view.round, view.t, len(view.received)))
        return "reject"


def scripted(seat: Scripted) -> Factory:
    """A factory that hands out `seat` itself, so a test can read what it saw."""

    def factory(preferences: Preferences, rounds: int, rng: Randomness) -> Scripted:
        return seat

    return factory

"""A seat's preferences: a utility in [0, 1] for every outcome and the utility of walking away
(spec/agents.md, Preferences). Linear additive, as every Accord and Genius profile is:
`u(o) = Σ wᵢ · eᵢ(oᵢ)` with the weights summing to 1 and each evaluation in [0, 1]."""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from accord.agents.domain import Domain, Outcome

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class Preferences:
    domain: Domain
    weights: tuple[float, ...]
    """One per issue, summing to 1."""
    evaluations: tuple[tuple[float, ...], ...]
    """One per issue, one per value, each in [0, 1]."""
    reservation: float = 0.0
    discount: float | None = None
    """Genius's discount factor `d` (utility `u·d^t`); None for no discounting."""
    name: str = ""

    def __post_init__(self) -> None:
        sizes = tuple(len(values) for values in self.evaluations)
        if len(self.weights) != len(self.domain.issues) or sizes != self.domain.sizes:
            raise ValueError("weights and evaluations must follow the domain's issues and values")
        if any(w < 0 for w in self.weights) or abs(sum(self.weights) - 1) > 1e-9:
            raise ValueError("weights must be non-negative and sum to 1")
        if any(not 0 <= e <= 1 for values in self.evaluations for e in values):
            raise ValueError("evaluations must lie in [0, 1]")
        if not 0 <= self.reservation <= 1:
            raise ValueError("the reservation value must lie in [0, 1]")

    @classmethod
    def normalised(
        cls,
        domain: Domain,
        weights: Sequence[float],
        evaluations: Sequence[Sequence[float]],
        **more: object,
    ) -> "Preferences":
        """The Genius rule: `wᵢ/Σw · eᵢ(v)/maxᵥ eᵢ(v)`, with no further rescaling."""
        total = sum(weights)
        if total <= 0:
            raise ValueError("at least one weight must be positive")
        scaled = tuple(
            tuple(e / top if top > 0 else 0.0 for e in values)
            for values in evaluations
            for top in (max(values),)
        )
        return cls(domain, tuple(w / total for w in weights), scaled, **more)  # type: ignore[arg-type]  # the rest are keyword fields

    @cached_property
    def _weighted(self) -> tuple[tuple[float, ...], ...]:
        return tuple(
            tuple(w * e for e in values)
            for w, values in zip(self.weights, self.evaluations, strict=True)
        )

    def utility(self, outcome: Outcome) -> float:
        return sum(table[index] for table, index in zip(self._weighted, outcome, strict=True))

    @cached_property
    def utilities(self) -> Floats:
        """The utility of every outcome, in the domain's product order."""
        total: Floats = np.zeros(self.domain.sizes, dtype=np.float64)
        for axis, table in enumerate(self._weighted):
            shape = [1] * len(self.domain.sizes)
            shape[axis] = len(table)
            total = total + np.asarray(table, dtype=np.float64).reshape(shape)
        return total.reshape(-1)

    @cached_property
    def ladder(self) -> npt.NDArray[np.int64]:
        """Outcome numbers by utility, lowest first; equal utilities keep the outcome order."""
        return np.argsort(self.utilities, kind="stable").astype(np.int64)

    @cached_property
    def levels(self) -> list[float]:
        """The utilities in ladder order, as Python floats: strategies bisect them per move."""
        levels: list[float] = self.utilities[self.ladder].tolist()
        return levels

    @cached_property
    def ladder_list(self) -> list[int]:
        numbers: list[int] = self.ladder.tolist()
        return numbers

    @cached_property
    def utility_list(self) -> list[float]:
        """`utilities` as Python floats: indexing a list is what a move's hot path can afford."""
        utilities: list[float] = self.utilities.tolist()
        return utilities

    @cached_property
    def memo(self) -> dict[object, object]:
        """Results of pure functions of this profile (a strategy's schedule), kept as long as
        the profile is: a tournament reuses one profile for thousands of negotiations."""
        return {}

    @cached_property
    def best(self) -> float:
        return float(self.utilities.max())

    @cached_property
    def worst(self) -> float:
        return float(self.utilities.min())

    @cached_property
    def best_outcome(self) -> Outcome:
        """The first outcome of the highest utility."""
        return self.domain.outcome_at(int(self.utilities.argmax()))

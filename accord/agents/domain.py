"""An outcome space: issues, each a finite list of values (spec/agents.md, Scenarios). An
outcome is a tuple of value indices, one per issue, in issue order; outcomes are numbered in
`itertools.product` order (the last issue varies fastest), the order ties are broken by."""

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
import numpy.typing as npt

Outcome = tuple[int, ...]
IssueKind = Literal["discrete", "integer"]


@dataclass(frozen=True)
class Issue:
    name: str
    values: tuple[str, ...]
    kind: IssueKind = "discrete"
    """`integer` issues are ranges whose values are the integers written out."""

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError(f"issue {self.name!r} has no values")
        if len(set(self.values)) != len(self.values):
            raise ValueError(f"issue {self.name!r} repeats a value")


@dataclass(frozen=True)
class Domain:
    issues: tuple[Issue, ...]

    def __post_init__(self) -> None:
        if not self.issues:
            raise ValueError("a domain needs at least one issue")
        names = [issue.name for issue in self.issues]
        if len(set(names)) != len(names):
            raise ValueError("issue names must be distinct")

    @cached_property
    def sizes(self) -> tuple[int, ...]:
        return tuple(len(issue.values) for issue in self.issues)

    @cached_property
    def outcome_count(self) -> int:
        return math.prod(self.sizes)

    @cached_property
    def table(self) -> npt.NDArray[np.int64]:
        """Row `n` holds the value indices of outcome `n`: what opponent models count."""
        grids = np.indices(self.sizes, dtype=np.int64)
        return grids.reshape(len(self.sizes), -1).T.copy()

    def outcomes(self) -> Iterator[Outcome]:
        return itertools.product(*(range(size) for size in self.sizes))

    def outcome_at(self, number: int) -> Outcome:
        """The outcome numbered `number` in product order."""
        indices: list[int] = []
        for size in reversed(self.sizes):
            number, index = divmod(number, size)
            indices.append(index)
        return tuple(reversed(indices))

    def number_of(self, outcome: Outcome) -> int:
        number = 0
        for size, index in zip(self.sizes, outcome, strict=True):
            number = number * size + index
        return number

    def values_of(self, outcome: Outcome) -> list[str]:
        return [issue.values[index] for issue, index in zip(self.issues, outcome, strict=True)]

    def outcome_of(self, values: Sequence[str]) -> Outcome:
        """The outcome that names these values; ValueError for a value the issue lacks."""
        if len(values) != len(self.issues):
            raise ValueError(f"an outcome has {len(self.issues)} values, not {len(values)}")
        return tuple(
            issue.values.index(value) for issue, value in zip(self.issues, values, strict=True)
        )

"""The protocol interface: pure `decide` and `apply`, with time, ids and nonces passed in.

A protocol decides what to append (public envelopes, private records, notices) or refuses; the
application layer numbers, links, stores and delivers what it decided.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from accord.core.envelope import Draft

S = TypeVar("S")
R = TypeVar("R")


@dataclass(frozen=True)
class PrivateDraft:
    """A record for one party's private log, which the other side never reads."""

    party: str
    draft: Draft


@dataclass(frozen=True)
class Notice:
    """A notification for one party's stream (`owner_only` keeps it from the agent)."""

    party: str
    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    owner_only: bool = False


@dataclass(frozen=True)
class Decision:
    public: Sequence[Draft] = ()
    private: Sequence[PrivateDraft] = ()
    notices: Sequence[Notice] = ()


def fold(apply: Callable[[S, R], S], initial: S, records: Iterable[R]) -> S:
    """The one fold: the application layer, projections and tests all rebuild state with it."""
    state = initial
    for record in records:
        state = apply(state, record)
    return state

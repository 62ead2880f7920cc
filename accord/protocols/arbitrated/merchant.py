"""The hosted merchant policy: its asks and its answers, in net prices
(spec/arbitrated-rest.md, "Session flow" item 5).

Rounds (item 3): the merchant's opening is round 0 and offers `ask(0)`. Round r, for
1 ≤ r ≤ max_rounds, is the buyer's r-th offer and the merchant's answer to it. Read literally,
the answer in round r < max_rounds compares with, and counters at, `ask(r)`; in the last round
(r = max_rounds) it accepts at the reservation and otherwise counters at `ask(max_rounds - 1)`,
the ask it already made in round max_rounds - 1 (or its opening when max_rounds is 1). So
`ask` is only ever evaluated for r = 0 … max_rounds - 1, as the spec's formula says, and
`ask(max_rounds)`, which would be the reservation itself, is never offered.

The floor is private: the asks depend on it only through `reservation = max(floor, fair_low)`,
so every floor below `fair_low` gives the same asks. With a floor below the list price and below
`fair_high` (what `PUT /v1/policies` enforces), the opening is strictly above the reservation
and every ask is too, so no offer names the floor; it shows only in what the merchant accepts.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import Final, Literal

from accord.protocols.arbitrated.fairness import (
    Attested,
    fair_high,
    fair_low,
    inclusions_weight,
)

Style = Literal["boulware", "linear", "conceder"]

# The concession exponents, as doubles: 1 / 3 is the nearest double to a third, not a third.
EXPONENTS: Final[Mapping[Style, float]] = MappingProxyType(
    {"boulware": 3.0, "linear": 1.0, "conceder": 1.0 / 3.0}
)


@dataclass(frozen=True)
class MerchantPolicy:
    """The parts of a merchant's `Policy` its hosted strategy uses. `floor_minor` is private."""

    list_price_minor: int
    floor_minor: int
    default_inclusions: tuple[str, ...]
    style: Style
    max_rounds: int
    band: Decimal


@dataclass(frozen=True)
class Accept:
    """The merchant takes the buyer's offer."""


@dataclass(frozen=True)
class Counter:
    """The merchant's `offer.counter`: at its ask plus the weight of the buyer's inclusions."""

    price_minor: int
    inclusions: tuple[str, ...]


def _weight(inclusions: Sequence[str], utilities: Mapping[str, Decimal], attested: Attested) -> int:
    w = inclusions_weight(inclusions, utilities, attested)
    if w is None:
        # The arbiter refuses such offers, and a policy's own inclusions are all attested.
        raise ValueError(f"an inclusion in {list(inclusions)} has no attested value")
    return w


def reservation(policy: MerchantPolicy, attested: Attested) -> int:
    """max(floor, fair_low): the lowest net price the merchant accepts, and the only way the
    floor enters the asks."""
    return max(policy.floor_minor, fair_low(attested.t_target_minor, policy.band))


def opening_inclusions(
    policy: MerchantPolicy, *, attested: Attested, utilities: Mapping[str, Decimal]
) -> tuple[str, ...]:
    """K0: the default inclusions if list_price - W(default) > reservation, else none."""
    w = _weight(policy.default_inclusions, utilities, attested)
    if policy.list_price_minor - w > reservation(policy, attested):
        return policy.default_inclusions
    return ()


def opening(policy: MerchantPolicy, *, attested: Attested, utilities: Mapping[str, Decimal]) -> int:
    """The opening net price: max(min(list_price - W(K0), fair_high), reservation)."""
    k0 = opening_inclusions(policy, attested=attested, utilities=utilities)
    listed = policy.list_price_minor - _weight(k0, utilities, attested)
    high = fair_high(attested.t_target_minor, policy.band)
    return max(min(listed, high), reservation(policy, attested))


def ask(
    policy: MerchantPolicy, r: int, *, attested: Attested, utilities: Mapping[str, Decimal]
) -> int:
    """The net ask for r = 0 … max_rounds - 1:
    reservation + ceil((opening - reservation) * (1 - (r / max_rounds) ** e)).

    Evaluated exactly as the spec writes it, in IEEE double: `r / max_rounds` (true division),
    `** e`, `1 - …`, then `float(opening - reservation) * …` left to right, and `math.ceil` of
    that double. Rounding is part of the contract (4200 * (1 - 2 / 6) is 2800.0000000000005 in
    doubles, so the linear ask is reservation + 2801), and another order or exact arithmetic
    would give other asks.
    """
    if not 0 <= r < policy.max_rounds:
        raise ValueError(f"ask is defined for rounds 0 … {policy.max_rounds - 1}, not {r}")
    low = reservation(policy, attested)
    spread = opening(policy, attested=attested, utilities=utilities) - low
    # float ** float is typed Any (it may be complex); here the base is in [0, 1) and e > 0.
    share: float = (r / policy.max_rounds) ** EXPONENTS[policy.style]
    return low + math.ceil(float(spread) * (1 - share))


def asks(
    policy: MerchantPolicy, *, attested: Attested, utilities: Mapping[str, Decimal]
) -> tuple[int, ...]:
    """Every ask, ask(0) … ask(max_rounds - 1)."""
    return tuple(
        ask(policy, r, attested=attested, utilities=utilities) for r in range(policy.max_rounds)
    )


def opening_offer(
    policy: MerchantPolicy, *, attested: Attested, utilities: Mapping[str, Decimal]
) -> tuple[int, tuple[str, ...]]:
    """Round 0's `offer.propose`: (ask(0) + W(K0), K0)."""
    k0 = opening_inclusions(policy, attested=attested, utilities=utilities)
    price = ask(policy, 0, attested=attested, utilities=utilities) + _weight(
        k0, utilities, attested
    )
    return price, k0


def respond(
    policy: MerchantPolicy,
    *,
    round: int,
    buyer_t: int,
    buyer_inclusions: Sequence[str],
    attested: Attested,
    utilities: Mapping[str, Decimal],
) -> Accept | Counter:
    """The merchant's answer to a buyer offer the arbiter did not refuse, in round
    1 ≤ round ≤ max_rounds (a corrective offer belongs to the round it corrects).

    Round r < max_rounds: accept when t ≥ ask(r), else counter at ask(r) + W(K).
    Round max_rounds: accept when t ≥ reservation, else counter at ask(max_rounds - 1) + W(K).
    The counter carries the buyer's inclusions K, weighed with the buyer's utilities.
    """
    if not 1 <= round <= policy.max_rounds:
        raise ValueError(f"the merchant answers in rounds 1 … {policy.max_rounds}, not {round}")
    kinds = tuple(buyer_inclusions)
    w = _weight(kinds, utilities, attested)
    if round < policy.max_rounds:
        target = ask(policy, round, attested=attested, utilities=utilities)
        if buyer_t >= target:
            return Accept()
        return Counter(target + w, kinds)
    if buyer_t >= reservation(policy, attested):
        return Accept()
    last = ask(policy, policy.max_rounds - 1, attested=attested, utilities=utilities)
    return Counter(last + w, kinds)

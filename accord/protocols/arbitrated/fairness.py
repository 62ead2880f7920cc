"""Fairness profiles, pluggable by name: how the arbiter scores an offer
(spec/arbitrated-rest.md, "Fairness profile default/v0.1").

All arithmetic is exact (`Fraction`); the only roundings are the ones the spec names: `W` to a
minor unit (half-even), `fairness_score` to 4 decimals (half-even), and `fair_low`/`fair_high`
(ceil/floor). The verdict compares the exact ratio, never the rounded score.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import Final, Protocol

DEFAULT_PROFILE: Final = "default/v0.1"


@dataclass(frozen=True)
class Attested:
    """What the arbiter attests at open: `t_target` (the reference price) and the value of each
    inclusion kind, in minor units of `currency`."""

    currency: str
    t_target_minor: int
    inclusion_values: Mapping[str, int]


class Verdict(StrEnum):
    FAIR = "fair"
    UNFAIR_TO_BUYER = "unfair_to_buyer"  # the buyer overpays: ratio below 1 - band
    UNFAIR_TO_MERCHANT = "unfair_to_merchant"  # the merchant undersells: ratio above 1 + band
    UNSCOREABLE = "unscoreable"


class Cause(StrEnum):
    """Why an offer is `unscoreable`; the last two are also the refusal codes a buyer offer gets."""

    CURRENCY = "currency"
    UNATTESTED_INCLUSION = "unattested_inclusion"
    PRICE_NOT_ABOVE_INCLUSIONS = "price_not_above_inclusions"


@dataclass(frozen=True)
class Score:
    """One `arbitration.evaluate`. For `unscoreable`, `cause` says why and only what could be
    computed is set: nothing after `currency` or `unattested_inclusion`; `w_minor`, `t_minor`
    and `suggested_adjustment_minor` after `price_not_above_inclusions`."""

    verdict: Verdict
    fairness_score: str | None  # t_target / t, 4 decimals, half-even: "1.0944"
    w_minor: int | None
    t_minor: int | None
    price_minor: int
    suggested_adjustment_minor: int | None  # t_target + W: the price that scores exactly 1
    cause: Cause | None = None


class Profile(Protocol):
    def __call__(
        self,
        *,
        price_minor: int,
        currency: str,
        inclusions: Sequence[str],
        utilities: Mapping[str, Decimal],
        attested: Attested,
        band: Decimal,
    ) -> Score: ...


def _band(band: Decimal) -> Fraction:
    # A band outside [0, 1) has no `fair_high`; `PUT /v1/policies` never stores one.
    if not band.is_finite() or not 0 <= band < 1:
        raise ValueError(f"a fair band is a decimal in [0, 1), not {band}")
    return Fraction(band)


def inclusions_weight(
    inclusions: Sequence[str], utilities: Mapping[str, Decimal], attested: Attested
) -> int | None:
    """W = Σ u_buyer(k) · value(k), rounded half-even to a minor unit; `None` when an inclusion
    has no attested value.

    `utilities` are always the buyer's declared ones (0 where it declared none), whoever
    proposes the terms, so the same terms weigh the same from either side. `inclusions` is a
    set: a kind named twice counts once. The sum is exact (what Decimal gives at any precision),
    and `round(Fraction)` rounds half to even.
    """
    total = Fraction(0)
    for kind in dict.fromkeys(inclusions):
        value = attested.inclusion_values.get(kind)
        if value is None:
            return None
        total += Fraction(utilities.get(kind, Decimal(0))) * value
    return round(total)


def fair_low(t_target_minor: int, band: Decimal) -> int:
    """The lowest net price not unfair to the merchant: ceil(t_target / (1 + band))."""
    return math.ceil(Fraction(t_target_minor) / (1 + _band(band)))


def fair_high(t_target_minor: int, band: Decimal) -> int:
    """The highest net price not unfair to the buyer: floor(t_target / (1 - band))."""
    return math.floor(Fraction(t_target_minor) / (1 - _band(band)))


def buyer_lowest_fair_price(t_target_minor: int, band: Decimal, w_minor: int) -> int:
    """The lowest price the arbiter scores fair for terms weighing `w_minor`: fair_low + W."""
    return fair_low(t_target_minor, band) + w_minor


def format_score(ratio: Fraction) -> str:
    """A ratio written with 4 decimals, half-even: 41900/39904 → "1.0500"."""
    return format(Decimal(round(ratio * 10_000)).scaleb(-4), "f")


def score_default_v0_1(
    *,
    price_minor: int,
    currency: str,
    inclusions: Sequence[str],
    utilities: Mapping[str, Decimal],
    attested: Attested,
    band: Decimal,
) -> Score:
    """`default/v0.1`: t = p - W, ratio t_target / t, verdict from the exact ratio.

    Unscoreable causes are checked in the spec's order: currency, unattested inclusion, t ≤ 0.
    """
    width = _band(band)

    def unscoreable(cause: Cause, w: int | None = None, t: int | None = None) -> Score:
        adjustment = None if w is None else attested.t_target_minor + w
        return Score(Verdict.UNSCOREABLE, None, w, t, price_minor, adjustment, cause)

    if currency != attested.currency:
        return unscoreable(Cause.CURRENCY)
    w = inclusions_weight(inclusions, utilities, attested)
    if w is None:
        return unscoreable(Cause.UNATTESTED_INCLUSION)
    t = price_minor - w
    if t <= 0:
        return unscoreable(Cause.PRICE_NOT_ABOVE_INCLUSIONS, w, t)
    ratio = Fraction(attested.t_target_minor, t)
    # Exact comparison: 39904 against 41900 scores "1.0500" yet is above 1.05.
    if ratio > 1 + width:
        verdict = Verdict.UNFAIR_TO_MERCHANT
    elif ratio < 1 - width:
        verdict = Verdict.UNFAIR_TO_BUYER
    else:
        verdict = Verdict.FAIR
    return Score(
        verdict=verdict,
        fairness_score=format_score(ratio),
        w_minor=w,
        t_minor=t,
        price_minor=price_minor,
        suggested_adjustment_minor=attested.t_target_minor + w,
    )


PROFILES: Final[Mapping[str, Profile]] = MappingProxyType({DEFAULT_PROFILE: score_default_v0_1})


def is_known_profile(name: str) -> bool:
    return name in PROFILES


def score(
    profile: str,
    *,
    price_minor: int,
    currency: str,
    inclusions: Sequence[str],
    utilities: Mapping[str, Decimal],
    attested: Attested,
    band: Decimal,
) -> Score:
    """Score an offer under the named profile. An unknown name raises `KeyError`: the session
    should have been refused at open (`unknown_fairness_profile`)."""
    return PROFILES[profile](
        price_minor=price_minor,
        currency=currency,
        inclusions=inclusions,
        utilities=utilities,
        attested=attested,
        band=band,
    )

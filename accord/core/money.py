"""ISO 4217 money in integer minor units; exponents from `iso4217`."""

from typing import Final

import iso4217

from accord.core.jsonio import MAX_SAFE_INTEGER

_NO_MINOR_UNIT: Final = frozenset({"XAU", "XAG", "XPD", "XPT", "XDR", "XBA", "XBB", "XBC", "XBD"})


def currency_exponent(code: str) -> int | None:
    """The currency's minor-unit exponent, or None for an unknown or unit-less code."""
    if not (len(code) == 3 and code.isupper() and code.isascii()):
        return None
    try:
        currency = iso4217.Currency(code)
    except ValueError:
        return None
    exponent = currency.exponent
    if exponent is None or code in _NO_MINOR_UNIT:
        return None
    return int(exponent)


def is_currency(code: str) -> bool:
    return currency_exponent(code) is not None


def is_amount_minor(value: object) -> bool:
    """A non-negative integer (not a bool) within the interoperable range."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_SAFE_INTEGER


def format_money(amount_minor: int, currency: str) -> str:
    """`123.45 EUR`, for people."""
    if amount_minor < 0:
        raise ValueError("amounts are never negative")
    exponent = currency_exponent(currency) or 0
    if exponent == 0:
        return f"{amount_minor} {currency}"
    whole, frac = divmod(amount_minor, 10**exponent)
    return f"{whole}.{frac:0{exponent}d} {currency}"

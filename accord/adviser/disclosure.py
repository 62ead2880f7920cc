"""The disclosure plan's guard (adviser-api.md, Preparation checks and disclosure): what must never
be said, in every form a reader would recognise. The BATNA value, every minimum and every
pre-commitment threshold are never-reveal in any case; the plan's own entries are text, or a
pointer whose value is never said."""

import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from accord.adviser.pointers import PointerError, value_at
from accord.adviser.values import parse_condition, read_money, read_number
from accord.core.money import currency_exponent


def never_reveal(state: dict[str, Any]) -> frozenset[str]:
    """Every never-reveal value of the state in each readable form, lower case."""
    entries: list[str] = [state["alternatives"]["user"]["batna"]["value"] or ""]
    entries += [
        t["minimum_acceptable"]["value"] or "" for t in state["topics_targets_tradeoffs"]["topics"]
    ]
    for criterion in state["precommitment"]["acceptance_criteria"]:
        threshold = criterion["threshold"] or ""
        condition = parse_condition(threshold)
        entries.append(condition.value if condition is not None else threshold)
    plan = (state.get("x_accord") or {}).get("disclosure") or {}
    for entry in plan.get("never_reveal", []):
        entries += list(_pointed(state, entry)) if entry.startswith("/") else [entry]
    return frozenset(
        form.lower() for entry in entries if entry.strip() for form in forms(entry.strip())
    )


def forms(text: str) -> Iterator[str]:
    """A value as written, and as it might be said: money with or without its currency,
    separators or decimals; a number with or without thousands commas."""
    yield text
    money = read_money(text)
    if money is not None:
        exponent = currency_exponent(money.currency) or 0
        amount = Decimal(money.amount_minor).scaleb(-exponent)
        whole = int(amount)
        plain = [f"{whole:,}", str(whole)] if amount == whole else []
        for number in [f"{amount:,.{exponent}f}", f"{amount:.{exponent}f}", *plain]:
            yield number
            yield f"{money.currency} {number}"
        return
    if read_number(text) is not None:
        yield text.replace(",", "")


def reveals(text: str, secrets: frozenset[str]) -> bool:
    """Whether the text says a never-reveal value, standing alone (not as part of a longer
    number or word)."""
    lowered = text.lower()
    return any(
        re.search(rf"(?<![\w.,]){re.escape(secret)}(?!\w|[.,]\d)", lowered) for secret in secrets
    )


def _pointed(state: dict[str, Any], pointer: str) -> Iterator[str]:
    try:
        value = value_at(state, pointer)
    except PointerError:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        yield from (v for v in value if isinstance(v, str))


def guarded(content: str, secrets: frozenset[str], offer: str | None) -> tuple[str, int]:
    """The content without each line that says a never-reveal value outside the offer's own
    terms, and how many lines went."""
    kept, dropped = [], 0
    for line in content.splitlines():
        said = line.replace(offer, "") if offer else line
        if reveals(said, secrets):
            dropped += 1
        else:
            kept.append(line)
    return "\n".join(kept), dropped

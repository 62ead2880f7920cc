"""The guard around a language model's moves (spec/agents.md, LLM agent). It is code, not the
model: whatever a counterparty wrote and whatever the model answered, a move leaves only when
it is one the protocol offers, within the seat's limits, says none of the seat's private values,
instructions or private texts, and, for an accept, sets no condition (an agent that wants
something more counters instead).

Private values are compared as numbers, not strings: "400", "400.00", "€400", "40,000 cents"
and "four hundred" all say a floor of 400 EUR. Private texts and instructions leak when the
message holds one whole, or any run of `RUN` consecutive words of one."""

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Final

RUN: Final = 5
"""Consecutive words of a private text that, said, leak it."""
MIN_VALUE: Final = 10
"""Numbers in a private text below this ("2 kids", "3 rooms") are not taken for secrets."""
SHORT: Final = 8
"""Private texts shorter than this ("Yes", "No") are ordinary words, not a secret."""

CONDITIONS: Final = re.compile(
    r"\b(if|unless|provided|providing|as long as|so long as|on condition|conditional|"
    r"subject to|only when|only once|assuming|in exchange for|in return for|contingent|"
    r"but first|once you|as soon as you|on the understanding)\b",
    re.IGNORECASE,
)
NUMBER: Final = re.compile(r"(?<![\w.])\d{1,3}(?:[,  ’']\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?")
THOUSANDS: Final = re.compile(r"(\d+(?:[.,]\d+)?)\s*[kK]\b")
WORD: Final = re.compile(r"[\w']+")
UNITS: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES: Final = {"hundred": 100, "thousand": 1000, "k": 1000, "million": 1_000_000}
MONTHS: Final = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip


@dataclass(frozen=True)
class Secrets:
    """What the seat must never say: numbers (a limit, a reservation, in every unit they could
    be written in) and texts (its principal's chat, answers, briefs; its own instructions)."""

    numbers: frozenset[float] = frozenset()
    dates: frozenset[date] = frozenset()
    texts: tuple[str, ...] = ()

    def leaks(self, message: str) -> list[str]:
        """What of the secrets `message` says, by kind: empty when nothing."""
        found = []
        if self.numbers & set(numbers_in(message)):
            found.append("private_value")
        if self.dates & set(dates_in(message)):
            found.append("private_value")
        if any(_says(message, text) for text in self.texts):
            found.append("private_text")
        return sorted(set(found))


def secrets_of_texts(texts: Sequence[str], *, more: Sequence[str] = ()) -> Secrets:
    """A principal's private texts as secrets: the texts themselves (with `more`, such as the
    agent's instructions), and the dates and the numbers of at least `MIN_VALUE` they hold, a
    number also as a hundred times it (an amount in cents)."""
    dates: set[date] = set()
    numbers: set[float] = set()
    for text in texts:
        dates |= set(dates_in(text))
        for value in numbers_in(_without_dates(text)):
            if value >= MIN_VALUE:
                numbers |= {value, value * 100}
    return Secrets(frozenset(numbers), frozenset(dates), (*texts, *more))


def _without_dates(text: str) -> str:
    text = re.sub(r"\b\d{4}-\d{2}-\d{2}\b", " ", text)
    text = re.sub(r"\b\d{1,2}(?:st|nd|rd|th)? [A-Za-z]+,? \d{4}\b", " ", text)
    return re.sub(r"\b[A-Za-z]+ \d{1,2}(?:st|nd|rd|th)?,? \d{4}\b", " ", text)


def secrets_of_limits(schema: Mapping[str, Any], limits: Mapping[str, Any]) -> Secrets:
    """A room seat's limits as secrets: a money bound in major and minor units, a number, a
    date."""
    numbers: set[float] = set()
    dates: set[date] = set()
    for name, limit in limits.items():
        kind = schema.get(name, {}).get("type")
        for bound in (limit.get("min"), limit.get("max")) if isinstance(limit, Mapping) else ():
            if bound is None:
                continue
            if kind == "money":
                minor = int(bound["amount_minor"])
                numbers |= {float(minor), minor / 100}
            elif kind == "date":
                dates.add(date.fromisoformat(bound))
            elif isinstance(bound, int | float):
                numbers.add(float(bound))
    return Secrets(frozenset(numbers), frozenset(dates))


def numbers_in(message: str) -> list[float]:
    """Every number written in `message`, in digits ("1,250.50", "1 250,50", "400") or in
    English words ("four hundred and fifty")."""
    found = [value for token in NUMBER.findall(message) for value in _readings(token)]
    found.extend(_worded(message))
    for token in THOUSANDS.findall(message):  # "4.2k"
        found.extend(value * 1000 for value in _readings(token))
    return found


def _readings(token: str) -> list[float]:
    """A written number's possible values: "1,250" is 1250; "400,50" may be 400.50."""
    compact = re.sub(r"[  ’']", "", token)
    readings = []
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", compact):
        readings.append(float(compact.replace(",", "")))
    elif re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d+)?", compact):
        readings.append(float(compact.replace(".", "").replace(",", ".")))
    else:
        readings.append(float(compact.replace(",", ".")))
        if "," in compact:
            readings.append(float(compact.replace(",", "")))
    return readings


def _worded(message: str) -> list[float]:
    words = [w.lower() for w in WORD.findall(message.replace("-", " "))]
    found, total, current, active = [], 0, 0, False
    for word in [*words, "."]:
        if word in UNITS:
            current += UNITS[word]
            active = True
        elif word in SCALES and active:
            scale = SCALES[word]
            if scale == 100:
                current *= 100
            else:
                total += current * scale
                current = 0
        elif word == "and" and active:
            continue
        else:
            if active:
                found.append(float(total + current))
            total, current, active = 0, 0, False
    return found


def dates_in(message: str) -> list[date]:
    """ISO dates and "20 December 2026" / "December 20, 2026" written out."""
    found = []
    for y, m, d in re.findall(r"\b(\d{4})-(\d{2})-(\d{2})\b", message):
        try:
            found.append(date(int(y), int(m), int(d)))
        except ValueError:
            continue
    lowered = message.lower()
    for match in re.finditer(r"\b(\d{1,2})(?:st|nd|rd|th)? (\w+),? (\d{4})\b", lowered):
        found += _date(match.group(3), match.group(2), match.group(1))
    for match in re.finditer(r"\b(\w+) (\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b", lowered):
        found += _date(match.group(3), match.group(1), match.group(2))
    return found


def _date(year: str, month: str, day: str) -> list[date]:
    names = [m for m in MONTHS if m.startswith(month[:3])] if len(month) >= 3 else []
    try:
        return [date(int(year), MONTHS.index(names[0]) + 1, int(day))] if names else []
    except ValueError:
        return []


def _says(message: str, text: str) -> bool:
    text = text.strip()
    if len(text) < SHORT:
        return False
    said = " ".join(WORD.findall(message.casefold()))
    words = WORD.findall(text.casefold())
    if " ".join(words) in said:
        return True
    runs = (" ".join(words[i : i + RUN]) for i in range(len(words) - RUN + 1))
    return any(f" {run} " in f" {said} " for run in runs)


def conditional(message: str) -> bool:
    """Whether an accept's message sets a condition."""
    return CONDITIONS.search(message) is not None


@dataclass(frozen=True)
class Verdict:
    refusals: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.refusals


def check(
    *,
    action: str,
    allowed: Iterable[str],
    message: str,
    secrets: Secrets,
    accepts: Sequence[str] = ("accept", "approve"),
    limit: int | None = None,
    within_limits: bool = True,
) -> Verdict:
    """One move as a model proposes it: `action` among `allowed`, `within_limits` (the caller
    checks terms against the seat's limits with the protocol's own rules), `message` at most
    `limit` characters and saying no secret, and no condition on an accept."""
    refusals = []
    if action not in set(allowed):
        refusals.append("not_allowed")
    if not within_limits:
        refusals.append("outside_limits")
    if limit is not None and len(message) > limit:
        refusals.append("too_long")
    refusals += secrets.leaks(message)
    if action in accepts and conditional(message):
        refusals.append("conditional_accept")
    return Verdict(tuple(refusals))

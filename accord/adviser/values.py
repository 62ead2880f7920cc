"""How the adviser reads the strings the state keeps as values, compares them for the user, and
checks `<topic_id> <op> <value>` conditions against an offer (adviser-api.md, Values).

Every reader answers None for anything outside its form, never an exception: an unreadable value
makes a comparison unknown, and unknown is an answer the checks and deal review report."""

import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Final, Literal, NamedTuple, cast

from accord.adviser.deal import Topic
from accord.adviser.extensions import Direction, TopicKind
from accord.core.money import currency_exponent, is_amount_minor


@dataclass(frozen=True, slots=True)
class Money:
    """A money value as the adviser reads it: `CCC 1,250.00` is `Money(125000, "CCC")`."""

    amount_minor: int
    currency: str


Value = Money | Decimal | date | int
"""A read value: money, a number, a date, or an enum value as its index in `choices`, 0 the
best."""

Operator = Literal[">=", "<=", ">", "<", "="]


class Condition(NamedTuple):
    """A threshold, disqualifier or requirement written `<topic_id> <op> <value>`."""

    topic_id: str
    op: Operator
    value: str


# Digits alone, or thousands groups of exactly three after a first group of one to three that
# does not start with 0 (`0,250` and `12,50` are bad grouping, not numbers). ASCII digits only:
# `\d` would take other scripts' digits too.
_INTEGER: Final = r"(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]+)"
_MONEY: Final = re.compile(
    rf"(?P<currency>[A-Z]{{3}}) (?P<whole>{_INTEGER})(?:\.(?P<frac>[0-9]+))?"
)
_NUMBER: Final = re.compile(rf"-?{_INTEGER}(?:\.[0-9]+)?")
_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
# Topic ids follow the id form of adviser-api.md, Patches; the spaces around the operator are
# required as the spec writes them, so `price => 100` or `a == b` stay text to confirm.
_CONDITION: Final = re.compile(
    r"(?P<topic_id>[A-Za-z0-9_.:-]{1,64})\s+(?P<op>>=|<=|>|<|=)\s+(?P<value>\S(?:.*\S)?)"
)
_HOLDS: Final[Mapping[Operator, Callable[[int, int], bool]]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "=": operator.eq,
}


def read_money(text: str | None, currency: str | None = None) -> Money | None:
    """`CCC 1,250.00` or `CCC 1250`: a currency Accord knows, at most its decimals, and an amount
    in the interoperable range; with `currency`, only that currency reads."""
    match = None if text is None else _MONEY.fullmatch(text)
    if match is None:
        return None
    code = match["currency"]
    exponent = currency_exponent(code)
    if exponent is None or (currency is not None and code != currency):
        return None
    frac = match["frac"] or ""
    if len(frac) > exponent:
        return None
    whole = int(match["whole"].replace(",", ""))
    amount_minor = whole * 10**exponent + int(frac.ljust(exponent, "0") or "0")
    return Money(amount_minor, code) if is_amount_minor(amount_minor) else None


def write_money(money: Money) -> str:
    """The canonical form `CCC 1,250.00`, every decimal of the currency and none for a
    zero-decimal one; proposals and exports write money so. Raises for an amount no reader
    would give (unknown currency, negative amount): that is a bug, not a user's value."""
    exponent = currency_exponent(money.currency)
    if exponent is None or not is_amount_minor(money.amount_minor):
        raise ValueError(f"not writable money: {money!r}")
    whole, frac = divmod(money.amount_minor, 10**exponent)
    decimals = f".{frac:0{exponent}d}" if exponent else ""
    return f"{money.currency} {whole:,}{decimals}"


def read_number(text: str | None) -> Decimal | None:
    """Digits with optional thousands commas in groups of three, decimals and a leading minus;
    exact, as a Decimal, so `0.1 + 0.2` compares as written."""
    if text is None or _NUMBER.fullmatch(text) is None:
        return None
    return Decimal(text.replace(",", ""))


def read_date(text: str | None) -> date | None:
    """`YYYY-MM-DD` and a day that exists; `date.fromisoformat` alone would also take
    `20240105` and week dates."""
    if text is None or _DATE.fullmatch(text) is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def read_enum(text: str | None, choices: Sequence[str]) -> int | None:
    """The value's index in `choices`, best first, so 0 is the best; exact match only."""
    if text is None or text not in choices:
        return None
    return list(choices).index(text)


def read_value(
    text: str | None,
    kind: TopicKind,
    *,
    currency: str | None = None,
    choices: Sequence[str] = (),
) -> Value | None:
    """A value read by its kind; text has no readable form (it has no order to compare by)."""
    match kind:
        case "money":
            return read_money(text, currency)
        case "number":
            return read_number(text)
        case "date":
            return read_date(text)
        case "enum":
            return read_enum(text, choices)
        case "text":
            return None


def topic_kind(topic: Topic) -> TopicKind:
    """`x_accord.kind`, else the form of the target: an enum when `choices` hold it, else money,
    a number, a date, or text. While the target is unset the minimum's form stands in for it."""
    extension = topic.x_accord
    if extension is not None and extension.kind is not None:
        return extension.kind
    sample = topic.best_target.value or topic.minimum_acceptable.value
    if extension is not None and extension.choices and sample in extension.choices:
        return "enum"
    if read_money(sample) is not None:
        return "money"
    if read_number(sample) is not None:
        return "number"
    if read_date(sample) is not None:
        return "date"
    return "text"


def topic_currency(topic: Topic) -> str | None:
    """`x_accord.currency`, else the target's currency, else the minimum's: values in any
    other currency are unreadable on this topic. None when nothing names one."""
    extension = topic.x_accord
    if extension is not None and extension.currency is not None:
        return extension.currency
    for text in (topic.best_target.value, topic.minimum_acceptable.value):
        money = read_money(text)
        if money is not None:
            return money.currency
    return None


def read_topic_value(topic: Topic, text: str | None) -> Value | None:
    """A value read as the topic's kind, in its currency, against its choices."""
    kind = topic_kind(topic)
    extension = topic.x_accord
    choices = extension.choices if extension is not None and extension.choices else ()
    currency = topic_currency(topic) if kind == "money" else None
    return read_value(text, kind, currency=currency, choices=choices)


def compare_values(topic: Topic, a: str | None, b: str | None) -> int | None:
    """-1, 0 or 1 as `a` is below, equal to or above `b` in magnitude, whatever the direction:
    conditions and criterion ranges compare so. An enum's magnitude is its rank, the best choice
    the greatest. None when either is unreadable or two amounts differ in currency."""
    return _order(read_topic_value(topic, a), read_topic_value(topic, b))


def _order(a: Value | None, b: Value | None) -> int | None:
    if isinstance(a, Money) and isinstance(b, Money):
        if a.currency != b.currency:
            return None
        return (a.amount_minor > b.amount_minor) - (a.amount_minor < b.amount_minor)
    if isinstance(a, Decimal) and isinstance(b, Decimal):
        return (a > b) - (a < b)
    if isinstance(a, date) and isinstance(b, date):
        return (a > b) - (a < b)
    if isinstance(a, int) and isinstance(b, int):
        # enum indexes: choices are best first, so the lower index is the greater rank
        return (a < b) - (a > b)
    return None


def topic_direction(topic: Topic) -> Direction | None:
    """`x_accord.direction`, else the side of the minimum the target lies on (adviser-api.md:
    the target is better than the minimum); None when they are equal or either is unreadable.
    An enum's rank has the best choice greatest, so higher is always better there: its choices
    decide, not `direction`."""
    if topic_kind(topic) == "enum":
        return "higher_is_better"
    extension = topic.x_accord
    if extension is not None and extension.direction is not None:
        return extension.direction
    order = compare_values(topic, topic.best_target.value, topic.minimum_acceptable.value)
    if order is None or order == 0:
        return None
    return "higher_is_better" if order > 0 else "lower_is_better"


def _goodness(topic: Topic, a: str | None, b: str | None) -> int | None:
    """-1, 0 or 1 as `a` is worse than, as good as, or better than `b` for the user."""
    direction = topic_direction(topic)
    order = compare_values(topic, a, b)
    if direction is None or order is None:
        return None
    return order if direction == "higher_is_better" else -order


def at_least_as_good(topic: Topic, a: str | None, b: str | None) -> bool | None:
    """Whether `a` is at least as good as `b` for the user on this topic; None (unknown) when
    either is unreadable or the topic's direction is unknown."""
    goodness = _goodness(topic, a, b)
    return None if goodness is None else goodness >= 0


def better(topic: Topic, a: str | None, b: str | None) -> bool | None:
    """Whether `a` is strictly better than `b` for the user; None as for `at_least_as_good`."""
    goodness = _goodness(topic, a, b)
    return None if goodness is None else goodness > 0


def parse_condition(text: str) -> Condition | None:
    """`<topic_id> <op> <value>`, or None: other text is a condition to confirm. Only the form is
    checked here; a topic id that names no topic is the caller's to treat as text."""
    match = _CONDITION.fullmatch(text.strip())
    if match is None or match["topic_id"].isdigit():  # ids are never all digits
        return None
    # the pattern admits only the five operators
    return Condition(match["topic_id"], cast(Operator, match["op"]), match["value"])


def evaluate_condition(condition: Condition, topic: Topic, terms: Mapping[str, str]) -> bool | None:
    """Whether the offer's term meets the condition, comparing magnitudes (not goodness):
    `price <= USD 1,000` means the price, whatever the topic's direction. A text topic takes
    only `=`, the exact string. None (unknown) for an unset term, an unreadable value, or an
    order on text."""
    if condition.topic_id != topic.topic_id:
        raise ValueError(f"condition on {condition.topic_id!r} checked against {topic.topic_id!r}")
    term = terms.get(condition.topic_id)
    if term is None:
        return None
    if topic_kind(topic) == "text":
        return term == condition.value if condition.op == "=" else None
    order = compare_values(topic, term, condition.value)
    return None if order is None else _HOLDS[condition.op](order, 0)

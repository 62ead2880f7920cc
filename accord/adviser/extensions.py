"""Accord's `x_accord` members of the adviser state (adviser-api.md, objects): what the rules need
that the schema keeps as free text. They are the only members beyond the schema, each on the one
kind of object its row names, and an absent one reads as empty."""

from typing import Literal

from accord.adviser.enums import EvidenceStatus
from accord.adviser.wire import Wire
from accord.core.strict import Strict

TopicKind = Literal["money", "number", "date", "enum", "text"]
Direction = Literal["higher_is_better", "lower_is_better"]


class CounterpartEstimate(Strict):
    """The other side's estimated aim and walk-away point on a topic: the ZOPA check and role-play
    read them, and an estimate is only as good as its evidence."""

    target: str | None = None
    reservation: str | None = None
    evidence_status: Wire[EvidenceStatus] = EvidenceStatus.UNKNOWN


class TopicExtension(Strict):
    """How a topic's values read and compare; without `kind` the target's form decides, without
    `direction` the target is better than the minimum (adviser-api.md, Values)."""

    kind: TopicKind | None = None
    direction: Direction | None = None
    currency: str | None = None
    choices: list[str] | None = None
    term: str | None = None
    counterpart: CounterpartEstimate | None = None


class InterestExtension(Strict):
    """The topics whose terms serve an interest, for deal review's interest test."""

    topic_refs: list[str]


class CriterionExtension(Strict):
    """The range an independent criterion allows on one topic's term."""

    topic_ref: str
    low: str | None = None
    high: str | None = None


class BatnaExtension(Strict):
    """The topic the user's BATNA value compares with; without it, the only critical topic of the
    value's kind."""

    topic_ref: str


class Disclosure(Strict):
    """What to find out, what may be volunteered, and what must never be said; each entry is text
    or a pointer into the state."""

    ask: list[str]
    share: list[str]
    never_reveal: list[str]


class StateExtension(Strict):
    disclosure: Disclosure

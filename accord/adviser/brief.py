"""A room agent's brief from a case (adviser-api.md, Linked tables): Accord's own agent for a
linked seat aims at the targets and never goes past the minimums or the BATNA. Each topic mapped
to a field of the room (`x_accord.term`) becomes that field's range, weighted by priority: `to`
its target, `from` its minimum or, on the BATNA's topic, the BATNA's value when that is better
(the agent never accepts less than walking away gives)."""

from collections.abc import Mapping
from typing import Any, Final

from accord.adviser.deal import Topic
from accord.adviser.review import batna_topic
from accord.adviser.state import NegotiationState
from accord.adviser.values import at_least_as_good, read_date, read_money, read_number

WEIGHTS: Final = {"critical": 8.0, "high": 4.0, "medium": 2.0, "low": 1.0}


class CaseBriefError(ValueError):
    """A mapped topic the agent cannot take its limits from; the message names it."""


def walk_away(state: NegotiationState, topic: Topic) -> str | None:
    """The worst value an agent may agree to on a topic: its minimum, or on the BATNA's topic
    the BATNA's value when that is better."""
    worst = topic.minimum_acceptable.value
    batna = state.alternatives.user.batna
    on_batna = batna_topic(state.topics_targets_tradeoffs.topics, batna)
    if on_batna is None or on_batna.topic_id != topic.topic_id or batna.value is None:
        return worst
    return batna.value if worst is None or at_least_as_good(topic, batna.value, worst) else worst


def held_back(deal_review: Mapping[str, Any]) -> str | None:
    """Why an agent must not approve or accept the terms this review is of: it says reject and
    the person has not overridden it; None when it may."""
    if deal_review["recommendation"] != "reject" or deal_review["override"]["occurred"]:
        return None
    return f"The case's deal review says reject: {deal_review['reviewer_rationale']}"


def room_fields(state: NegotiationState, schema: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The brief's `fields` the case gives, by the room's field names."""
    fields: dict[str, dict[str, Any]] = {}
    for topic in state.topics_targets_tradeoffs.topics:
        term = topic.x_accord.term if topic.x_accord is not None else None
        if term is None or term not in schema:
            continue
        kind = schema[term].get("type")
        if kind not in ("money", "int", "date"):
            continue
        best, worst = topic.best_target.value, walk_away(state, topic)
        if best is None or worst is None:
            missing = "target" if best is None else "minimum (or BATNA)"
            raise CaseBriefError(f"topic {topic.topic_id} maps {term} but has no {missing}")
        fields[term] = {
            "weight": WEIGHTS[topic.priority],
            "from": _room_value(topic, kind, schema[term], worst),
            "to": _room_value(topic, kind, schema[term], best),
        }
    return fields


def _room_value(topic: Topic, kind: str, spec: Mapping[str, Any], text: str) -> int | str:
    """A case's value as the room writes it: money in minor units, an int, an ISO date."""
    if kind == "money":
        money = read_money(text, spec.get("currency"))
        if money is not None:
            return money.amount_minor
    elif kind == "int":
        number = read_number(text)
        if number is not None and number == number.to_integral_value():
            return int(number)
    elif kind == "date":
        day = read_date(text)
        if day is not None:
            return day.isoformat()
    raise CaseBriefError(
        f"topic {topic.topic_id}: {text!r} is not a {kind}"
        + (f" in {spec['currency']}" if kind == "money" and spec.get("currency") else "")
    )


def session_ceiling(state: NegotiationState) -> int:
    """A buyer's ceiling in an arbitrated session from the case: the topic mapped to its `price`,
    at its minimum (the most the person pays), or at the BATNA's value when that is better."""
    topics = state.topics_targets_tradeoffs.topics
    mapped = [t for t in topics if t.x_accord is not None and t.x_accord.term == "price"]
    if not mapped:
        raise CaseBriefError("no topic maps the session's price: set its x_accord.term to price")
    topic = mapped[0]
    worst = walk_away(state, topic)
    if worst is None:
        raise CaseBriefError(f"topic {topic.topic_id} maps price but has no minimum (or BATNA)")
    money = read_money(worst)
    if money is None:
        raise CaseBriefError(f"topic {topic.topic_id}: {worst!r} is not money")
    return money.amount_minor

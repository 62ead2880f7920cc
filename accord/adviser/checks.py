"""The preparation checks (adviser-api.md, Preparation checks and disclosure): computed from the
current state at each read, never stored, so they can never disagree with it."""

from typing import Any

from accord.adviser import review
from accord.adviser.deal import Topic
from accord.adviser.state import NegotiationState
from accord.adviser.values import at_least_as_good

MATERIAL = ("critical", "high")


def checks(state: NegotiationState) -> list[dict[str, Any]]:
    topics = state.topics_targets_tradeoffs.topics
    found = [zopa(topic) for topic in topics if topic.priority in MATERIAL]
    batna = minimum_vs_batna(state)
    return found if batna is None else [*found, batna]


def minimum_vs_batna(state: NegotiationState) -> dict[str, Any] | None:
    """The check for the BATNA's topic; None when no topic is the BATNA's."""
    topic = review.batna_topic(state.topics_targets_tradeoffs.topics, state.alternatives.user.batna)
    return None if topic is None else _minimum_vs_batna(topic, state.alternatives.user.batna.value)


def zopa(topic: Topic) -> dict[str, Any]:
    """`exists` when their walk-away point is at least as good for the user as the minimum."""
    minimum = topic.minimum_acceptable.value
    estimate = topic.x_accord.counterpart if topic.x_accord else None
    reservation = estimate.reservation if estimate else None
    verdict = at_least_as_good(topic, reservation, minimum)
    return {
        "check": "zopa",
        "topic_id": topic.topic_id,
        "verdict": "unknown" if verdict is None else ("exists" if verdict else "none"),
        "zone": [minimum, reservation] if verdict else None,
    }


def _minimum_vs_batna(topic: Topic, batna: str | None) -> dict[str, Any]:
    """`below_batna` when a deal at the minimum would leave the user worse off than walking
    away."""
    verdict = at_least_as_good(topic, topic.minimum_acceptable.value, batna)
    return {
        "check": "minimum_vs_batna",
        "topic_id": topic.topic_id,
        "verdict": "unknown" if verdict is None else ("ok" if verdict else "below_batna"),
    }

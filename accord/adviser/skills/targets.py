"""F04, targets and trades (adviser-api.md, Skills): the packages to open with and to settle at
least on, trades of what matters little for what matters most, and the next move."""

from collections.abc import Sequence

from accord.adviser.checks import zopa
from accord.adviser.deal import Topic
from accord.adviser.patches import Patch
from accord.adviser.skills.common import by_priority, ids, material, patch, set_text, topic_question
from accord.adviser.skills.output import Output
from accord.adviser.state import NegotiationState
from accord.adviser.values import better

MAX_TRADES = 6
NEXT_MOVE = "/strategy/recommended_next_move"


def package(values: Sequence[tuple[Topic, str | None]]) -> str | None:
    """`topic_id: value; …` over the topics that have a value: the form an offer's terms take."""
    parts = [f"{topic.topic_id}: {value}" for topic, value in values if value is not None]
    return "; ".join(parts) or None


def run(state: NegotiationState) -> Output:
    ttt = state.topics_targets_tradeoffs
    topics = by_priority(ttt.topics)
    warnings = []
    questions = []
    for topic in topics:
        target, minimum = topic.best_target.value, topic.minimum_acceptable.value
        if better(topic, minimum, target):
            warnings.append(
                (
                    f"W-target-{topic.topic_id}",
                    f"The target for {topic.topic} ({target}) is worse for you than its minimum "
                    f"({minimum}).",
                    "high",
                )
            )
        if topic.priority == "critical" and minimum is None:
            questions.append(
                topic_question(
                    f"Q-minimum-{topic.topic_id}",
                    f"What is the least you would accept on {topic.topic}?",
                    topic,
                    f"/topics_targets_tradeoffs/topics/{topic.topic_id}/minimum_acceptable/value",
                    asked_by="F04",
                    impact="Below it you walk away; without it no offer can be judged.",
                    blocking=True,
                )
            )
    for check in (zopa(t) for t in material(topics)):
        if check["verdict"] == "none":
            warnings.append(
                (
                    f"W-zopa-{check['topic_id']}",
                    f"On {check['topic_id']} their estimated limit is worse for you than your "
                    "minimum: there may be no deal there without a trade.",
                    "high",
                )
            )

    proposals = state.proposals
    opening = package([(t, t.best_target.value) for t in topics])
    least = package([(t, t.minimum_acceptable.value) for t in topics])
    patches: list[Patch] = []
    if opening is not None:
        patches += set_text(
            "F04-opening",
            "/proposals/opening_offer",
            proposals.opening_offer,
            opening,
            "the targets of the topics",
        )
    if least is not None:
        patches += set_text(
            "F04-least",
            "/proposals/least_acceptable_package",
            proposals.least_acceptable_package,
            least,
            "the minimums of the topics",
        )

    trades = _trades(topics)
    known_trades = ids(ttt.cross_topic_tradeoffs, "trade_id")
    known_options = ids(state.options.in_agreement, "option_id")
    for give, get in trades:
        trade_id = f"trade-{give.topic_id}-{get.topic_id}"[:64]
        why = f"{give.topic_id} is low for you, {get.topic_id} is {get.priority}"
        if trade_id not in known_trades:
            patches.append(
                patch(
                    f"F04-{trade_id}",
                    "ADD",
                    "/topics_targets_tradeoffs/cross_topic_tradeoffs/-",
                    {
                        "trade_id": trade_id,
                        "give": f"{give.topic_id}: {give.minimum_acceptable.value}",
                        "receive": f"{get.topic_id}: {get.best_target.value}",
                        "rationale": why,
                        "status": "proposed",
                    },
                    why,
                )
            )
        option_id = f"option-{give.topic_id}-{get.topic_id}"[:64]
        if option_id not in known_options:
            patches.append(
                patch(
                    f"F04-{option_id}",
                    "ADD",
                    "/options/in_agreement/-",
                    {
                        "option_id": option_id,
                        "option": f"{give.topic} at {give.minimum_acceptable.value} with "
                        f"{get.topic} at {get.best_target.value}",
                        "topics_affected": [give.topic_id, get.topic_id],
                    },
                    why,
                )
            )
    if trades:
        given = {give.topic_id for give, _ in trades}
        creative = package(
            [
                (t, t.minimum_acceptable.value if t.topic_id in given else t.best_target.value)
                for t in topics
            ]
        )
        if creative is not None:
            patches += set_text(
                "F04-creative",
                "/proposals/creative_package",
                proposals.creative_package,
                creative,
                "the opening package with the low topics traded at their minimums",
            )

    move = _next_move(state, topics)
    patches += set_text(
        "F04-next-move",
        NEXT_MOVE,
        state.strategy.recommended_next_move,
        move,
        "the first step of the preparation not yet done",
    )
    return Output(
        f"Next: {move}",
        "medium",
        patches,
        questions,
        warnings,
        material=(NEXT_MOVE,),
    )


def _trades(topics: Sequence[Topic]) -> list[tuple[Topic, Topic]]:
    """Give a low topic at its minimum for a critical or high one at its target."""
    lows = [t for t in topics if t.priority == "low" and t.minimum_acceptable.value is not None]
    highs = [t for t in material(topics) if t.best_target.value is not None]
    return [(low, high) for high in highs for low in lows][:MAX_TRADES]


def _next_move(state: NegotiationState, topics: Sequence[Topic]) -> str:
    batna = state.alternatives.user.batna
    if not (batna.description or batna.value):
        return "Find your BATNA"
    important = material(topics)
    for topic in important:
        if topic.minimum_acceptable.value is None:
            return f"Set a minimum for {topic.topic}"
    for topic in important:
        estimate = topic.x_accord.counterpart if topic.x_accord else None
        if estimate is None or estimate.reservation is None:
            return f"Estimate their limit on {topic.topic}"
    return "Open with the opening package"

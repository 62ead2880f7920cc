"""F02, positions and interests (adviser-api.md, Skills): behind each position, the interest it
serves; where both sides care about one topic, a common interest to test; and what to find out
about the interests they only seem to have."""

import re

from accord.adviser.questions import Question
from accord.adviser.skills.common import MATERIAL, ids, patch
from accord.adviser.skills.output import Output
from accord.adviser.state import NegotiationState

POSITION_LIKE = re.compile(
    r"\b[A-Z]{3} ?[0-9]|[0-9][0-9,]*(\.[0-9]+)?\s*(%|k\b)|\b[0-9]{4}-[0-9]{2}-[0-9]{2}\b"
    r"|\bat (least|most)\b|\bno (less|more) than\b|\bminimum\b|\bmaximum\b",
    re.IGNORECASE,
)
"""An amount, a date or a bound: what a position says, not why it matters."""
RESEARCH = "/facts_and_research/research_questions/-"


def run(state: NegotiationState) -> Output:
    interests = state.interests
    topics = {t.topic_id: t for t in state.topics_targets_tradeoffs.topics}
    mapped: set[str] = set()
    for interest in interests.user:
        mapped |= set(interest.x_accord.topic_refs if interest.x_accord else ())

    questions = []
    for position in state.positions.user_positions:
        ref = position.topic_ref
        if ref is None or ref in mapped:
            continue
        name = topics[ref].topic if ref in topics else ref
        questions.append(
            Question(
                f"Q-why-{ref}",
                f"Why does {name} matter to you (you said: {position.position})?",
                2,
                "An interest opens other ways to satisfy it than the position does.",
                False,
                "text",
                "/interests/user/-",
                "F02",
            )
        )
        mapped.add(ref)

    warnings = [
        (
            f"W-position-{i.interest_id}",
            f"Interest {i.interest_id} reads like a position (an amount, a date or a bound): "
            "say why it matters rather than what you ask for.",
            "medium",
        )
        for i in [*interests.user, *interests.counterpart]
        if POSITION_LIKE.search(i.interest)
    ]

    patches = []
    common_ids = ids(interests.common, "interest_id")
    for topic_id, topic in topics.items():
        ours = [i for i in interests.user if i.x_accord and topic_id in i.x_accord.topic_refs]
        theirs = [
            i for i in interests.counterpart if i.x_accord and topic_id in i.x_accord.topic_refs
        ]
        common_id = f"common-{topic_id}"
        if not ours or not theirs or common_id in common_ids:
            continue
        patches.append(
            patch(
                f"F02-{common_id}",
                "ADD",
                "/interests/common/-",
                {
                    "interest_id": common_id,
                    "interest": f"Both sides care about {topic.topic}: "
                    f"{ours[0].interest} / {theirs[0].interest}",
                    "specificity_test": f"Does a term on {topic.topic} serve both?",
                    "evidence_status": "HYPOTHESIS",
                    "basis": f"{ours[0].interest_id} and {theirs[0].interest_id} map {topic_id}",
                    "x_accord": {"topic_refs": [topic_id]},
                },
                f"user interest {ours[0].interest_id} and counterpart interest "
                f"{theirs[0].interest_id} both map topic {topic_id}",
            )
        )

    research = ids(state.facts_and_research.research_questions, "research_id")
    for interest in interests.counterpart:
        research_id = f"rq-{interest.interest_id}"
        if interest.priority not in MATERIAL or interest.evidence_status != "HYPOTHESIS":
            continue
        if research_id in research:
            continue
        patches.append(
            patch(
                f"F02-{research_id}",
                "ADD",
                RESEARCH,
                {
                    "research_id": research_id,
                    "question": f"Do they really care about this: {interest.interest}?",
                    "why_it_matters": f"{interest.interest_id} is a {interest.priority} "
                    "interest of theirs, only a hypothesis so far",
                    "expected_decision_impact": "What they will trade for, and what they cannot "
                    "give up",
                },
                f"counterpart interest {interest.interest_id} is {interest.priority} and "
                "unconfirmed",
            )
        )
    unmapped = len(questions)
    conclusion = (
        f"{unmapped} position{'s' if unmapped != 1 else ''} without an interest behind it"
        if unmapped
        else "Every position you took has an interest behind it"
    )
    return Output(conclusion, "medium", patches, questions, warnings)

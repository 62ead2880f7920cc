"""Why each test of the last deal review came out as it did, in a sentence for the person: the
rule of adviser-api.md's Deal review table that gave the outcome, naming the topics it read.
Computed from the state at each read, as the checks are, so nothing beyond the schema is stored;
a condition to confirm is in the review's own `conditions`."""

from collections.abc import Mapping, Sequence
from typing import Final

from accord.adviser.review import ABOUT, MATERIAL, TESTS, batna_topic
from accord.adviser.state import NegotiationState

WHY: Final[Mapping[str, Mapping[str, str]]] = {
    "interest_test": {
        "pass": "The terms serving your critical and high interests (on {served}) meet your "
        "minimums.",
        "fail": "A term serving one of your critical or high interests (on {served}) is worse "
        "than your minimum.",
        "unknown": "A critical or high interest names no topic, or a term it needs is unset or "
        "unreadable.",
        "not_run": "You have no critical or high interest on record.",
    },
    "batna_test": {
        "pass": "The offer's {batna} is at least as good as your BATNA.",
        "fail": "The offer's {batna} is worse than your BATNA: walking away serves you better.",
        "unknown": "Your BATNA cannot be compared: it names no topic, its value is unreadable, "
        "or the offer leaves {batna} unset.",
    },
    "independent_criteria_test": {
        "pass": "Every term an independent criterion covers lies within its range.",
        "fail": "A term lies outside the range an independent criterion allows.",
        "unknown": "A term an independent criterion covers is unset or unreadable.",
        "conditional": "An independent criterion gives no range to check: it is yours to "
        "confirm (below).",
        "not_run": "No independent criterion is tied to a topic.",
    },
    "hidden_timebomb_test": {
        "pass": "Every critical and high topic is settled, nothing on record contradicts, no key "
        "unknown is open, and the offer has no conditions.",
        "fail": "The offer leaves one of your critical or high topics ({priority}) unset.",
        "unknown": "A contradiction is open or a key unknown is unresolved.",
        "conditional": "The offer is subject to conditions (below).",
    },
    "priority_topic_test": {
        "pass": "Every critical and high topic ({priority}) meets its minimum.",
        "fail": "One of your critical or high topics ({priority}) is worse than its minimum.",
        "unknown": "A critical or high topic has no minimum, or its term is unset or unreadable.",
    },
    "relationship_test": {
        "pass": "Every relationship requirement holds.",
        "fail": "A relationship requirement does not hold.",
        "unknown": "A relationship requirement cannot be checked: a term it reads is unset or "
        "unreadable.",
        "conditional": "A relationship requirement is yours to confirm (below).",
        "not_run": "You set no relationship requirement.",
    },
    "implementation_test": {
        "pass": "Every implementation limit holds, and their authority to agree is established.",
        "fail": "An implementation limit does not hold.",
        "unknown": "Their authority to agree is unknown, or a limit cannot be checked.",
        "conditional": "Their authority to agree is only a hypothesis, or a limit is yours to "
        "confirm (below).",
    },
    "precommitment_test": {
        "pass": "The offer meets every acceptance criterion and fairness requirement you "
        "committed to, and no disqualifier applies.",
        "fail": "The offer breaks what you committed to beforehand: a criterion or requirement "
        "fails, or a disqualifier applies.",
        "unknown": "A criterion you committed to cannot be checked: a term it reads is unset or "
        "unreadable.",
        "conditional": "A criterion you committed to is yours to confirm (below).",
        "not_run": "You made no pre-commitment before the offer.",
    },
}
"""Per test and outcome; an outcome a test cannot give has no sentence."""


def reasons(state: NegotiationState) -> dict[str, str]:
    """Each test's outcome in the last review, with its reason."""
    review = state.deal_review.model_dump(mode="json")
    topics = state.topics_targets_tradeoffs.topics
    batna = batna_topic(topics, state.alternatives.user.batna)
    by_id = {t.topic_id: t.topic for t in topics}
    served = [
        by_id.get(ref, ref)
        for interest in state.interests.user
        if interest.priority in MATERIAL and interest.x_accord is not None
        for ref in interest.x_accord.topic_refs
    ]
    names = {
        "priority": _listed([t.topic for t in topics if t.priority in MATERIAL]),
        "served": _listed(list(dict.fromkeys(served))),
        "batna": batna.topic if batna is not None else "term",
    }
    said = {}
    for test in TESTS:
        outcome = str(review[test])
        sentence = WHY[test].get(outcome)
        said[test] = (
            sentence.format(**names)
            if sentence is not None
            else f"Checked against {ABOUT[test]}: {outcome.replace('_', ' ')}."
        )
    return said


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "none on record"

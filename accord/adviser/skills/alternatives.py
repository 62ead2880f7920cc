"""F03, alternatives (adviser-api.md, Skills): what the user will do without a deal, kept apart
from what they hope for, and whether the minimums they set are worth more than walking away."""

import re
from dataclasses import replace

from accord.adviser.checks import minimum_vs_batna
from accord.adviser.intake import BATNA_QUESTION
from accord.adviser.questions import Question
from accord.adviser.skills.common import ids, patch
from accord.adviser.skills.output import Output
from accord.adviser.state import NegotiationState

HOPE = re.compile(r"\b(might|maybe|hope|hopefully|could)\b", re.IGNORECASE)
RESEARCH = "/facts_and_research/research_questions/-"


def run(state: NegotiationState) -> Output:
    alternatives = state.alternatives
    batna = alternatives.user.batna
    questions: list[Question] = []
    warnings: list[tuple[str, str, str]] = []
    patches = []
    has_batna = bool(batna.description or batna.value)
    if not has_batna:
        questions.append(replace(BATNA_QUESTION, asked_by="F03"))
    if alternatives.user.watna.description is None:
        questions.append(
            Question(
                "Q-watna",
                "What is the worst that could realistically happen without a deal?",
                2,
                "Shows how much risk walking away carries.",
                False,
                "text",
                "/alternatives/user/watna/description",
                "F03",
            )
        )
    if alternatives.counterpart.batna.description is None:
        questions.append(
            Question(
                "Q-their-batna",
                "What will they do if you do not agree?",
                2,
                "Their alternative sets how far they can be moved.",
                False,
                "text",
                "/alternatives/counterpart/batna/description",
                "F03",
            )
        )
    if has_batna and not alternatives.user.improvements:
        questions.append(
            Question(
                "Q-improve-batna",
                "What could you do before the negotiation to improve your alternative?",
                3,
                "A better alternative is the surest way to a better deal.",
                False,
                "text",
                "/alternatives/user/improvements/-",
                "F03",
            )
        )
    if batna.description and HOPE.search(batna.description):
        warnings.append(
            (
                "W-batna-hope",
                "Your BATNA reads as a hope; an alternative you are not sure of belongs in "
                "/alternatives/user/notional_batna, and decisions should not rest on it.",
                "high",
            )
        )
    check = minimum_vs_batna(state)
    if check is not None and check["verdict"] == "below_batna":
        warnings.append(
            (
                "W-minimum-below-batna",
                f"A deal at your minimum on {check['topic_id']} would leave you worse off than "
                "your BATNA: raise the minimum to at least the BATNA.",
                "critical",
            )
        )
    their = alternatives.counterpart.batna
    research = ids(state.facts_and_research.research_questions, "research_id")
    unproven = their.evidence_status in ("UNKNOWN", "HYPOTHESIS")
    if their.description and unproven and "rq-their-batna" not in research:
        patches.append(
            patch(
                "F03-rq-their-batna",
                "ADD",
                RESEARCH,
                {
                    "research_id": "rq-their-batna",
                    "question": f"Is their alternative really this: {their.description}?",
                    "why_it_matters": "Their alternative is estimated, not known",
                    "expected_decision_impact": "How much room they have, and how hard to push",
                },
                "the counterpart's BATNA is not backed by evidence",
            )
        )
    conclusion = (
        "Your BATNA is set"
        + (" and above your minimum" if check and check["verdict"] == "ok" else "")
        if has_batna
        else "You have no BATNA yet"
    )
    return Output(conclusion, "medium" if has_batna else "low", patches, questions, warnings)

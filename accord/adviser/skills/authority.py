"""F05, stakeholders and authority (adviser-api.md, Skills): who must say yes on their side, how
sure that is, and who could block the deal from behind the table."""

from accord.adviser.questions import Question
from accord.adviser.skills.common import ids, patch
from accord.adviser.skills.output import Output
from accord.adviser.state import NegotiationState

AUTHORITY = "/parties/counterpart/authority_status"


def run(state: NegotiationState) -> Output:
    authority = state.parties.counterpart.authority_status
    questions = []
    patches = []
    if authority.value is None:
        questions.append(
            Question(
                "Q-authority",
                "Who must approve on their side?",
                1,
                "An agreement with someone who cannot approve it is no agreement.",
                False,
                "text",
                f"{AUTHORITY}/value",
                "F05",
            )
        )
    elif authority.evidence_status == "UNKNOWN":
        patches.append(
            patch(
                "F05-authority-hypothesis",
                "UPDATE_WITH_EVIDENCE",
                f"{AUTHORITY}/evidence_status",
                "HYPOTHESIS",
                "who approves on their side is stated but not yet backed by evidence",
            )
        )
    warnings = []
    research = ids(state.facts_and_research.research_questions, "research_id")
    blockers = [
        s for s in state.stakeholders if s.stance == "resistant" and s.practical_influence == "high"
    ]
    for stakeholder in blockers:
        sid = stakeholder.stakeholder_id
        warnings.append(
            (
                f"W-resistant-{sid}",
                f"{stakeholder.person_or_role} is resistant and has high influence: they can "
                "block a deal from behind the table.",
                "high",
            )
        )
        research_id = f"rq-{sid}"[:64]
        if research_id not in research:
            patches.append(
                patch(
                    f"F05-{research_id}",
                    "ADD",
                    "/facts_and_research/research_questions/-",
                    {
                        "research_id": research_id,
                        "question": f"What does {stakeholder.person_or_role} need to support "
                        "the deal, or at least not block it?",
                        "why_it_matters": "A resistant stakeholder of high influence",
                        "expected_decision_impact": "Whom to engage, and what to offer them",
                    },
                    f"stakeholder {sid} is resistant with high influence",
                )
            )
    if authority.value is None:
        conclusion = "Who approves on their side is not known yet"
    else:
        conclusion = f"Their approval: {authority.value} ({authority.evidence_status})"
    if blockers:
        conclusion += f"; {len(blockers)} resistant stakeholder(s) of high influence"
    return Output(conclusion, "medium", patches, questions, warnings)

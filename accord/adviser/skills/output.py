"""What a built-in skill computes, and how it becomes its SKILL_RESPONSE: at most three questions
not asked before, and no conclusion while a blocking question of the run is open
(adviser-api.md, Questions and Skills)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from accord.adviser.patches import Patch
from accord.adviser.questions import Question
from accord.adviser.skills.response import (
    MAX_QUESTIONS,
    AskedQuestion,
    Deliverable,
    Finding,
    MaterialCandidate,
    Recommendation,
    SkillResponse,
    SkillWarning,
    Summary,
)

SILENCED = ("strategy", "deal_review")
"""What a skill with a blocking open question may not write: it gives no conclusion."""


@dataclass(frozen=True, slots=True)
class Output:
    conclusion: str
    confidence: str = "medium"
    patches: Sequence[Patch] = ()
    questions: Sequence[Question] = ()
    warnings: Sequence[tuple[str, str, str]] = ()
    """(warning_id, warning, severity)."""
    findings: Sequence[Finding] = ()
    recommendations: Sequence[Recommendation] = ()
    deliverable: Deliverable | None = None
    material: Sequence[str] = field(default_factory=tuple)
    """The material pointers the run means to move, for `material_change_candidate`."""


def waiting_on(
    questions: Sequence[AskedQuestion], known: Mapping[str, Question]
) -> AskedQuestion | None:
    """The run's first blocking question still open: asked now, or asked before and unanswered."""
    return next(
        (
            q
            for q in questions
            if q.blocking and (q.question_id not in known or known[q.question_id].status == "open")
        ),
        None,
    )


def respond(
    skill_id: str,
    request_id: str,
    based_on: int,
    output: Output,
    known: Mapping[str, Question],
) -> SkillResponse:
    """The SKILL_RESPONSE of a built-in's run; `known` are the case's questions (any status: a
    question is asked once)."""
    asked = [AskedQuestion.of(q) for q in output.questions]
    blocker = waiting_on(asked, known)
    new = [q for q in asked if q.question_id not in known][:MAX_QUESTIONS]
    patches = list(output.patches)
    recommendations = list(output.recommendations)
    summary = Summary(conclusion=output.conclusion, confidence=output.confidence)  # type: ignore[arg-type]
    if blocker is not None:
        summary = Summary(
            conclusion=f"Waiting for an answer to {blocker.question_id}: {blocker.question}",
            confidence="unknown",
        )
        recommendations = []
        patches = [p for p in patches if not _silenced(p.path)]
    written = {p.path for p in patches}
    material = [m for m in output.material if m in written]
    return SkillResponse(
        skill_id=skill_id,
        request_id=request_id,
        based_on_state_version=based_on,
        summary=summary,
        findings=list(output.findings),
        recommendations=recommendations,
        proposed_state_patch=patches,
        questions=new,
        warnings=[
            SkillWarning(warning_id=i, warning=w, severity=s)  # type: ignore[arg-type]
            for i, w, s in output.warnings
        ],
        deliverable=output.deliverable,
        material_change_candidate=MaterialCandidate(
            triggered=bool(material),
            fields=material,
            explanation="; ".join(f"moves {m}" for m in material) or None,
        ),
    )


def unheeded_block(response: SkillResponse, known: Mapping[str, Question]) -> str | None:
    """Why a registered skill's response breaks the blocking rule, or None."""
    blocker = waiting_on(response.questions, known)
    if blocker is None:
        return None
    concludes = (
        response.summary.confidence != "unknown"
        or response.recommendations
        or any(_silenced(p.path) for p in response.proposed_state_patch)
    )
    if not concludes:
        return None
    return (
        f"{blocker.question_id} is blocking and open: confidence unknown, no recommendation, "
        "no patch to /strategy or /deal_review"
    )


def _silenced(path: str) -> bool:
    return path.split("/")[1:2] in ([s] for s in SILENCED)

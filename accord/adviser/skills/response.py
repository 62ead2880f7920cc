"""The skill contract's SKILL_RESPONSE (adviser-skill-response.md): what every skill answers, a
built-in as much as a registered one, so the orchestrator takes both through one door. A
question carries `kind` and `path` too (adviser-api.md, Questions): its answer becomes the user's
own patch there."""

from typing import Annotated, Literal, Self

from pydantic import Field, StringConstraints, model_validator

from accord.adviser.enums import EvidenceStatus, PriorityRank
from accord.adviser.patches import Patch
from accord.adviser.pointers import ID_FORM
from accord.adviser.questions import Kind, Question
from accord.adviser.wire import Wire
from accord.core.strict import Strict

MAX_ITEMS = 50
MAX_QUESTIONS = 3
"""A run adds at most this many questions."""
Id = Annotated[str, StringConstraints(pattern=f"^{ID_FORM.pattern}$")]
Text = Annotated[str, StringConstraints(min_length=1, max_length=4000)]
Level = Literal["low", "medium", "high", "critical"]


class Summary(Strict):
    conclusion: Text
    confidence: Literal["low", "medium", "high", "unknown"]


class Finding(Strict):
    finding_id: Id
    finding: Text
    importance: Level
    research_provenance: Literal["FREEMAN", "EXTERNAL", "SYNTHESIS", "DESIGN"] = "DESIGN"
    research_refs: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    evidence_status: Wire[EvidenceStatus] | None = None
    evidence_refs: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)


class Recommendation(Strict):
    recommendation_id: Id
    recommendation: Text
    rationale: Text
    priority: Level


class AskedQuestion(Strict):
    """A question as a skill asks it; Accord keeps it on the case with its status."""

    question_id: Id
    question: Text
    priority: PriorityRank
    decision_impact: Text
    blocking: bool
    kind: Kind
    path: Annotated[str, StringConstraints(pattern=r"^/", max_length=1000)]
    choices: list[Annotated[str, StringConstraints(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=MAX_ITEMS
    )
    currency: Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")] | None = None

    @model_validator(mode="after")
    def _kinded(self) -> Self:
        if self.kind == "enum" and not self.choices:
            raise ValueError("an enum question lists its choices")
        if self.kind != "enum" and self.choices:
            raise ValueError("only an enum question has choices")
        if self.kind != "money" and self.currency is not None:
            raise ValueError("only a money question has a currency")
        return self

    def kept(self, skill_id: str) -> Question:
        return Question(
            self.question_id,
            self.question,
            int(self.priority),
            self.decision_impact,
            self.blocking,
            self.kind,
            self.path,
            skill_id,
            tuple(self.choices),
            self.currency,
        )

    @classmethod
    def of(cls, question: Question) -> "AskedQuestion":
        return cls(
            question_id=question.question_id,
            question=question.question,
            priority=question.priority,  # type: ignore[arg-type]
            decision_impact=question.decision_impact,
            blocking=question.blocking,
            kind=question.kind,
            path=question.path,
            choices=list(question.choices),
            currency=question.currency,
        )


class SkillWarning(Strict):
    warning_id: Id
    warning: Text
    severity: Level


class Conflict(Strict):
    conflict_id: Id
    field_or_proposition: Text
    current_state: Text
    specialist_view: Text
    reason: Text


class Deliverable(Strict):
    kind: Literal["draft", "talking_points", "agenda", "roleplay", "other"]
    content: Annotated[str, StringConstraints(min_length=1, max_length=20000)]


class MaterialCandidate(Strict):
    triggered: bool = False
    fields: list[str] = Field(default_factory=list, max_length=MAX_ITEMS)
    explanation: str | None = None


class SkillResponse(Strict):
    skill_id: Annotated[str, StringConstraints(min_length=1, max_length=64)]
    request_id: Id
    based_on_state_version: int = Field(ge=1)
    summary: Summary
    findings: list[Finding] = Field(default_factory=list, max_length=MAX_ITEMS)
    recommendations: list[Recommendation] = Field(default_factory=list, max_length=MAX_ITEMS)
    proposed_state_patch: list[Patch] = Field(default_factory=list, max_length=100)
    questions: list[AskedQuestion] = Field(default_factory=list, max_length=MAX_QUESTIONS)
    warnings: list[SkillWarning] = Field(default_factory=list, max_length=MAX_ITEMS)
    conflicts_with_state: list[Conflict] = Field(default_factory=list, max_length=MAX_ITEMS)
    deliverable: Deliverable | None = None
    material_change_candidate: MaterialCandidate = MaterialCandidate()

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        for name, ids in (
            ("findings", [f.finding_id for f in self.findings]),
            ("proposed_state_patch", [p.patch_id for p in self.proposed_state_patch]),
            ("questions", [q.question_id for q in self.questions]),
        ):
            if len(set(ids)) < len(ids):
                raise ValueError(f"{name}: each id once")
        return self

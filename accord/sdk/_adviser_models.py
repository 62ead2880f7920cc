"""What the server answers about a principal's adviser cases (spec/adviser-api.md), as frozen
models read like every other result: open to new members, each keeping its JSON. A case's
`state` stays the JSON document it is (the state's schema is the adviser's, nested deep)."""

from typing import Any

from accord.sdk._models import Model


class CaseLine(Model):
    """One case in the list: where it stands and how many material changes wait to be seen."""

    case_id: str
    title: str
    state_version: int
    lifecycle_stage: str
    status: str
    updated_at: str
    unseen_material_changes: int


class CaseList(Model):
    """The principal's cases, last updated first."""

    cases: list[CaseLine]


class CaseLink(Model):
    """A seat the case follows: the table and the seat, never the credential."""

    link_id: str
    protocol: str
    negotiation_id: str
    seat: str


class Case(Model):
    """A case as it stands: its state, what waits for the person (open questions, unseen
    material changes, held patches), its links and the preparation checks."""

    case_id: str
    title: str
    description: str | None
    state_version: int
    state: dict[str, Any]
    questions: list[dict[str, Any]]
    material_changes: list[dict[str, Any]]
    held: list[dict[str, Any]]
    links: list[CaseLink]
    checks: list[dict[str, Any]]
    created_at: str
    updated_at: str


class CaseVersion(Model):
    """A case as it was at one version."""

    case_id: str
    state_version: int
    state: dict[str, Any]


class CaseHistory(Model):
    """One event per version, oldest first."""

    events: list[dict[str, Any]]


class Brief(Model):
    """The one-page brief of a version, in Markdown."""

    markdown: str


class Result(Model):
    """What a write did: each patch applied, refused (with its code), held or warned about,
    the version after, and the material change it made, if any."""

    applied: list[dict[str, Any]]
    refused: list[dict[str, Any]]
    held: list[dict[str, Any]]
    warnings: list[dict[str, Any]]
    state_version: int
    material_change: dict[str, Any] | None


class RunResult(Result):
    """A skill run: its result, its SKILL_RESPONSE, and F08's new review when it reviewed."""

    response: dict[str, Any]
    deal_review: dict[str, Any] | None = None


class AnswerResult(Result):
    """An answer: its result and the question, with its status."""

    question: dict[str, Any]


class ChangeSeen(Model):
    """A material change marked seen."""

    change_id: str
    seen: bool


class Skill(Model):
    """A skill: what it reads and may write; the built-ins and the principal's own."""

    skill_id: str
    name: str
    reads: list[str]
    writes: list[str]
    builtin: bool
    red_team: bool


class SkillList(Model):
    """The skills the principal can run."""

    skills: list[Skill]

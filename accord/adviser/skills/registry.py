"""The skill registry (adviser-api.md, Skills): the built-ins F01-F09, each with what it reads and
may write, and a principal's own `x-` skills, declared the same way. A skill sees only the state
at its `reads` (its view) and writes only at or under its `writes`."""

import copy
import re
from dataclasses import dataclass
from typing import Annotated, Any, Self

from pydantic import Field, StringConstraints, model_validator

from accord.adviser.patches import ROOT, Author
from accord.adviser.pointers import PointerError, parse
from accord.adviser.schema import Shape
from accord.core.strict import Strict

REGISTERED_ID = re.compile(r"x-[a-z0-9-]{1,40}")
META_WRITES = ("/meta/lifecycle_stage", "/meta/analysis_depth")
ACCORD_SECTIONS = ("history", "deal_review", "meta")
"""No registered skill writes these, but for the two meta members above."""


@dataclass(frozen=True, slots=True)
class Skill:
    skill_id: str
    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    builtin: bool = True
    red_team: bool = False
    holds_all: bool = False
    """Every valid patch waits for the person (the language-model skill)."""

    @property
    def author(self) -> Author:
        return Author(self.skill_id, self.writes, red_team=self.red_team, holds_all=self.holds_all)

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> "Skill":
        return cls(**{**body, "reads": tuple(body["reads"]), "writes": tuple(body["writes"])})

    def as_json(self) -> dict[str, Any]:
        return {
            "skill_id": self.skill_id,
            "name": self.name,
            "reads": list(self.reads),
            "writes": list(self.writes),
            "builtin": self.builtin,
            "red_team": self.red_team,
        }


TOPICS = "/topics_targets_tradeoffs/topics"
RESEARCH = "/facts_and_research/research_questions"
BUILTINS = (
    Skill(
        "F01",
        "Intake",
        ("/meta", "/objective", "/parties", "/alternatives/user/batna", TOPICS),
        ("/meta/lifecycle_stage", "/meta/analysis_depth", "/objective/user_stated_objective"),
    ),
    Skill(
        "F02",
        "Positions and interests",
        ("/positions", "/interests", TOPICS),
        ("/interests", RESEARCH),
    ),
    Skill(
        "F03",
        "Alternatives",
        ("/alternatives", "/evidence_register/items", TOPICS),
        ("/alternatives", RESEARCH),
    ),
    Skill(
        "F04",
        "Targets and trades",
        ("/topics_targets_tradeoffs", "/interests", "/alternatives/user", "/independent_criteria"),
        (
            "/options",
            "/proposals/opening_offer",
            "/proposals/least_acceptable_package",
            "/proposals/creative_package",
            "/topics_targets_tradeoffs/cross_topic_tradeoffs",
            "/strategy/recommended_next_move",
        ),
    ),
    Skill(
        "F05",
        "Stakeholders and authority",
        ("/parties", "/stakeholders", "/evidence_register/items"),
        ("/parties/counterpart/authority_status", "/stakeholders", RESEARCH),
    ),
    Skill(
        "F06",
        "Role-play and red team",
        (TOPICS, "/alternatives/user", "/interests/counterpart", "/strategy", "/proposals"),
        (
            "/roleplay/last_snapshot_version",
            "/rapport_reactions_responses/likely_reactions",
            "/strategy",
        ),
        red_team=True,
    ),
    Skill(
        "F07",
        "Drafting",
        (
            "/strategy",
            TOPICS,
            "/proposals",
            "/process",
            "/interests/user",
            "/independent_criteria",
            "/x_accord/disclosure",
        ),
        (),
    ),
    Skill(
        "F08",
        "Deal review",
        (
            "/interests/user",
            "/alternatives/user",
            "/independent_criteria",
            TOPICS,
            "/precommitment",
            "/parties/counterpart/authority_status",
            "/evidence_register/contradictions",
            "/evidence_register/unresolved_material_unknowns",
        ),
        ("/deal_review", "/meta/lifecycle_stage"),
    ),
    Skill(
        "F09",
        "Linked table",
        ("/proposals", "/concessions", TOPICS),
        ("/proposals", "/concessions/ledger", "/meta/lifecycle_stage"),
    ),
)
BUILTIN = {skill.skill_id: skill for skill in BUILTINS}


def member_shape(pointer: str) -> Shape:
    """The shape a declared pointer names: members only, never an item of a list."""
    shape = ROOT
    for token in parse(pointer):
        inner = shape.member(token)
        if inner is None:
            raise PointerError(f"{pointer} names no member of the state")
        shape = inner
    return shape


Pointer = Annotated[str, StringConstraints(pattern=r"^/", max_length=300)]


class Declaration(Strict):
    """`POST /v1/adviser/skills`: a principal's own skill, run elsewhere."""

    skill_id: Annotated[str, StringConstraints(pattern=rf"^{REGISTERED_ID.pattern}$")]
    name: str = Field(min_length=1, max_length=200)
    reads: list[Pointer] = Field(max_length=50)
    writes: list[Pointer] = Field(max_length=50)
    red_team: bool = False

    @model_validator(mode="after")
    def _pointers(self) -> Self:
        for pointer in [*self.reads, *self.writes]:
            member_shape(pointer)  # a PointerError is a ValueError: the body is refused
        for pointer in self.writes:
            section = parse(pointer)[0]
            if section in ACCORD_SECTIONS and pointer not in META_WRITES:
                raise ValueError(f"no skill writes {pointer}: Accord does")
        return self

    def skill(self) -> Skill:
        return Skill(
            self.skill_id,
            self.name,
            tuple(self.reads),
            tuple(self.writes),
            builtin=False,
            red_team=self.red_team,
        )


def view(state: dict[str, Any], reads: tuple[str, ...], blank: dict[str, Any]) -> dict[str, Any]:
    """The state as a skill sees it: `blank` (a version 1) with the case's `meta` and the read
    members copied in, nothing else."""
    seen = copy.deepcopy(blank)
    seen["meta"] = copy.deepcopy(state["meta"])
    seen["history"]["material_events"] = []
    for pointer in reads:
        tokens = parse(pointer)
        source: Any = state
        target: Any = seen
        for token in tokens[:-1]:
            source, target = source[token], target[token]
        target[tokens[-1]] = copy.deepcopy(source[tokens[-1]])
    return seen

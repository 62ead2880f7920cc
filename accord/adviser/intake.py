"""F01, intake (adviser-api.md, Skills and Questions): the first questions of a case, the lifecycle
as the file fills, and how deep the analysis goes. Deterministic: the state in, questions and
patches out."""

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from accord.adviser.patches import Author, Patch
from accord.adviser.questions import MAX_ASKED, Question, is_filled

INTAKE = Author(
    "F01",
    writes=("/meta/lifecycle_stage", "/meta/analysis_depth", "/objective/user_stated_objective"),
)
MATERIAL = ("critical", "high")
BATNA_QUESTION = Question(
    "Q-batna",
    "If you reach no agreement, what will you do instead?",
    1,
    "Decides when walking away beats the deal on the table.",
    True,
    "text",
    "/alternatives/user/batna/description",
    "F01",
)
"""Asked by intake, and by F03 while the BATNA is still missing."""
QUESTIONS = (
    Question(
        "Q-objective",
        "What do you want to come out of this negotiation?",
        1,
        "Sets what every later step aims at.",
        False,
        "text",
        "/objective/user_stated_objective",
        "F01",
    ),
    BATNA_QUESTION,
    Question(
        "Q-counterpart",
        "Who are you negotiating with (the organisation)?",
        2,
        "Shapes what they can agree to and who decides on their side.",
        False,
        "text",
        "/parties/counterpart/organisation",
        "F01",
    ),
    Question(
        "Q-deadline",
        "By when must this be settled (YYYY-MM-DD)?",
        2,
        "Sets the pace, and when no deal becomes the outcome.",
        False,
        "date",
        "/process/deadlines/-",
        "F01",
    ),
    Question(
        "Q-relationship",
        "How much does your relationship with them matter after this deal: low, medium or high?",
        2,
        "Sets how hard to push, and how deep the preparation goes.",
        False,
        "enum",
        "/objective/relationship_importance",
        "F01",
        choices=("low", "medium", "high"),
    ),
)
ORDER = ("NEW", "TRIAGE", "PREPARING", "QUICK_ADVICE", "STRATEGY_READY")
"""The stages intake moves a case through, only forward; from ENGAGED on it leaves it alone."""
RANK = {"NEW": 0, "TRIAGE": 1, "PREPARING": 2, "QUICK_ADVICE": 3, "STRATEGY_READY": 3}


@dataclass(frozen=True, slots=True)
class Intake:
    questions: tuple[Question, ...]
    patches: tuple[Patch, ...]


def intake(
    state: dict[str, Any], *, answered: bool, depth_given: bool, known: Collection[str]
) -> Intake:
    """What F01 asks and sets now; `known` are the question ids the case already holds (any
    status: a question is asked once)."""
    asked = tuple(q for q in QUESTIONS if q.question_id not in known and not is_filled(q, state))[
        :MAX_ASKED
    ]
    patches = []
    stage = _stage(state, answered=answered)
    current = state["meta"]["lifecycle_stage"]
    if stage is not None and current in RANK and RANK[stage] > RANK[current]:
        patches.append(_set("lifecycle", "/meta/lifecycle_stage", stage, "the file has grown"))
    depth = _depth(state["objective"])
    if not depth_given and depth != state["meta"]["analysis_depth"]:
        patches.append(
            _set("depth", "/meta/analysis_depth", depth, "relationship and reversibility")
        )
    return Intake(asked, tuple(patches))


def _stage(state: dict[str, Any], *, answered: bool) -> str | None:
    light = state["meta"]["analysis_depth"] == "LIGHT"
    objective = state["objective"]["user_stated_objective"] is not None
    batna = state["alternatives"]["user"]["batna"]
    topics = state["topics_targets_tradeoffs"]["topics"]
    preparing = objective and (batna["description"] or batna["value"]) and bool(topics)
    if preparing:
        ready = all(
            t["best_target"]["value"] is not None and t["minimum_acceptable"]["value"] is not None
            for t in topics
            if t["priority"] in MATERIAL
        )
        if light:
            return "QUICK_ADVICE"
        return "STRATEGY_READY" if ready else "PREPARING"
    return "TRIAGE" if answered else None


def _depth(objective: dict[str, Any]) -> str:
    relationship, reversibility = objective["relationship_importance"], objective["reversibility"]
    if relationship == "high" or reversibility == "low":
        return "FULL"
    if relationship == "low" and reversibility == "high":
        return "LIGHT"
    return "STANDARD"


def _set(name: str, path: str, value: str, why: str) -> Patch:
    return Patch(
        patch_id=f"F01-{name}",
        operation="UPDATE_WITH_EVIDENCE",
        path=path,
        proposed_value=value,
        basis=f"intake: {why}",
    )

"""F01, intake: which questions it asks, how the lifecycle moves as the file fills (only
forward), and how deep the analysis goes."""

from datetime import UTC, datetime
from typing import Any

import pytest

from accord.adviser.intake import INTAKE, intake
from accord.adviser.patches import SetContext, validate
from accord.adviser.versions import version_one

AT = datetime(2026, 12, 3, tzinfo=UTC)
BOUND = {"value": None, "rationale": None, "evidence_status": "UNKNOWN"}
EMPTY_TOPIC: dict[str, Any] = {
    "current_position_user": None,
    "current_position_counterpart": None,
    "opening_position": None,
    "tradeoffs_within_topic": [],
    "cross_topic_trade_links": [],
    "status": "open",
}
TOPIC = {
    "topic_id": "pay",
    "topic": "Salary",
    "priority": "critical",
    "best_target": {},
    "minimum_acceptable": {},
}


def state(
    *,
    stage: str = "NEW",
    depth: str = "STANDARD",
    objective: str | None = None,
    batna: str | None = None,
    topics: list[dict[str, Any]] | None = None,
    relationship: str = "unknown",
    reversibility: str = "unknown",
) -> dict[str, Any]:
    document = version_one("case-1", "Salary", AT, analysis_depth=depth, description=objective)
    document["meta"]["lifecycle_stage"] = stage
    document["alternatives"]["user"]["batna"]["description"] = batna
    document["objective"]["relationship_importance"] = relationship
    document["objective"]["reversibility"] = reversibility
    for topic in topics or []:
        item = {**TOPIC, **topic}
        item["best_target"] = {**BOUND, **item["best_target"]}
        item["minimum_acceptable"] = {**BOUND, **item["minimum_acceptable"]}
        item |= EMPTY_TOPIC
        document["topics_targets_tradeoffs"]["topics"].append(item)
    return document


READY = {"best_target": {"value": "USD 150,000"}, "minimum_acceptable": {"value": "USD 130,000"}}


@pytest.mark.parametrize(
    ("given", "answered", "stage"),
    [
        pytest.param({}, False, "NEW", id="nothing yet"),
        pytest.param({}, True, "TRIAGE", id="the first answer"),
        pytest.param({"objective": "x", "batna": "y"}, True, "TRIAGE", id="no topic yet"),
        pytest.param(
            {"objective": "x", "batna": "y", "topics": [{}]}, True, "PREPARING", id="a topic"
        ),
        pytest.param(
            {"objective": "x", "batna": "y", "topics": [READY]},
            True,
            "STRATEGY_READY",
            id="targets and minimums",
        ),
        pytest.param(
            {
                "objective": "x",
                "batna": "y",
                "topics": [READY, {"topic_id": "bonus", "priority": "low"}],
            },
            True,
            "STRATEGY_READY",
            id="a low topic needs none",
        ),
        pytest.param(
            {
                "objective": "x",
                "batna": "y",
                "topics": [READY, {"topic_id": "car", "priority": "high"}],
            },
            True,
            "PREPARING",
            id="a high topic without them",
        ),
        pytest.param(
            {"depth": "LIGHT", "objective": "x", "batna": "y", "topics": [{}]},
            True,
            "QUICK_ADVICE",
            id="light",
        ),
        pytest.param(
            {"stage": "STRATEGY_READY", "objective": "x", "batna": "y", "topics": [{}]},
            True,
            "STRATEGY_READY",
            id="never back",
        ),
        pytest.param({"stage": "ENGAGED"}, True, "ENGAGED", id="not from engaged on"),
        pytest.param(
            {"stage": "DEAL_REVIEW", "objective": "x", "batna": "y", "topics": [READY]},
            True,
            "DEAL_REVIEW",
            id="not in review",
        ),
    ],
)
def test_the_lifecycle_moves_forward_as_the_file_fills(
    given: dict[str, Any], answered: bool, stage: str
) -> None:
    document = state(**given)
    run = intake(document, answered=answered, depth_given=True, known=())
    after = validate(SetContext(document, 1, INTAKE), run.patches)
    assert after.refused == []
    assert after.document["meta"]["lifecycle_stage"] == stage


@pytest.mark.parametrize(
    ("relationship", "reversibility", "depth"),
    [
        ("high", "unknown", "FULL"),
        ("medium", "low", "FULL"),
        ("low", "high", "LIGHT"),
        ("low", "medium", "STANDARD"),
        ("unknown", "unknown", "STANDARD"),
    ],
)
def test_the_depth_follows_relationship_and_reversibility(
    relationship: str, reversibility: str, depth: str
) -> None:
    document = state(relationship=relationship, reversibility=reversibility)
    for given, expected in ((False, depth), (True, "STANDARD")):
        run = intake(document, answered=True, depth_given=given, known=())
        after = validate(SetContext(document, 1, INTAKE), run.patches).document
        assert after["meta"]["analysis_depth"] == expected


@pytest.mark.parametrize(
    ("given", "known", "asked"),
    [
        pytest.param({}, (), ["Q-objective", "Q-batna", "Q-counterpart"], id="a new case"),
        pytest.param(
            {"objective": "x"},
            (),
            ["Q-batna", "Q-counterpart", "Q-deadline"],
            id="with a description",
        ),
        pytest.param(
            {},
            ("Q-objective", "Q-batna"),
            ["Q-counterpart", "Q-deadline", "Q-relationship"],
            id="asked once only",
        ),
        pytest.param(
            {"objective": "x", "batna": "y", "relationship": "low"},
            ("Q-counterpart",),
            ["Q-deadline"],
            id="what is left",
        ),
    ],
)
def test_intake_asks_the_first_three_empty_fields(
    given: dict[str, Any], known: tuple[str, ...], asked: list[str]
) -> None:
    run = intake(state(**given), answered=False, depth_given=True, known=known)
    assert [q.question_id for q in run.questions] == asked

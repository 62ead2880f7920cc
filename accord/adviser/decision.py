"""How the user decides (adviser state): the pre-commitment made before an offer, the strategy,
what role-play found, and the review of an offer."""

from accord.adviser.enums import (
    DealReviewStatus,
    Importance,
    Level,
    Recommendation,
    Reconciliation,
    ReviewOutcome,
)
from accord.adviser.wire import UtcDatetime, Wire
from accord.core.strict import Strict


class AcceptanceCriterion(Strict):
    criterion_id: str
    criterion: str
    importance: Importance
    threshold: str | None
    evidence_basis: str | None


class LaterChange(Strict):
    """The one way a pre-commitment moves once made: logged, reasoned and approved by the user
    (invariant 7)."""

    change_id: str
    criterion_id: str
    previous_value: str | None
    new_value: str | None
    new_evidence: str | None
    reason: str
    approved_by_user: bool
    timestamp: UtcDatetime | None


class Precommitment(Strict):
    """What the user decided to accept before an offer could sway them; deal review tests the
    offer against it."""

    created: bool
    created_at: UtcDatetime | None
    acceptance_criteria: list[AcceptanceCriterion]
    disqualifiers: list[str]
    relationship_requirements: list[str]
    fairness_or_independent_criteria_requirements: list[str]
    implementation_risk_limits: list[str]
    later_changes: list[LaterChange]


class Strategy(Strict):
    current_strategy: str | None
    strategic_rationale: str | None
    leverage_sources: list[str]
    vulnerabilities: list[str]
    current_priority: str | None
    recommended_next_move: str | None
    moves_to_avoid: list[str]
    confidence: Level
    assumptions: list[str]


class RedTeamFinding(Strict):
    """A finding changes the strategy only once reconciled ACCEPT (skill spec §3); null until it
    is reconciled, Accord's addition to the schema."""

    finding_id: str
    finding: str
    reconciliation_status: Reconciliation | None


class Roleplay(Strict):
    """What simulation found; it never becomes evidence by itself (invariant 8)."""

    last_snapshot_version: int | None
    red_team_findings: list[RedTeamFinding]
    accepted_findings: list[str]
    rejected_findings: list[str]


class Override(Strict):
    """The user accepting against the review's recommendation, on the record."""

    occurred: bool
    user_reason: str | None
    new_evidence: str | None
    timestamp: UtcDatetime | None


class DealReview(Strict):
    """Reads the offer against interests, alternatives, criteria and pre-commitment, never the
    strategy: the review is independent of advocacy (invariant 9)."""

    status: Wire[DealReviewStatus]
    offer_reviewed: str | None
    interest_test: ReviewOutcome
    batna_test: ReviewOutcome
    independent_criteria_test: ReviewOutcome
    hidden_timebomb_test: ReviewOutcome
    priority_topic_test: ReviewOutcome
    relationship_test: ReviewOutcome
    implementation_test: ReviewOutcome
    precommitment_test: ReviewOutcome
    conditions: list[str]
    recommendation: Recommendation | None
    reviewer_rationale: str | None
    override: Override

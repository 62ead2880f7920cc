"""The canonical adviser state (spec/adviser-negotiation-state.schema.yaml, whose nesting is
normative): its root, bookkeeping and history; the sections live in `situation`, `deal` and
`decision`, the invariants in adviser-negotiation-state.md §1.

Every schema member is required, nullable or not, since version 1 already holds each one, empty
(adviser-api.md, Version 1); only Accord's `x_accord` members may be absent. The state is the
schema's `negotiation` object, against which every patch pointer resolves. It is frozen: a new
version is a new state, never an edited one."""

from accord.adviser.deal import (
    Alternatives,
    Concessions,
    IndependentCriterion,
    Options,
    Proposals,
    TopicsTargetsTradeoffs,
)
from accord.adviser.decision import DealReview, Precommitment, Roleplay, Strategy
from accord.adviser.enums import (
    AnalysisDepth,
    Level,
    LifecycleStage,
    NegotiationStatus,
)
from accord.adviser.extensions import (
    StateExtension,
)
from accord.adviser.situation import (
    EvidenceRegister,
    FactsAndResearch,
    Interests,
    Parties,
    Positions,
    Process,
    RapportReactionsResponses,
    Stakeholder,
)
from accord.adviser.wire import UtcDatetime, Wire
from accord.core.strict import Strict


class Meta(Strict):
    """Only Accord writes the id, the version, the status and the times; the close call alone
    closes (invariant 10)."""

    negotiation_id: str
    title: str
    state_version: int
    lifecycle_stage: Wire[LifecycleStage]
    analysis_depth: Wire[AnalysisDepth]
    status: NegotiationStatus
    created_at: UtcDatetime
    updated_at: UtcDatetime


class Objective(Strict):
    user_stated_objective: str | None
    strategic_objective: str | None
    desired_outcome: str | None
    success_definition: str | None
    relationship_importance: Level
    reversibility: Level


class MaterialEvent(Strict):
    event_id: str
    timestamp: UtcDatetime
    type: str
    summary: str
    source_ref: str | None
    state_changes: list[str]
    rationale: str | None


class History(Strict):
    """Append-only (invariant 3): one event per version, naming the pointers it wrote."""

    material_events: list[MaterialEvent]


class NegotiationState(Strict):
    """One per tracked negotiation, owned by the orchestrator: skills see bounded views and
    propose patches, and each accepted set makes a new version (invariants 1 and 2)."""

    meta: Meta
    objective: Objective
    parties: Parties
    evidence_register: EvidenceRegister
    positions: Positions
    interests: Interests
    facts_and_research: FactsAndResearch
    options: Options
    topics_targets_tradeoffs: TopicsTargetsTradeoffs
    alternatives: Alternatives
    independent_criteria: list[IndependentCriterion]
    stakeholders: list[Stakeholder]
    process: Process
    rapport_reactions_responses: RapportReactionsResponses
    proposals: Proposals
    concessions: Concessions
    precommitment: Precommitment
    strategy: Strategy
    roleplay: Roleplay
    deal_review: DealReview
    history: History
    x_accord: StateExtension | None = None

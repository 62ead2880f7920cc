"""What an agreement could hold and what stands without one (adviser state): options inside it,
topics with their targets and trades, alternatives to it, independent criteria, and the offers
and concessions made so far."""

from pydantic import ConfigDict, Field

from accord.adviser.enums import (
    EvidenceStatus,
    ImprovementStatus,
    Level,
    NotionalBatnaStatus,
    Reciprocity,
    Side,
    TopicPriority,
    TopicStatus,
    TradeStatus,
)
from accord.adviser.extensions import (
    BatnaExtension,
    CriterionExtension,
    TopicExtension,
)
from accord.adviser.wire import UtcDatetime, Wire
from accord.core.strict import Strict


class AgreementOption(Strict):
    option_id: str
    option: str
    topics_affected: list[str]
    expected_value_user: str | None
    expected_value_counterpart: str | None
    evidence_status: Wire[EvidenceStatus]


class RejectedOption(Strict):
    option_id: str
    option: str
    reason_rejected: str
    timestamp: UtcDatetime | None


class Options(Strict):
    """Options inside an agreement, never alternatives to it (invariant 4): no BATNA lives here."""

    in_agreement: list[AgreementOption]
    rejected_options: list[RejectedOption]


class TopicBound(Strict):
    """A topic's best target or its minimum acceptable: neither moves silently (invariant 7)."""

    value: str | None
    rationale: str | None
    evidence_status: Wire[EvidenceStatus]


class Topic(Strict):
    topic_id: str
    topic: str
    priority: TopicPriority
    current_position_user: str | None
    current_position_counterpart: str | None
    best_target: TopicBound
    minimum_acceptable: TopicBound
    opening_position: str | None
    tradeoffs_within_topic: list[str]
    cross_topic_trade_links: list[str]
    status: Wire[TopicStatus]
    x_accord: TopicExtension | None = None


class CrossTopicTrade(Strict):
    trade_id: str
    give: str
    receive: str
    rationale: str
    status: TradeStatus
    risk_notes: str | None


class TopicsTargetsTradeoffs(Strict):
    """The "TTT": what is on the table, what the user aims for, and what they would trade."""

    topics: list[Topic]
    cross_topic_tradeoffs: list[CrossTopicTrade]


class UserBatna(Strict):
    """The user's best alternative to agreement as it really stands, evidenced; a hoped-for one
    is a `NotionalBatna` (invariant 5)."""

    description: str | None
    value: str | None
    evidence_status: Wire[EvidenceStatus]
    evidence_refs: list[str]
    x_accord: BatnaExtension | None = None


class Watna(Strict):
    description: str | None
    evidence_status: Wire[EvidenceStatus]


class Improvement(Strict):
    improvement: str
    status: ImprovementStatus


class NotionalBatna(Strict):
    """A hoped-for alternative, kept apart from the real BATNA (invariant 5) until it is
    validated for decision support."""

    description: str | None
    probability: str | None
    timing: str | None
    cost: str | None
    downside: str | None
    evidence_status: Wire[EvidenceStatus]
    status: NotionalBatnaStatus


class UserAlternatives(Strict):
    batna: UserBatna
    watna: Watna
    improvements: list[Improvement]
    notional_batna: NotionalBatna


class CounterpartBatna(Strict):
    description: str | None
    evidence_status: Wire[EvidenceStatus]
    evidence_refs: list[str]


class DependencyEstimate(Strict):
    value: str | None
    evidence_status: Wire[EvidenceStatus]


class CounterpartAlternatives(Strict):
    batna: CounterpartBatna
    watna: Watna
    constraints: list[str]
    estimated_dependency_on_agreement: DependencyEstimate


class Alternatives(Strict):
    """Alternatives to an agreement, never options inside it (invariant 4)."""

    user: UserAlternatives
    counterpart: CounterpartAlternatives


class IndependentCriterion(Strict):
    criterion_id: str
    criterion: str
    relevance: str
    likely_counterpart_credibility: Level
    evidence_ref: str | None
    evidence_status: Wire[EvidenceStatus]
    x_accord: CriterionExtension | None = None


class Proposal(Strict):
    proposal_id: str
    party: Side
    proposal: str
    timestamp: UtcDatetime | None
    source_ref: str | None


class Proposals(Strict):
    """The packages the user prepares and the offers on the table; the history is append-only."""

    opening_offer: str | None
    least_acceptable_package: str | None
    creative_package: str | None
    current_user_offer: str | None
    current_counterpart_offer: str | None
    proposal_history: list[Proposal]


class Concession(Strict):
    # `from` is a Python keyword: the one member whose Python name is not its wire name.
    model_config = ConfigDict(serialize_by_alias=True)

    concession_id: str
    timestamp: UtcDatetime | None
    party: Side
    topic: str
    from_: str | None = Field(alias="from")
    to: str | None
    stated_reason: str | None
    requested_exchange: str | None
    received_exchange: str | None
    conditional: bool
    reciprocal: Reciprocity
    strategic_assessment: str | None
    source_event_id: str | None


class Concessions(Strict):
    """Append-only: a concession is never deleted or rewritten (state spec §6)."""

    ledger: list[Concession]

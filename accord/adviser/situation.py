"""The situation as the user knows it (adviser state): the parties, what is established and what
is not, what each side says and wants, who else matters, the process and the rapport. Whatever
is said of the counterpart carries its evidence status (invariant 6)."""

from accord.adviser.enums import (
    ContradictionStatus,
    EvidenceStatus,
    InterestPriority,
    Level,
    Materiality,
    PriorityRank,
    ResearchStatus,
    Stance,
)
from accord.adviser.extensions import (
    InterestExtension,
)
from accord.adviser.wire import UtcDatetime, Wire
from accord.core.strict import Strict


class UserParty(Strict):
    role: str | None
    authority: str | None
    constraints: list[str]


class AuthorityStatus(Strict):
    """Who can say yes on their side: a material assessment, so it carries its evidence."""

    value: str | None
    evidence_status: Wire[EvidenceStatus]
    evidence_refs: list[str]


class Counterpart(Strict):
    organisation: str | None
    visible_contact: str | None
    stated_role: str | None
    authority_status: AuthorityStatus


class OtherParty(Strict):
    party_id: str
    name_or_role: str
    organisation: str | None
    relationship_to_negotiation: str | None


class Parties(Strict):
    user: UserParty
    counterpart: Counterpart
    other_parties: list[OtherParty]


# evidence register, positions, interests, facts


class EvidenceItem(Strict):
    evidence_id: str
    proposition: str
    evidence_status: Wire[EvidenceStatus]
    basis: str | None
    source_ref: str | None
    materiality: Materiality
    last_reviewed: UtcDatetime | None


class Contradiction(Strict):
    contradiction_id: str
    proposition_a_ref: str
    proposition_b_ref: str
    status: ContradictionStatus
    resolution: str | None


class MaterialUnknown(Strict):
    unknown_id: str
    question: str
    decision_impact: str
    priority: PriorityRank


class EvidenceRegister(Strict):
    items: list[EvidenceItem]
    contradictions: list[Contradiction]
    unresolved_material_unknowns: list[MaterialUnknown]


class UserPosition(Strict):
    topic_ref: str | None
    position: str
    source_ref: str | None


class CounterpartPosition(Strict):
    """What they say they want; unlike the user's own, it carries its evidence (invariant 6)."""

    topic_ref: str | None
    position: str
    evidence_status: Wire[EvidenceStatus]
    source_ref: str | None


class Positions(Strict):
    user_positions: list[UserPosition]
    counterpart_positions: list[CounterpartPosition]


class Interest(Strict):
    """An interest of one side; the user's and the counterpart's have the same members."""

    interest_id: str
    interest: str
    priority: InterestPriority
    evidence_status: Wire[EvidenceStatus]
    basis: str | None
    x_accord: InterestExtension | None = None


class CommonInterest(Strict):
    interest_id: str
    interest: str
    specificity_test: str | None
    evidence_status: Wire[EvidenceStatus]
    basis: str | None
    x_accord: InterestExtension | None = None


class Interests(Strict):
    user: list[Interest]
    counterpart: list[Interest]
    common: list[CommonInterest]


class Fact(Strict):
    fact_id: str
    fact: str
    source_ref: str | None


class ResearchQuestion(Strict):
    research_id: str
    question: str
    why_it_matters: str
    expected_decision_impact: str
    status: ResearchStatus
    answer: str | None
    evidence_ref: str | None


class FactsAndResearch(Strict):
    established_facts: list[Fact]
    research_questions: list[ResearchQuestion]


class Stakeholder(Strict):
    stakeholder_id: str
    person_or_role: str
    organisation: str | None
    formal_authority: str | None
    practical_influence: Level
    interests: list[str]
    stance: Stance
    relationship_to_visible_counterpart: str | None
    evidence_status: Wire[EvidenceStatus]
    evidence_refs: list[str]
    possible_engagement: str | None
    engagement_risk: str | None


class Deadline(Strict):
    deadline: str
    evidence_status: Wire[EvidenceStatus]
    source_ref: str | None


class ProcessSequence(Strict):
    current_step: str | None
    proposed_steps: list[str]


class Process(Strict):
    current_channel: str | None
    meeting_setting: str | None
    timing_constraints: list[str]
    deadlines: list[Deadline]
    sequence: ProcessSequence
    agenda: list[str]
    process_risks: list[str]


class LikelyReaction(Strict):
    reaction_id: str
    reaction: str
    evidence_status: Wire[EvidenceStatus]
    prepared_response: str | None


class RapportReactionsResponses(Strict):
    relationship_state: str | None
    likely_reactions: list[LikelyReaction]
    interaction_notes: list[str]

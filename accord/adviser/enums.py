"""The enumerations of the adviser state (adviser-negotiation-state.md, section 2, and the inline
ones of its schema), as the wire strings."""

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BeforeValidator

# Section 2: named, shared by many members, and ordered where the rules compare them.


class EvidenceStatus(StrEnum):
    """How far a proposition is established, from UNKNOWN up through HYPOTHESIS and
    SUPPORTED_INFERENCE to KNOWN (members in the spec's order, strongest first); raising it needs
    evidence (adviser-api.md, `evidence_required`)."""

    KNOWN = "KNOWN"
    SUPPORTED_INFERENCE = "SUPPORTED_INFERENCE"
    HYPOTHESIS = "HYPOTHESIS"
    UNKNOWN = "UNKNOWN"


class AnalysisDepth(StrEnum):
    """How much of the file a case keeps (section 4); LIGHT cases raise no material change."""

    LIGHT = "LIGHT"
    STANDARD = "STANDARD"
    FULL = "FULL"


class LifecycleStage(StrEnum):
    NEW = "NEW"
    TRIAGE = "TRIAGE"
    QUICK_ADVICE = "QUICK_ADVICE"
    PREPARING = "PREPARING"
    STRATEGY_READY = "STRATEGY_READY"
    ENGAGED = "ENGAGED"
    IMPASSE = "IMPASSE"
    OFFER_RECEIVED = "OFFER_RECEIVED"
    DEAL_REVIEW = "DEAL_REVIEW"
    PAUSED = "PAUSED"
    CLOSED = "CLOSED"
    NO_DEAL = "NO_DEAL"


class TopicStatus(StrEnum):
    """A specialist may not set a topic agreed or provisionally agreed (invariant 10)."""

    OPEN = "open"
    PROVISIONALLY_AGREED = "provisionally_agreed"
    AGREED = "agreed"
    WITHDRAWN = "withdrawn"


class DealReviewStatus(StrEnum):
    NOT_REQUIRED = "not_required"
    REQUIRED = "required"
    IN_PROGRESS = "in_progress"
    PASS = "pass"
    FAIL = "fail"
    CONDITIONAL = "conditional"
    INSUFFICIENT_INFORMATION = "insufficient_information"


# Inline in the schema: one member or a few, so the values stay literal strings.

NegotiationStatus = Literal["active", "paused", "closed", "no_deal"]
Level = Literal["low", "medium", "high", "unknown"]
Materiality = Literal["low", "medium", "high"]
ContradictionStatus = Literal["open", "resolved"]
InterestPriority = Literal["critical", "high", "medium", "low", "unknown"]
ResearchStatus = Literal["open", "answered", "obsolete"]
TopicPriority = Literal["critical", "high", "medium", "low"]
TradeStatus = Literal["proposed", "offered", "accepted", "rejected", "withdrawn"]
ImprovementStatus = Literal["possible", "in_progress", "achieved", "rejected"]
NotionalBatnaStatus = Literal["not_used", "provisional", "validated_for_decision_support"]
Stance = Literal["supportive", "neutral", "resistant", "mixed", "unknown"]
Side = Literal["user", "counterpart"]
Reciprocity = bool | Literal["unknown"]
"""JSON true or false once the other side has moved, the string `unknown` until then."""
Importance = Literal["critical", "important", "desirable"]
Reconciliation = Literal["ACCEPT", "TEST", "REJECT", "DEFER"]
ReviewOutcome = Literal["pass", "fail", "conditional", "unknown", "not_run"]
Recommendation = Literal["accept", "counter", "reject", "get_information"]


def _exact_int(value: object) -> object:
    # A Literal of ints alone takes true and 1.0 for 1, even in strict mode.
    if type(value) is not int:
        raise ValueError("must be the integer 1, 2 or 3")
    return value


PriorityRank = Annotated[Literal[1, 2, 3], BeforeValidator(_exact_int)]
"""1 is the most pressing: deal review's timebomb test waits on unresolved priority-1 unknowns."""

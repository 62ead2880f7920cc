"""Deal review, F08 (adviser-api.md, Deal review (F08), and Values): an offer read against the
user's interests, BATNA, independent criteria, priority topics, implementation limits and
pre-commitment, never against the strategy, so advocacy cannot sway it (state spec, invariant 9).
Pure: a state and an offer in; the new `/deal_review`, and the patches that write it, out."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Final, Literal, Self, assert_never

from pydantic import Field, StringConstraints, model_validator

from accord.adviser.deal import IndependentCriterion, Topic, UserBatna
from accord.adviser.decision import DealReview, Override, Precommitment
from accord.adviser.enums import (
    DealReviewStatus,
    EvidenceStatus,
    LifecycleStage,
    Recommendation,
    ReviewOutcome,
)
from accord.adviser.patches import Patch
from accord.adviser.situation import AuthorityStatus, Contradiction, Interest, MaterialUnknown
from accord.adviser.state import NegotiationState
from accord.adviser.values import (
    at_least_as_good,
    compare_values,
    evaluate_condition,
    parse_condition,
    read_topic_value,
    topic_kind,
)
from accord.core.strict import Strict

MAX_TERMS: Final = 100
MAX_VALUE_LENGTH: Final = 200
MAX_TEXT_LENGTH: Final = 4000
MAX_CONDITIONS: Final = 50
MAX_CONDITION_LENGTH: Final = 1000
MATERIAL: Final = ("critical", "high")
"""The priorities a review holds the offer to, for interests and topics alike."""
REVIEW_PATCH_ID: Final = "deal-review"
STAGE_PATCH_ID: Final = "deal-review-stage"

# Topic ids have the id form of adviser-api.md, Patches; a value is what the state keeps, a string.
TopicRef = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")]
TermValue = Annotated[str, StringConstraints(min_length=1, max_length=MAX_VALUE_LENGTH)]
OfferText = Annotated[str, StringConstraints(pattern=r"\S", max_length=MAX_TEXT_LENGTH)]
ConditionText = Annotated[str, StringConstraints(pattern=r"\S", max_length=MAX_CONDITION_LENGTH)]


class Offer(Strict):
    """What F08 reviews: `{terms: {topic_id: value}, text?, conditions?}`."""

    terms: dict[TopicRef, TermValue] = Field(
        max_length=MAX_TERMS,
        description="The offered value of each topic, by topic_id, written as in Values; a "
        "topic left out is unset.",
    )
    text: OfferText | None = Field(
        default=None, description="The offer as it was made; the review names it by this."
    )
    conditions: list[ConditionText] = Field(
        default_factory=list,
        max_length=MAX_CONDITIONS,
        description="What the offer is subject to; any condition makes the timebomb test "
        "conditional.",
    )

    @model_validator(mode="after")
    def _says_something(self) -> Self:
        if not self.terms and self.text is None:
            raise ValueError("an offer names at least one term or has its text")
        return self


Part = Literal["pass", "fail", "conditional", "unknown"]
TESTS: Final = (
    "interest_test",
    "batna_test",
    "independent_criteria_test",
    "hidden_timebomb_test",
    "priority_topic_test",
    "relationship_test",
    "implementation_test",
    "precommitment_test",
)
"""The eight tests in the spec's order, which the rationale keeps."""
ABOUT: Final[Mapping[str, str]] = {
    "interest_test": "your critical and high interests",
    "batna_test": "your BATNA",
    "independent_criteria_test": "the independent criteria",
    "hidden_timebomb_test": "unset terms, open contradictions, key unknowns and conditions",
    "priority_topic_test": "your minimums on critical and high topics",
    "relationship_test": "your relationship requirements",
    "implementation_test": "your implementation limits and their authority to agree",
    "precommitment_test": "what you committed to before the offer",
}
AUTHORITY: Final[Mapping[EvidenceStatus, Part]] = {
    EvidenceStatus.KNOWN: "pass",
    EvidenceStatus.SUPPORTED_INFERENCE: "pass",
    EvidenceStatus.HYPOTHESIS: "conditional",
    EvidenceStatus.UNKNOWN: "unknown",
}
CLEARED: Final = Override(occurred=False, user_reason=None, new_evidence=None, timestamp=None)


@dataclass(frozen=True, slots=True)
class Reads:
    """All of the state F08 reads (its row of the built-in skills table). `/strategy` is not
    here, so no review can depend on it (invariant 9)."""

    user_interests: Sequence[Interest]
    batna: UserBatna
    independent_criteria: Sequence[IndependentCriterion]
    topics: Sequence[Topic]
    precommitment: Precommitment
    authority_status: AuthorityStatus
    contradictions: Sequence[Contradiction]
    unresolved_material_unknowns: Sequence[MaterialUnknown]


def reads_of(state: NegotiationState) -> Reads:
    return Reads(
        user_interests=state.interests.user,
        batna=state.alternatives.user.batna,
        independent_criteria=state.independent_criteria,
        topics=state.topics_targets_tradeoffs.topics,
        precommitment=state.precommitment,
        authority_status=state.parties.counterpart.authority_status,
        contradictions=state.evidence_register.contradictions,
        unresolved_material_unknowns=state.evidence_register.unresolved_material_unknowns,
    )


def review(state: NegotiationState, offer: Offer) -> DealReview:
    """The new `/deal_review`: the eight tests, the conditions to meet, the recommendation by
    first match (reject → get_information → counter → accept), and the override cleared."""
    return _review(reads_of(state), offer)


def review_patches(state: NegotiationState, offer: Offer, request_id: str) -> list[Patch]:
    """F08's set: the whole new `/deal_review` and the lifecycle at DEAL_REVIEW, each naming the
    review that wrote it; validated as any skill's set, with F08's writes."""
    result = review(state, offer)
    return [
        Patch(
            patch_id=REVIEW_PATCH_ID,
            operation="UPDATE_WITH_EVIDENCE",
            path="/deal_review",
            proposed_value=result.model_dump(mode="json"),
            basis=f"deal review {request_id}: recommends {result.recommendation}",
        ),
        Patch(
            patch_id=STAGE_PATCH_ID,
            operation="UPDATE_WITH_EVIDENCE",
            path="/meta/lifecycle_stage",
            proposed_value=LifecycleStage.DEAL_REVIEW.value,
            basis=f"deal review {request_id}: an offer is under review",
        ),
    ]


def batna_topic(topics: Sequence[Topic], batna: UserBatna) -> Topic | None:
    """The topic the BATNA value compares with: `x_accord.topic_ref`, else the only critical
    topic that reads the value as its own kind; None when none or several do."""
    if batna.x_accord is not None:
        return next((t for t in topics if t.topic_id == batna.x_accord.topic_ref), None)
    fitting = [
        t
        for t in topics
        if t.priority == "critical"
        and topic_kind(t) != "text"
        and read_topic_value(t, batna.value) is not None
    ]
    return fitting[0] if len(fitting) == 1 else None


def _review(reads: Reads, offer: Offer) -> DealReview:
    topics = {t.topic_id: t for t in reads.topics}
    terms = offer.terms
    interest = _interest_test(reads, topics, terms)
    batna = _batna_test(reads, terms)
    criteria = _independent_criteria_test(reads, topics, terms)
    timebomb = _hidden_timebomb_test(reads, offer)
    priority = _priority_topic_test(reads, terms)
    relationship = _relationship_test(reads, topics, terms)
    implementation = _implementation_test(reads, topics, terms)
    precommitment = _precommitment_test(reads, topics, terms)
    results = (
        interest,
        batna,
        criteria,
        timebomb,
        priority,
        relationship,
        implementation,
        precommitment,
    )
    outcomes = dict(zip(TESTS, (r.outcome for r in results), strict=True))
    recommendation, status = recommend(outcomes)
    to_confirm = [f"confirm: {text}" for r in results for text in r.to_confirm]
    return DealReview(
        status=status,
        offer_reviewed=offer.text if offer.text is not None else _described(terms),
        interest_test=interest.outcome,
        batna_test=batna.outcome,
        independent_criteria_test=criteria.outcome,
        hidden_timebomb_test=timebomb.outcome,
        priority_topic_test=priority.outcome,
        relationship_test=relationship.outcome,
        implementation_test=implementation.outcome,
        precommitment_test=precommitment.outcome,
        conditions=list(dict.fromkeys([*offer.conditions, *to_confirm])),
        recommendation=recommendation,
        reviewer_rationale=_rationale(recommendation, outcomes),
        override=CLEARED,
    )


def combine(parts: Iterable[Part]) -> Part:
    """A test of several parts fails if one fails, else is unknown if one is, else conditional
    if one is; with no part it passes."""
    seen = set(parts)
    for outcome in ("fail", "unknown", "conditional"):
        if outcome in seen:
            return outcome
    return "pass"


def recommend(outcomes: Mapping[str, ReviewOutcome]) -> tuple[Recommendation, DealReviewStatus]:
    """The first match of reject (the BATNA or the pre-commitment fails) → get_information (a
    test is unknown) → counter (a test fails) → accept, and the status it gives."""
    values = set(outcomes.values())
    if "fail" in (outcomes["batna_test"], outcomes["precommitment_test"]):
        return "reject", DealReviewStatus.FAIL
    if "unknown" in values:
        return "get_information", DealReviewStatus.INSUFFICIENT_INFORMATION
    if "fail" in values:
        return "counter", DealReviewStatus.FAIL
    if "conditional" in values:
        return "accept", DealReviewStatus.CONDITIONAL
    return "accept", DealReviewStatus.PASS


def _rationale(recommendation: Recommendation, outcomes: Mapping[str, ReviewOutcome]) -> str:
    """One sentence naming the tests that decided the recommendation."""
    having = {
        outcome: [t for t in TESTS if outcomes[t] == outcome]
        for outcome in ("pass", "fail", "conditional", "unknown")
    }
    match recommendation:
        case "reject":
            deciding = [t for t in ("batna_test", "precommitment_test") if outcomes[t] == "fail"]
            return f"Reject: the offer fails {_named(deciding)}."
        case "get_information":
            unknown = having["unknown"]
            sentence = f"Get information before deciding: {_named(unknown)} {_be(unknown)} unknown"
            if having["fail"]:
                sentence += f", and the offer already fails {_named(having['fail'])}"
            return sentence + "."
        case "counter":
            return f"Counter: the offer fails {_named(having['fail'])}."
        case "accept":
            conditional = having["conditional"]
            if conditional:
                return (
                    f"Accept once the conditions are confirmed: {_named(conditional)} "
                    f"{_be(conditional)} conditional."
                )
            return f"Accept: the offer passes {_named(having['pass'])}."
        case _:
            assert_never(recommendation)


# -- the eight tests (adviser-api.md, the Deal review table) ---------------------------------------


@dataclass(slots=True)
class _Parts:
    """A test's parts as they are found, and the text entries its conditional parts confirm."""

    outcomes: list[Part] = field(default_factory=list)
    to_confirm: list[str] = field(default_factory=list)

    def add(self, outcome: Part) -> None:
        self.outcomes.append(outcome)

    def judge(self, holds: bool | None) -> None:
        self.add("unknown" if holds is None else "pass" if holds else "fail")

    def confirm(self, text: str) -> None:
        self.add("conditional")
        self.to_confirm.append(text)

    def result(self) -> "_Result":
        return _Result(combine(self.outcomes), tuple(self.to_confirm))


@dataclass(frozen=True, slots=True)
class _Result:
    outcome: ReviewOutcome
    to_confirm: tuple[str, ...] = ()


NOT_RUN: Final = _Result("not_run")


def _interest_test(reads: Reads, topics: Mapping[str, Topic], terms: Mapping[str, str]) -> _Result:
    material = [i for i in reads.user_interests if i.priority in MATERIAL]
    if not material:
        return NOT_RUN
    parts = _Parts()
    for interest in material:
        refs = interest.x_accord.topic_refs if interest.x_accord is not None else []
        if not refs:
            parts.add("unknown")
        for ref in refs:
            parts.judge(_meets_minimum(topics.get(ref), terms))
    return parts.result()


def _batna_test(reads: Reads, terms: Mapping[str, str]) -> _Result:
    topic = batna_topic(reads.topics, reads.batna)
    if topic is None:
        return _Result("unknown")
    parts = _Parts()
    parts.judge(at_least_as_good(topic, terms.get(topic.topic_id), reads.batna.value))
    return parts.result()


def _independent_criteria_test(
    reads: Reads, topics: Mapping[str, Topic], terms: Mapping[str, str]
) -> _Result:
    mapped = [(c, c.x_accord) for c in reads.independent_criteria if c.x_accord is not None]
    if not mapped:
        return NOT_RUN
    parts = _Parts()
    for criterion, extension in mapped:
        if extension.low is None and extension.high is None:
            # a criterion mapped without a range has nothing to compare: it reads as text
            parts.confirm(criterion.criterion)
            continue
        topic = topics.get(extension.topic_ref)
        term = terms.get(extension.topic_ref)
        if topic is None or term is None:
            parts.add("unknown")
            continue
        if extension.low is not None:
            order = compare_values(topic, term, extension.low)
            parts.judge(None if order is None else order >= 0)
        if extension.high is not None:
            order = compare_values(topic, term, extension.high)
            parts.judge(None if order is None else order <= 0)
    return parts.result()


def _hidden_timebomb_test(reads: Reads, offer: Offer) -> _Result:
    parts = _Parts()
    for topic in _priority_topics(reads):
        if topic.topic_id not in offer.terms:
            parts.add("fail")  # the one test where an unset term fails rather than is unknown
    if any(c.status == "open" for c in reads.contradictions):
        parts.add("unknown")
    if any(u.priority == 1 for u in reads.unresolved_material_unknowns):
        parts.add("unknown")
    if offer.conditions:
        parts.add("conditional")  # already in `conditions`, as the offer gave them
    return parts.result()


def _priority_topic_test(reads: Reads, terms: Mapping[str, str]) -> _Result:
    parts = _Parts()
    for topic in _priority_topics(reads):
        parts.judge(_meets_minimum(topic, terms))
    return parts.result()


def _relationship_test(
    reads: Reads, topics: Mapping[str, Topic], terms: Mapping[str, str]
) -> _Result:
    requirements = _entries(reads.precommitment.relationship_requirements)
    if not requirements:
        return NOT_RUN
    parts = _Parts()
    for requirement in requirements:
        _check_entry(parts, requirement, topics, terms)
    return parts.result()


def _implementation_test(
    reads: Reads, topics: Mapping[str, Topic], terms: Mapping[str, str]
) -> _Result:
    parts = _Parts()
    for limit in _entries(reads.precommitment.implementation_risk_limits):
        _check_entry(parts, limit, topics, terms)
    parts.add(AUTHORITY[reads.authority_status.evidence_status])
    return parts.result()


def _precommitment_test(
    reads: Reads, topics: Mapping[str, Topic], terms: Mapping[str, str]
) -> _Result:
    precommitment = reads.precommitment
    if not precommitment.created:
        return NOT_RUN
    parts = _Parts()
    criteria = [c.threshold or c.criterion for c in precommitment.acceptance_criteria]
    for entry in _entries(criteria):
        _check_entry(parts, entry, topics, terms)
    for entry in _entries(precommitment.fairness_or_independent_criteria_requirements):
        _check_entry(parts, entry, topics, terms)
    for entry in _entries(precommitment.disqualifiers):
        _check_entry(parts, entry, topics, terms, disqualifies=True)
    return parts.result()


# -- parts -----------------------------------------------------------------------------------------


def _priority_topics(reads: Reads) -> list[Topic]:
    """The critical and high topics still on the table: a withdrawn one asks nothing of an
    offer."""
    return [t for t in reads.topics if t.priority in MATERIAL and t.status != "withdrawn"]


def _meets_minimum(topic: Topic | None, terms: Mapping[str, str]) -> bool | None:
    """Whether the topic's term is at least as good as its minimum; None (unknown) for a topic
    the state lacks, an unset term or minimum, or a value that does not read."""
    if topic is None:
        return None
    return at_least_as_good(topic, terms.get(topic.topic_id), topic.minimum_acceptable.value)


def _check_entry(
    parts: _Parts,
    entry: str,
    topics: Mapping[str, Topic],
    terms: Mapping[str, str],
    *,
    disqualifies: bool = False,
) -> None:
    """A `<topic_id> <op> <value>` entry on a topic of the state is compared with the offer (a
    disqualifier fails when it holds); any other text, a condition naming no topic included, is
    conditional and confirmed (adviser-api.md, Values)."""
    condition = parse_condition(entry)
    topic = topics.get(condition.topic_id) if condition is not None else None
    if condition is None or topic is None:
        parts.confirm(entry)
        return
    holds = evaluate_condition(condition, topic, terms)
    if disqualifies and holds is not None:
        holds = not holds  # a disqualifier that holds rules the offer out
    parts.judge(holds)


def _entries(texts: Iterable[str]) -> list[str]:
    """Entries as the user wrote them, trimmed; a blank one says nothing and is skipped."""
    return [text.strip() for text in texts if text.strip()]


def _described(terms: Mapping[str, str]) -> str:
    return "; ".join(f"{topic_id}: {value}" for topic_id, value in terms.items())


def _named(tests: Sequence[str]) -> str:
    named = [f"{test} ({ABOUT[test]})" for test in tests]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def _be(tests: Sequence[str]) -> str:
    return "is" if len(tests) == 1 else "are"

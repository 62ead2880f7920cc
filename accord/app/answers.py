"""What the server answers on success, described for the OpenAPI document and the MCP tools'
output schemas.

The routes serve the bodies the services build; these models only describe them, so they
allow members they do not name (a later version may add one) but require every member the
server always sends. The UCP capability's JSON Schema is made from the session models."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from accord.app.identity import KeyKind, Level, Mode
from accord.protocols.rooms.state import Seat, Status
from accord.protocols.rooms.views import ConfirmationView, RoomView


class Described(BaseModel):
    """Answers are described, not validated: new members may appear."""

    model_config = ConfigDict(extra="allow", frozen=True)


# -- shared ------------------------------------------------------------------------------


class Envelope(Described):
    """One entry of a hash-chained log."""

    seq: int
    ts: str = Field(description="RFC 3339, UTC.")
    type: str
    sender: dict[str, str]
    payload: dict[str, Any]
    message_id: str
    prev_hash: str | None = Field(
        None, pattern=r"^sha256:[0-9a-f]{64}$", description="Absent in envelope 0."
    )


class Log(Described):
    envelopes: list[Envelope] = Field(description="The whole chain, oldest first.")


class Signature(Described):
    status: str
    reason: str


class Chain(Described):
    length: int
    head: str = Field(description="sha256:… of the last envelope.")
    retention_days: int


class DetachedJws(Described):
    """A JWS over the canonical signed_payload, its payload detached (RFC 7515, RFC 7797)."""

    protected: str = Field(description="base64url of the protected header.")
    signature: str = Field(description="base64url of the EdDSA signature.")


class ReceiptMembers(Described):
    oanp_version: str
    session_id: str
    state: str
    arbiter: dict[str, Any]
    invariants: dict[str, bool] = Field(description="The invariants, checked on the log.")
    chain: Chain
    signature: Signature
    signed_payload: dict[str, Any] | None
    artifact: DetachedJws | None = Field(description="null when nothing was agreed.")
    jwks: dict[str, Any] = Field(description="The signing key, or no keys when unsigned.")
    reveals: list[dict[str, Any]]


# -- rooms -------------------------------------------------------------------------------


class LimitsOpening(Described):
    """What opens the seat's limits commitment in the log: keep it to prove the limits."""

    nonce: str
    limits: dict[str, Any]


class Invite(Described):
    token: str = Field(description="Used once, by whoever has it.")
    url: str = Field(description="The invite link to send the other side.")
    expires_at: str | None


class OwnerLink(Described):
    url: str = Field(description="A one-time link that gives the person the owner credential.")
    telegram_url: str | None = Field(
        None, description="The same link for the Telegram bot (when Telegram is on)."
    )
    expires_at: str


class OpenedRoom(Described):
    room: RoomView
    seat_token: str = Field(description="The seat's agent credential; shown once.")
    owner_token: str | None = Field(
        None, description="The seat's human credential; shown once (`owner_delivery: token`)."
    )
    owner_link: OwnerLink | None = Field(None, description="In its place, for `link`.")
    limits_opening: LimitsOpening
    invite: Invite


class JoinedRoom(Described):
    room: RoomView
    seat_token: str = Field(description="The seat's agent credential; shown once.")
    owner_token: str | None = Field(
        None, description="The seat's human credential; shown once (`owner_delivery: token`)."
    )
    owner_link: OwnerLink | None = Field(None, description="In its place, for `link`.")
    limits_opening: LimitsOpening


class RoomSummary(Described):
    room_id: str
    name: str
    seat: Seat
    state: Status
    your_turn: bool
    deadline: str | None


class RoomList(Described):
    rooms: list[RoomSummary]


class Played(Described):
    """A move that took effect (200)."""

    room: RoomView
    move: Envelope


class AwaitingConfirmation(Described):
    """An agent's move that waits for the seat owner's confirmation (202)."""

    room: RoomView
    confirmation: ConfirmationView


class Confirmations(Described):
    confirmations: list[ConfirmationView] = Field(description="At most one at a time.")


class Decided(Described):
    room: RoomView


class RoomReceipt(ReceiptMembers):
    """Signed when agreed (a detached JWS in `artifact`), unsigned when closed or expired."""

    protocol: Literal["rooms"]
    final_terms: dict[str, Any] | None


# -- arbitrated sessions -----------------------------------------------------------------


class Money(Described):
    amount_minor: int = Field(description="An integer amount in the currency's minor unit.")
    currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217.")


class TermsInclusion(Described):
    kind: str = Field(description="What the price includes, e.g. warranty.")
    value: Literal["included"]


class Terms(Described):
    price: Money
    inclusions: list[TermsInclusion] = Field(default_factory=list)


class OfferOnTable(Described):
    proposer: Literal["buyer", "merchant"]
    terms: Terms


class Verdict(Described):
    round: int
    verdict: str = Field(description="The arbiter's verdict on the offer, e.g. fair.")
    fairness_score: str = Field(description="A decimal string; 1 is the reference price.")
    price_minor: int
    outcome: str = Field(description="pending, accepted or rejected.")


class Close(Described):
    reason: str = Field(description="Why the session closed: rejected, max_rounds, timeout…")
    detail: str | None = None


class Sender(Described):
    role: Literal["buyer", "merchant", "arbiter"]


class EnvelopeView(Described):
    seq: int
    ts: str = Field(description="RFC 3339, UTC.")
    type: str = Field(description="session.accept, offer.propose, arbitration.evaluate…")
    sender: Sender
    payload: dict[str, Any]
    message_id: str
    prev_hash: str | None = Field(None, description="sha256:… of the envelope before.")


class SessionView(Described):
    """What `POST /v1/sessions`, `GET /v1/sessions/{id}` and every move return."""

    session_id: str
    mode: Mode
    sku: str
    state: str = Field(description="negotiating, corrective, agreed or closed.")
    round: int = Field(description="The last round begun; the merchant's opening is round 0.")
    max_rounds: int
    your_turn: bool
    corrective: bool
    offer_on_table: OfferOnTable | None
    last_verdict: Verdict | None
    close: Close | None
    events: list[EnvelopeView] = Field(description="The envelopes this call appended.")
    receipt: str | None = Field(description="The receipt's URL once the session has ended.")
    log: list[EnvelopeView] | None = Field(None, description="The whole chain (GET only).")
    session_token: str | None = Field(None, description="Once, in the answer to the open.")
    duplicate: bool | None = Field(None, description="A repeated message_id: nothing appended.")


class SessionSummary(Described):
    session_id: str
    sku: str
    state: str
    mode: Mode
    created_at: str
    updated_at: str


class SessionList(Described):
    sessions: list[SessionSummary] = Field(description="Newest first.")


class Receipt(ReceiptMembers):
    """`GET /v1/sessions/{id}/receipt`: signed when agreed (a detached JWS in `artifact`),
    unsigned (`artifact: null`) when closed."""

    protocol: Literal["arbitrated"]
    mode: Mode
    rules: dict[str, Any]
    attested: dict[str, Any]
    fairness_profile: str
    final_terms: Terms | None
    verdicts: list[Verdict]


class ClaimedHandoff(Described):
    """The merchant's checkout hand-off: `value` is a bearer secret."""

    kind: Literal["discount_code", "invoice_url"]
    value: str
    checkout_url: str
    expires_at: str = Field(description="RFC 3339.")


class Reveals(Described):
    reveals: list[dict[str, Any]] = Field(description="Every commitment opened, checked.")


# -- merchants and principals ------------------------------------------------------------


class MerchantMe(Described):
    tenant_id: str
    mode: Mode
    key_kind: KeyKind


class CatalogueItem(Described):
    sku: str
    description: str
    list_price_minor: int
    currency: str
    inclusions: list[str]


class Catalogue(Described):
    items: list[CatalogueItem]


class StoredPolicy(Described):
    """A policy as stored, its floor included: the merchant reading its own data."""

    sku: str
    currency: str
    list_price_minor: int
    reference_price_minor: int
    floor_minor: int


class Policies(Described):
    policies: list[StoredPolicy]


class PrincipalMe(Described):
    principal_id: str
    name: str
    key: Level
    agent_id: str | None = Field(description="The agent of an agent key; null for the owner.")
    selected_agent_id: str


class AgentSelected(Described):
    principal_id: str
    selected_agent_id: str


class IntentConstraint(Described):
    key: str
    op: Literal["eq", "in", "gte", "lte", "between"]
    value: Any


class Intent(Described):
    intent_id: str
    statement: str
    constraints: list[IntentConstraint]
    identity: dict[str, str] = Field(description="display_name, headline, contact: those given.")
    visibility: Literal["public", "network", "incognito", "private"]
    networks: list[str]
    status: Literal["active", "paused", "archived"]
    created_at: str = Field(description="RFC 3339.")
    updated_at: str = Field(description="RFC 3339.")


class IntentAnswer(Described):
    intent: Intent


class IntentList(Described):
    intents: list[Intent] = Field(description="Yours, newest first.")


class ChatMessage(Described):
    message_id: str
    author: Literal["owner", "agent"]
    agent_id: str | None = Field(description="The agent that wrote it; null for the owner.")
    message: str
    created_at: str = Field(description="RFC 3339.")


class ChatPosted(Described):
    message: ChatMessage


class ChatMessages(Described):
    messages: list[ChatMessage] = Field(description="Oldest first.")


class Network(Described):
    network_id: str
    name: str


class NetworkCreated(Network):
    invite_code: str = Field(description="Shown only now: pass it to whom may join.")


class Networks(Described):
    networks: list[Network]


class Candidate(Described):
    intent_id: str
    score: float = Field(description="0..1, rounded to 4 decimals.")
    mutual: bool
    constraint_fit: bool | None = Field(description="Only when mutual and not incognito.")
    statement: str | None = Field(None, description="Only when mutual and not incognito.")


class Candidates(Described):
    candidates: list[Candidate] = Field(description="Best first, ties by intent_id.")


IntroSeat = Literal["initiator", "responder"]
Decision = Literal["accepted", "rejected", "expired"]
LayerState = Literal["open", "closed"]


class Decisions(Described):
    yours: Decision | None
    theirs: Decision | None = Field(description="Null until the opportunity is final.")


class Opportunity(Described):
    opportunity_id: str
    status: Literal["negotiating", "pending", "accepted", "rejected", "expired"]
    your_seat: IntroSeat
    your_intent_id: str
    negotiation_id: str
    decisions: Decisions
    context: str | None = Field(None, description="The opener's private note, to the opener only.")
    created_at: str = Field(description="RFC 3339.")
    updated_at: str = Field(description="RFC 3339.")


class OpportunityAnswer(Described):
    opportunity: Opportunity


class OpenedOpportunity(Opportunity):
    created: bool = Field(description="False when the pair was opened before, from either side.")


class OpenedOpportunities(Described):
    opportunities: list[OpenedOpportunity] = Field(description="In the order of the candidates.")


class Opportunities(Described):
    opportunities: list[Opportunity] = Field(description="Newest first.")


class IntroTurn(Described):
    turn_index: int
    round: int
    seat: IntroSeat
    action: Literal["propose", "counter", "accept", "decline"]
    message: str
    created_at: str


class IntroProtocol(Described):
    available_actions: list[str]
    blocked_reason: str | None
    max_turns_per_round: int
    message_limit: int


class IntroNegotiation(Described):
    negotiation_id: str
    opportunity_id: str
    outcome: Literal["agreed", "closed"] | None
    round: int
    turn_count: int
    turns_in_round: int
    awaiting: IntroSeat | None
    turns: list[IntroTurn]
    protocol: IntroProtocol


class Layers(Described):
    statement: LayerState
    constraints: LayerState
    identity: LayerState


class Counterparty(Described):
    layers: Layers
    statement: str | None = Field(None, description="Once the Statement layer is open.")
    constraints: list[IntentConstraint] | None = Field(
        None, description="Once the Constraints layer is open."
    )
    identity: dict[str, str] | None = Field(None, description="Once the Identity layer is open.")


class SeatNegotiation(Described):
    negotiation: IntroNegotiation
    counterparty: Counterparty


class SeatOpportunity(SeatNegotiation):
    opportunity: Opportunity


class Question(Described):
    question_id: str
    question: str
    options: list[str] | None
    why: str
    status: Literal["open", "answered"]
    answer: str | None = Field(None, description="Once answered.")
    answered_in_chat: bool | None = Field(
        None, description="Once answered: true when the owner's chat message answered it."
    )


class AskedQuestions(Described):
    questions: list[Question] = Field(description="Oldest first; only the viewer's own seat's.")


class AnsweredQuestion(Described):
    question: Question


class IntroReceipt(ReceiptMembers):
    """Signed when the agents agreed (a detached JWS in `artifact`), unsigned when closed."""

    protocol: Literal["intro"]
    enforcement: Literal["bilateral"]
    final_terms: dict[str, Any] | None


class NegotiationSummary(Described):
    negotiation_id: str
    opportunity_id: str
    outcome: Literal["agreed", "closed"] | None
    round: int
    awaiting: IntroSeat | None


class NegotiationList(Described):
    negotiations: list[NegotiationSummary] = Field(description="Newest first.")


# -- the server --------------------------------------------------------------------------


class Jwks(Described):
    keys: list[dict[str, Any]] = Field(description="Ed25519 public keys (RFC 8037).")


class Health(Described):
    status: Literal["ok"]
    version: str


class UcpProfile(Described):
    ucp: dict[str, Any] = Field(description="version, services and capabilities.")
    keys: list[dict[str, Any]]


# -- the adviser ---------------------------------------------------------------------------


class MaterialChange(Described):
    change_id: str
    state_version: int
    fields: list[str] = Field(description="The material pointers that changed.")
    summary: str
    seen: bool
    created_at: str = Field(description="RFC 3339.")


class CaseQuestion(Described):
    question_id: str
    question: str
    priority: int
    decision_impact: str = Field(description="What the answer could change.")
    blocking: bool
    kind: Literal["text", "enum", "money", "number", "date", "boolean", "list"]
    choices: list[str]
    currency: str | None
    path: str = Field(description="The pointer the answer fills.")
    asked_by: str
    status: Literal["open", "answered", "obsolete"]


class Link(Described):
    link_id: str
    protocol: Literal["rooms", "arbitrated", "intro"]
    negotiation_id: str = Field(description="The room, session or opportunity followed.")
    seat: Literal["opener", "joiner", "buyer", "initiator", "responder"] = Field(
        description="The seat the case follows; the credential is never kept."
    )


class Case(Described):
    case_id: str
    title: str
    description: str | None
    state_version: int
    state: dict[str, Any] = Field(
        description="The current version's negotiation object: every pointer resolves in it."
    )
    questions: list[CaseQuestion] = Field(description="The open questions.")
    material_changes: list[MaterialChange] = Field(description="The unseen ones.")
    held: list[dict[str, Any]] = Field(
        description="Patches waiting for a finding's reconciliation."
    )
    links: list[Link]
    checks: list[dict[str, Any]] = Field(description="Preparation checks, computed at each read.")
    created_at: str = Field(description="RFC 3339.")
    updated_at: str = Field(description="RFC 3339.")


class CaseLine(Described):
    case_id: str
    title: str
    state_version: int
    lifecycle_stage: str
    status: Literal["active", "paused", "closed", "no_deal"]
    updated_at: str = Field(description="RFC 3339.")
    unseen_material_changes: int


class Cases(Described):
    cases: list[CaseLine] = Field(description="Yours, last updated first.")


class CaseVersion(Described):
    case_id: str
    state_version: int
    state: dict[str, Any]


class CaseHistory(Described):
    events: list[dict[str, Any]] = Field(description="One per version, oldest first.")


class AppliedPatch(Described):
    patch_id: str
    path: str = Field(description="The pointer written, ids in place of positions.")


class RefusedPatch(Described):
    patch_id: str
    code: str
    message: str


class HeldPatch(Described):
    patch_id: str
    finding_id: str


class PatchResult(Described):
    applied: list[AppliedPatch]
    refused: list[RefusedPatch] = Field(description="A refused patch is not an HTTP error.")
    held: list[HeldPatch]
    warnings: list[RefusedPatch]
    state_version: int = Field(description="The current version after the call.")
    material_change: MaterialChange | None


class AnswerResult(PatchResult):
    question: CaseQuestion


class ReviewResult(PatchResult):
    deal_review: dict[str, Any] = Field(description="The new /deal_review.")
    response: dict[str, Any] = Field(description="F08's SKILL_RESPONSE.")


class RunResult(PatchResult):
    response: dict[str, Any] = Field(description="The run's SKILL_RESPONSE.")
    deal_review: dict[str, Any] | None = Field(
        default=None, description="F08's run: the new /deal_review."
    )


class Skill(Described):
    skill_id: str
    name: str
    reads: list[str] = Field(description="The pointers the skill sees.")
    writes: list[str] = Field(description="Where its patches may write.")
    builtin: bool
    red_team: bool = Field(description="Its findings wait for the user to reconcile them.")


class Skills(Described):
    skills: list[Skill]


class ChangeSeen(Described):
    change_id: str
    seen: Literal[True]


# -- webhooks (docs/webhooks.md) -----------------------------------------------------------


class Webhook(Described):
    webhook_id: str
    url: str
    event_types: list[str] | None = Field(description="Exact types or `prefix.*`; null: all.")
    description: str | None
    scope: dict[str, Any] = Field(
        description="The audience whose events the endpoint receives: {kind, level, …}."
    )
    signature: Literal["v1", "v1a"]
    status: Literal["enabled", "disabled"]
    disabled_reason: Literal["by_request", "gone", "failing"] | None
    created_at: str
    updated_at: str
    last_success_at: str | None
    secret: str | None = Field(
        default=None, description="`whsec_…`: shown once, when made or rotated (v1)."
    )


class Webhooks(Described):
    webhooks: list[Webhook]


class Attempt(Described):
    attempt: int
    attempted_at: str
    status_code: int | None
    error: str | None
    duration_ms: int
    next_attempt_at: str | None


class Delivery(Described):
    event_id: str = Field(description="The `webhook-id` every attempt carries.")
    event_type: str
    status: Literal["pending", "succeeded", "failed"]
    created_at: str
    attempts: list[Attempt]


class Deliveries(Described):
    deliveries: list[Delivery]


class WebhookKey(Described):
    key: str = Field(description="`whpk_` and the raw 32-byte Ed25519 public key in base64.")
    status: Literal["active", "retired"]
    created_at: str


class WebhookKeys(Described):
    keys: list[WebhookKey]


# -- link codes (A4) -------------------------------------------------------------------------


class LinkCode(Described):
    code: str = Field(description="32 base64url characters; works once.")
    web_url: str = Field(description="The claim page, the code in its fragment.")
    telegram_url: str | None = Field(
        None, description="The bot's deep link, the code as `start` (when Telegram is on)."
    )
    expires_at: str

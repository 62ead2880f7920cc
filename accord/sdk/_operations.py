"""Every endpoint the SDK speaks, stated once (spec/rooms-api.md, spec/arbitrated-rest.md,
spec/intro-api.md):
its method and path, the strict request model the server validates the body with, the result
model of each success status, and when it may be sent again.

A body is checked against the same strict model before it leaves, so a malformed request is
refused here exactly as the server would refuse it, and never half-sent.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Generic, Literal, TypeVar
from urllib.parse import quote

from pydantic import TypeAdapter

from accord.adviser.requests import (
    AnswerInput,
    CaseInput,
    CloseInput,
    Empty,
    LinkInput,
    OverrideInput,
    PatchSet,
    ReconcileInput,
    ReviewInput,
    RunInput,
)
from accord.adviser.skills.registry import Declaration
from accord.core.strict import Strict
from accord.protocols.arbitrated.moves import HandoffRequest, OpenSessionRequest, RevealRequest
from accord.protocols.arbitrated.moves import Move as SessionMove
from accord.protocols.arbitrated.policy import PolicyRequest
from accord.protocols.intro.intents import (
    ChatInput,
    IntentInput,
    IntentPatch,
    JoinInput,
    NetworkInput,
)
from accord.protocols.intro.moves import (
    AnswerRequest,
    QuestionsRequest,
    ResumeRequest,
    TurnRequest,
)
from accord.protocols.intro.opportunities import DecisionInput, DiscoverInput, OpenInput
from accord.protocols.rooms.moves import (
    ConfirmRequest,
    JoinRequest,
    ListRequest,
    MoveRequest,
    OpenRequest,
)
from accord.sdk._adviser_models import (
    AnswerResult,
    Brief,
    Case,
    CaseHistory,
    CaseLink,
    CaseList,
    CaseVersion,
    ChangeSeen,
    Result,
    RunResult,
    Skill,
    SkillList,
)
from accord.sdk._intro_models import (
    AnsweredQuestion,
    Candidates,
    ChatLog,
    ChatPost,
    DecidedOpportunity,
    IntentList,
    IntentView,
    NegotiationList,
    NegotiationView,
    Network,
    NetworkList,
    OpenedOpportunities,
    OpportunityList,
    OpportunityView,
    PrincipalMe,
    QuestionList,
    SelectedAgent,
)
from accord.sdk._models import (
    Applied,
    AwaitingOwner,
    Catalogue,
    Confirmations,
    Decided,
    Handoff,
    Joined,
    Jwks,
    LinkCode,
    Log,
    Me,
    Model,
    Opened,
    Policy,
    PolicyList,
    Receipt,
    Reveals,
    Room,
    RoomList,
    SessionList,
    SessionView,
)
from accord.sdk._webhook_models import (
    Delivery,
    DeliveryList,
    Webhook,
    WebhookKeys,
    WebhookList,
)
from accord.webhooks.requests import RegisterInput, RotateInput, UpdateInput

ResultT = TypeVar("ResultT", bound=Model)


class Retry(StrEnum):
    """When a request may be sent again after it failed on its way or was turned away."""

    SAFE = "safe"
    """It cannot apply twice (a read, a PUT, a move with a `message_id`): sent again after a
    connection error, a timeout, 429, 502, 503 or 504."""
    UNSENT = "unsent"
    """It could apply twice: sent again only when it never left (no connection was made)."""


@dataclass(frozen=True)
class Operation(Generic[ResultT]):
    method: Literal["GET", "POST", "PUT", "PATCH"]
    path: str
    results: Mapping[int, type[ResultT]]
    request: TypeAdapter[Any] | None = field(default=None, compare=False)
    retry: Retry = Retry.SAFE
    text: str | None = None
    """A success answers text, not JSON: the result model's member that holds it."""
    media_type: str = "application/json"
    """What a success answers, asked for with `Accept`; text of another type is no answer."""

    def url(self, params: Mapping[str, str]) -> str:
        """The path with its parameters filled in, each one percent-encoded whole."""
        return self.path.format_map({name: quote(value, safe="") for name, value in params.items()})


# -- rooms (spec/rooms-api.md, Endpoints) ---------------------------------------------------

OPEN_ROOM: Final[Operation[Opened]] = Operation(
    "POST", "/v1/rooms", {201: Opened}, TypeAdapter(OpenRequest), Retry.UNSENT
)
JOIN_ROOM: Final[Operation[Joined]] = Operation(
    "POST", "/v1/rooms/join", {200: Joined}, TypeAdapter(JoinRequest), Retry.UNSENT
)
# A read, though a POST: the tokens travel in the body, never in a URL.
LIST_ROOMS: Final[Operation[RoomList]] = Operation(
    "POST", "/v1/rooms/list", {200: RoomList}, TypeAdapter(ListRequest)
)
SHOW_ROOM: Final[Operation[Room]] = Operation("GET", "/v1/rooms/{room_id}", {200: Room})
# UNSENT, but every move the SDK sends carries a message_id, which makes it SAFE.
MOVE: Final[Operation[Applied | AwaitingOwner]] = Operation(
    "POST",
    "/v1/rooms/{room_id}/moves",
    {200: Applied, 202: AwaitingOwner},
    TypeAdapter(MoveRequest),
    Retry.UNSENT,
)
CONFIRMATIONS: Final[Operation[Confirmations]] = Operation(
    "GET", "/v1/rooms/{room_id}/confirmations", {200: Confirmations}
)
DECIDE: Final[Operation[Decided]] = Operation(
    "POST",
    "/v1/rooms/{room_id}/confirmations/{confirmation_id}",
    {200: Decided},
    TypeAdapter(ConfirmRequest),
    Retry.UNSENT,
)
ROOM_LOG: Final[Operation[Log]] = Operation("GET", "/v1/rooms/{room_id}/log", {200: Log})
ROOM_RECEIPT: Final[Operation[Receipt]] = Operation(
    "GET", "/v1/rooms/{room_id}/receipt", {200: Receipt}
)
# A stream: its frames are read by _events, not by a result model.
ROOM_EVENTS: Final[Operation[Model]] = Operation("GET", "/v1/rooms/{room_id}/events", {})

# -- arbitrated sessions (spec/arbitrated-rest.md, Endpoints) -------------------------------

OPEN_SESSION: Final[Operation[SessionView]] = Operation(
    "POST", "/v1/sessions", {201: SessionView}, TypeAdapter(OpenSessionRequest), Retry.UNSENT
)
LIST_SESSIONS: Final[Operation[SessionList]] = Operation("GET", "/v1/sessions", {200: SessionList})
SHOW_SESSION: Final[Operation[SessionView]] = Operation(
    "GET", "/v1/sessions/{session_id}", {200: SessionView}
)
# As a room's move: SAFE once it carries a message_id (a reveal carries none).
SESSION_MOVE: Final[Operation[SessionView]] = Operation(
    "POST",
    "/v1/sessions/{session_id}/messages",
    {200: SessionView},
    TypeAdapter(SessionMove),
    Retry.UNSENT,
)
SESSION_LOG: Final[Operation[Log]] = Operation("GET", "/v1/sessions/{session_id}/log", {200: Log})
SESSION_RECEIPT: Final[Operation[Receipt]] = Operation(
    "GET", "/v1/sessions/{session_id}/receipt", {200: Receipt}
)
CLAIM_HANDOFF: Final[Operation[Handoff]] = Operation(
    "POST", "/v1/sessions/{session_id}/handoff/claim", {200: Handoff}, retry=Retry.UNSENT
)
PUBLISH_HANDOFF: Final[Operation[Handoff]] = Operation(
    "POST",
    "/v1/sessions/{session_id}/handoff",
    {200: Handoff},
    TypeAdapter(HandoffRequest),
    Retry.UNSENT,
)
MERCHANT_REVEAL: Final[Operation[Reveals]] = Operation(
    "POST",
    "/v1/sessions/{session_id}/reveal",
    {200: Reveals},
    TypeAdapter(RevealRequest),
    Retry.UNSENT,
)

# -- a merchant's own surface ---------------------------------------------------------------

ME: Final[Operation[Me]] = Operation("GET", "/v1/me", {200: Me})
CATALOGUE: Final[Operation[Catalogue]] = Operation("GET", "/v1/catalogue", {200: Catalogue})
POLICIES: Final[Operation[PolicyList]] = Operation("GET", "/v1/policies", {200: PolicyList})
# A PUT replaces the SKU's policy: sending it twice stores the same policy.
PUT_POLICY: Final[Operation[Policy]] = Operation(
    "PUT", "/v1/policies/{sku}", {200: Policy}, TypeAdapter(PolicyRequest)
)

# -- a principal's intro negotiations (spec/intro-api.md, Endpoints) ------------------------


class SelectAgentInput(Strict):
    """`PUT /api/me/agent`'s body; the server checks the id's pattern and that it has a key."""

    agent_id: str


PRINCIPAL_ME: Final[Operation[PrincipalMe]] = Operation("GET", "/api/me", {200: PrincipalMe})
# A PUT: selecting the same agent twice selects it once.
SELECT_AGENT: Final[Operation[SelectedAgent]] = Operation(
    "PUT", "/api/me/agent", {200: SelectedAgent}, TypeAdapter(SelectAgentInput)
)
CREATE_INTENT: Final[Operation[IntentView]] = Operation(
    "POST", "/api/intents", {201: IntentView}, TypeAdapter(IntentInput), Retry.UNSENT
)
LIST_INTENTS: Final[Operation[IntentList]] = Operation("GET", "/api/intents", {200: IntentList})
SHOW_INTENT: Final[Operation[IntentView]] = Operation(
    "GET", "/api/intents/{intent_id}", {200: IntentView}
)
# A PATCH sets the members it names: sending it twice sets them once.
EDIT_INTENT: Final[Operation[IntentView]] = Operation(
    "PATCH", "/api/intents/{intent_id}", {200: IntentView}, TypeAdapter(IntentPatch)
)
POST_CHAT: Final[Operation[ChatPost]] = Operation(
    "POST", "/api/intents/{intent_id}/chat", {201: ChatPost}, TypeAdapter(ChatInput), Retry.UNSENT
)
READ_CHAT: Final[Operation[ChatLog]] = Operation(
    "GET", "/api/intents/{intent_id}/chat", {200: ChatLog}
)
CREATE_NETWORK: Final[Operation[Network]] = Operation(
    "POST", "/api/networks", {201: Network}, TypeAdapter(NetworkInput), Retry.UNSENT
)
LIST_NETWORKS: Final[Operation[NetworkList]] = Operation("GET", "/api/networks", {200: NetworkList})
# Joining again changes nothing.
JOIN_NETWORK: Final[Operation[Network]] = Operation(
    "POST", "/api/networks/join", {200: Network}, TypeAdapter(JoinInput)
)
# A read, though a POST.
DISCOVER: Final[Operation[Candidates]] = Operation(
    "POST", "/api/intents/{intent_id}/discover", {200: Candidates}, TypeAdapter(DiscoverInput)
)
# One opportunity per pair, ever: opening again returns it unchanged.
OPEN_OPPORTUNITIES: Final[Operation[OpenedOpportunities]] = Operation(
    "POST",
    "/api/intents/{intent_id}/opportunities",
    {200: OpenedOpportunities},
    TypeAdapter(OpenInput),
)
LIST_OPPORTUNITIES: Final[Operation[OpportunityList]] = Operation(
    "GET", "/api/opportunities", {200: OpportunityList}
)
SHOW_OPPORTUNITY: Final[Operation[OpportunityView]] = Operation(
    "GET", "/api/opportunities/{opportunity_id}", {200: OpportunityView}
)
SHOW_NEGOTIATION: Final[Operation[NegotiationView]] = Operation(
    "GET", "/api/opportunities/{opportunity_id}/negotiation", {200: NegotiationView}
)
# A rejection sent twice is refused the second time (`opportunity_final`): sent once.
DECIDE_OPPORTUNITY: Final[Operation[DecidedOpportunity]] = Operation(
    "PATCH",
    "/api/opportunities/{opportunity_id}/status",
    {200: DecidedOpportunity},
    TypeAdapter(DecisionInput),
    Retry.UNSENT,
)
# SAFE once it carries a message_id, which every turn the SDK sends does.
TAKE_TURN: Final[Operation[NegotiationView]] = Operation(
    "POST",
    "/api/opportunities/{opportunity_id}/negotiation/turns",
    {200: NegotiationView},
    TypeAdapter(TurnRequest),
    Retry.UNSENT,
)
RESUME: Final[Operation[NegotiationView]] = Operation(
    "POST",
    "/api/opportunities/{opportunity_id}/negotiation/resume",
    {200: NegotiationView},
    TypeAdapter(ResumeRequest),
    Retry.UNSENT,
)
ASK: Final[Operation[QuestionList]] = Operation(
    "POST",
    "/api/opportunities/{opportunity_id}/negotiation/questions",
    {201: QuestionList},
    TypeAdapter(QuestionsRequest),
    Retry.UNSENT,
)
QUESTIONS: Final[Operation[QuestionList]] = Operation(
    "GET", "/api/opportunities/{opportunity_id}/negotiation/questions", {200: QuestionList}
)
ANSWER: Final[Operation[AnsweredQuestion]] = Operation(
    "POST",
    "/api/opportunities/{opportunity_id}/negotiation/questions/{question_id}/answer",
    {200: AnsweredQuestion},
    TypeAdapter(AnswerRequest),
    Retry.UNSENT,
)
NEGOTIATION_LOG: Final[Operation[Log]] = Operation(
    "GET", "/api/opportunities/{opportunity_id}/negotiation/log", {200: Log}
)
NEGOTIATION_RECEIPT: Final[Operation[Receipt]] = Operation(
    "GET", "/api/opportunities/{opportunity_id}/negotiation/receipt", {200: Receipt}
)
LIST_NEGOTIATIONS: Final[Operation[NegotiationList]] = Operation(
    "GET", "/api/negotiations", {200: NegotiationList}
)

# -- the adviser (spec/adviser-api.md) -------------------------------------------------------

CASES: Final = "/v1/adviser/cases"
CASE: Final = CASES + "/{case_id}"
OPEN_CASE: Final[Operation[Case]] = Operation(
    "POST", CASES, {201: Case}, TypeAdapter(CaseInput), Retry.UNSENT
)
LIST_CASES: Final[Operation[CaseList]] = Operation("GET", CASES, {200: CaseList})
SHOW_CASE: Final[Operation[Case]] = Operation("GET", CASE, {200: Case})
CASE_VERSION: Final[Operation[CaseVersion]] = Operation(
    "GET", CASE + "/versions/{number}", {200: CaseVersion}
)
CASE_HISTORY: Final[Operation[CaseHistory]] = Operation(
    "GET", CASE + "/history", {200: CaseHistory}
)
EXPORT_CASE: Final[Operation[Brief]] = Operation(
    "GET", CASE + "/export", {200: Brief}, text="markdown", media_type="text/markdown"
)
PATCH_CASE: Final[Operation[Result]] = Operation(
    "POST", CASE + "/patches", {200: Result}, TypeAdapter(PatchSet), Retry.UNSENT
)
ANSWER_CASE: Final[Operation[AnswerResult]] = Operation(
    "POST", CASE + "/answers", {200: AnswerResult}, TypeAdapter(AnswerInput), Retry.UNSENT
)
REVIEW_OFFER: Final[Operation[RunResult]] = Operation(
    "POST", CASE + "/deal-review", {200: RunResult}, TypeAdapter(ReviewInput), Retry.UNSENT
)
OVERRIDE_REVIEW: Final[Operation[Result]] = Operation(
    "POST", CASE + "/deal-review/override", {200: Result}, TypeAdapter(OverrideInput),
    Retry.UNSENT,
)  # fmt: skip
# Marking a change seen twice marks it once.
SEE_CHANGE: Final[Operation[ChangeSeen]] = Operation(
    "POST", CASE + "/material-changes/{change_id}/seen", {200: ChangeSeen}, TypeAdapter(Empty)
)
CLOSE_CASE: Final[Operation[Result]] = Operation(
    "POST", CASE + "/close", {200: Result}, TypeAdapter(CloseInput), Retry.UNSENT
)
RUN_SKILL: Final[Operation[RunResult]] = Operation(
    "POST", CASE + "/skills/{skill_id}/runs", {200: RunResult}, TypeAdapter(RunInput),
    Retry.UNSENT,
)  # fmt: skip
RECONCILE: Final[Operation[Result]] = Operation(
    "POST", CASE + "/findings/{finding_id}", {200: Result}, TypeAdapter(ReconcileInput),
    Retry.UNSENT,
)  # fmt: skip
LINK_CASE: Final[Operation[CaseLink]] = Operation(
    "POST", CASE + "/links", {201: CaseLink}, TypeAdapter(LinkInput), Retry.UNSENT
)
LIST_SKILLS: Final[Operation[SkillList]] = Operation("GET", "/v1/adviser/skills", {200: SkillList})
# Declaring a skill again replaces it with the same.
DECLARE_SKILL: Final[Operation[Skill]] = Operation(
    "POST", "/v1/adviser/skills", {201: Skill, 200: Skill}, TypeAdapter(Declaration)
)

# -- trust ----------------------------------------------------------------------------------

JWKS: Final[Operation[Jwks]] = Operation("GET", "/.well-known/jwks.json", {200: Jwks})

# -- link codes ------------------------------------------------------------------------------

MAKE_LINK: Final[Operation[LinkCode]] = Operation(
    "POST", "/v1/links", {201: LinkCode}, TypeAdapter(Empty), Retry.UNSENT
)

# -- webhooks (docs/webhooks.md) ------------------------------------------------------------

WEBHOOKS: Final = "/v1/webhooks"
WEBHOOK: Final = WEBHOOKS + "/{webhook_id}"
REGISTER_WEBHOOK: Final[Operation[Webhook]] = Operation(
    "POST", WEBHOOKS, {201: Webhook}, TypeAdapter(RegisterInput), Retry.UNSENT
)
LIST_WEBHOOKS: Final[Operation[WebhookList]] = Operation("GET", WEBHOOKS, {200: WebhookList})
SHOW_WEBHOOK: Final[Operation[Webhook]] = Operation("GET", WEBHOOK, {200: Webhook})
# The same change twice leaves the endpoint as the first made it.
UPDATE_WEBHOOK: Final[Operation[Webhook]] = Operation(
    "PATCH", WEBHOOK, {200: Webhook}, TypeAdapter(UpdateInput)
)
ROTATE_WEBHOOK: Final[Operation[Webhook]] = Operation(
    "POST", WEBHOOK + "/rotate", {200: Webhook}, TypeAdapter(RotateInput), Retry.UNSENT
)
TEST_WEBHOOK: Final[Operation[Delivery]] = Operation(
    "POST", WEBHOOK + "/test", {202: Delivery}, retry=Retry.UNSENT
)
LIST_DELIVERIES: Final[Operation[DeliveryList]] = Operation(
    "GET", WEBHOOK + "/deliveries", {200: DeliveryList}
)
# Sending an event again twice sends it again, with the same webhook-id a receiver dedupes on.
RETRY_DELIVERY: Final[Operation[Delivery]] = Operation(
    "POST", WEBHOOK + "/deliveries/{event_id}/retry", {202: Delivery}
)
WEBHOOK_KEYS: Final[Operation[WebhookKeys]] = Operation(
    "GET", "/.well-known/webhook-keys.json", {200: WebhookKeys}
)

"""Every operation's answers, in one table: the bodies it answers with on success, and the
refusals only it can give. What a route shares with others (its credential, its body, its
query) adds its own refusals, so that a refusal's status is documented exactly where it can
be answered, from `STATUS_BY_CODE`."""

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts
from pydantic import BaseModel
from starlette.routing import BaseRoute

from accord.app import answers
from accord.core.refusals import RefusalCode as C
from accord.http import (
    adviser,
    auth,
    intents,
    links,
    merchants,
    opportunities,
    principals,
    rooms,
    sessions,
    webhooks,
)
from accord.protocols.arbitrated.moves import HandoffRequest
from accord.protocols.rooms.views import RoomView

Codes = frozenset[C]


@dataclass(frozen=True)
class Operation:
    answers: Mapping[int, type[BaseModel] | None]
    """Success status → the body's model (None: not JSON, described by the route)."""
    refuses: Codes = field(default_factory=frozenset)
    """The refusals of this operation itself, beyond its credential's, body's and query's."""


EVERY: Final[Codes] = frozenset({C.PAYLOAD_TOO_LARGE})
"""A Content-Length above the limit is refused before any route is found."""

BODY: Final[Codes] = frozenset({C.INVALID_REQUEST, C.REQUEST_TIMEOUT})
PARAMETERS: Final[Codes] = frozenset({C.INVALID_REQUEST})

_ROOM_SEAT: Final = frozenset({C.UNAUTHENTICATED, C.FORBIDDEN, C.ROOM_NOT_FOUND})
_SESSION: Final = frozenset({C.UNAUTHENTICATED, C.FORBIDDEN, C.SESSION_NOT_FOUND})
_KEY: Final = frozenset({C.UNAUTHENTICATED, C.FORBIDDEN})
_SEATED: Final = frozenset({C.NOT_FOUND, C.NOT_A_SEAT})
_WEBHOOK: Final = frozenset({C.WEBHOOK_NOT_FOUND})

BY_DEPENDENCY: Final[Mapping[Callable[..., Any], Codes]] = {
    auth.public: frozenset({C.RATE_LIMITED}),
    auth.bearer: frozenset({C.RATE_LIMITED}),
    auth.api_key: frozenset({C.RATE_LIMITED, C.UNAUTHENTICATED}),
    rooms.seat_token: _ROOM_SEAT,
    rooms.owner_token: _ROOM_SEAT,
    sessions.buyer_token: _SESSION,
    sessions.reader_token: _SESSION,
    sessions.merchant_token: _SESSION,
    webhooks.scope: _KEY,
    links.person: _KEY,
    sessions.opener_token: _KEY,
    sessions.secret_token: _KEY,
    merchants.any_key: _KEY,
    merchants.secret_key: _KEY,
    principals.reader: _KEY | {C.EXECUTOR_CHANGED},
    principals.owner: _KEY | {C.EXECUTOR_CHANGED},
    intents.intent_reader: _KEY | {C.NOT_FOUND},
    intents.intent_owner: _KEY | {C.NOT_FOUND},
    adviser.case_reader: _KEY | {C.NOT_FOUND, C.EXECUTOR_CHANGED},
    adviser.case_owner: _KEY | {C.NOT_FOUND, C.EXECUTOR_CHANGED},
    opportunities.turn_taker: _KEY | {C.NOT_FOUND, C.NOT_A_SEAT},
    opportunities.decider: _KEY | {C.NOT_FOUND, C.NOT_A_SEAT},
    opportunities.seat_reader: _KEY | {C.NOT_FOUND, C.NOT_A_SEAT},
}
"""What a credential dependency refuses (a rate limit comes with every credential)."""

_ROOM_MOVE: Final = frozenset(
    {
        C.INVALID_TERMS,
        C.INVALID_DEADLINE,
        C.OUTSIDE_OWN_LIMITS,
        C.NO_CHANGE,
        C.NOT_YOUR_TURN,
        C.MOVE_NOT_ALLOWED,
        C.STALE_TERMS,
        C.RACED,
        C.CONFIRMATION_PENDING,
        C.ROOM_FINAL,
        C.MESSAGE_ID_REUSED,
    }
)
_BUYER_MOVE: Final = frozenset(
    {
        C.SESSION_ENDED,
        C.SESSION_OPEN,
        C.NOT_YOUR_TURN,
        C.NOTHING_TO_ACCEPT,
        C.NON_MONOTONIC,
        C.PRICE_NOT_ABOVE_INCLUSIONS,
        C.UNATTESTED_INCLUSION,
        C.MESSAGE_ID_REUSED,
    }
)

OPERATIONS: Final[Mapping[str, Operation]] = {
    # rooms
    "POST /v1/rooms": Operation(
        {201: answers.OpenedRoom},
        frozenset({C.INVALID_TERMS, C.INVALID_DEADLINE, C.OUTSIDE_OWN_LIMITS}),
    ),
    "POST /v1/rooms/join": Operation({200: answers.JoinedRoom}, frozenset({C.INVITE_INVALID})),
    "POST /v1/rooms/list": Operation({200: answers.RoomList}),
    "GET /v1/rooms/{room_id}": Operation({200: RoomView}),
    "POST /v1/rooms/{room_id}/moves": Operation(
        {200: answers.Played, 202: answers.AwaitingConfirmation}, _ROOM_MOVE
    ),
    "GET /v1/rooms/{room_id}/confirmations": Operation({200: answers.Confirmations}),
    "POST /v1/rooms/{room_id}/confirmations/{confirmation_id}": Operation(
        {200: answers.Decided},
        frozenset({C.CONFIRMATION_NOT_FOUND, C.ROOM_FINAL, C.FORBIDDEN}),
    ),
    "GET /v1/rooms/{room_id}/log": Operation({200: answers.Log}),
    "GET /v1/rooms/{room_id}/receipt": Operation(
        {200: answers.RoomReceipt}, frozenset({C.ROOM_OPEN})
    ),
    "GET /v1/rooms/{room_id}/events": Operation({200: None}, _ROOM_SEAT),
    # arbitrated sessions
    "POST /v1/sessions": Operation(
        {201: answers.SessionView},
        frozenset({C.SKU_NOT_FOUND, C.CURRENCY_MISMATCH, C.UNKNOWN_FAIRNESS_PROFILE}),
    ),
    "GET /v1/sessions": Operation({200: answers.SessionList}),
    "GET /v1/sessions/{session_id}": Operation({200: answers.SessionView}),
    "POST /v1/sessions/{session_id}/messages": Operation({200: answers.SessionView}, _BUYER_MOVE),
    "GET /v1/sessions/{session_id}/log": Operation({200: answers.Log}),
    "GET /v1/sessions/{session_id}/receipt": Operation(
        {200: answers.Receipt}, frozenset({C.SESSION_OPEN})
    ),
    "POST /v1/sessions/{session_id}/handoff/claim": Operation(
        {200: answers.ClaimedHandoff}, frozenset({C.NOT_AGREED, C.HANDOFF_PENDING})
    ),
    "POST /v1/sessions/{session_id}/handoff": Operation(
        {200: HandoffRequest}, frozenset({C.NOT_AGREED, C.HANDOFF_PUBLISHED})
    ),
    "POST /v1/sessions/{session_id}/reveal": Operation(
        {200: answers.Reveals}, frozenset({C.SESSION_OPEN, C.FORBIDDEN})
    ),
    # merchants and principals
    "GET /v1/me": Operation({200: answers.MerchantMe}),
    "GET /v1/catalogue": Operation({200: answers.Catalogue}),
    "GET /v1/policies": Operation({200: answers.Policies}),
    "PUT /v1/policies/{sku}": Operation({200: answers.StoredPolicy}),
    "GET /api/me": Operation({200: answers.PrincipalMe}),
    "PUT /api/me/agent": Operation({200: answers.AgentSelected}),
    "GET /api/events": Operation({200: None}),
    # intents, their chat and networks
    "POST /api/intents": Operation({201: answers.IntentAnswer}),
    "GET /api/intents": Operation({200: answers.IntentList}),
    "GET /api/intents/{intent_id}": Operation({200: answers.IntentAnswer}),
    "PATCH /api/intents/{intent_id}": Operation(
        {200: answers.IntentAnswer}, frozenset({C.INTENT_INACTIVE})
    ),
    "POST /api/intents/{intent_id}/chat": Operation(
        {201: answers.ChatPosted}, frozenset({C.INTENT_INACTIVE})
    ),
    "GET /api/intents/{intent_id}/chat": Operation({200: answers.ChatMessages}),
    "POST /api/intents/{intent_id}/discover": Operation(
        {200: answers.Candidates}, frozenset({C.INTENT_INACTIVE})
    ),
    "POST /api/intents/{intent_id}/opportunities": Operation(
        {200: answers.OpenedOpportunities}, frozenset({C.INTENT_INACTIVE})
    ),
    "GET /api/opportunities": Operation({200: answers.Opportunities}),
    "GET /api/opportunities/{opportunity_id}": Operation({200: answers.SeatOpportunity}, _SEATED),
    "GET /api/opportunities/{opportunity_id}/negotiation": Operation(
        {200: answers.SeatNegotiation}, _SEATED
    ),
    "POST /api/opportunities/{opportunity_id}/negotiation/resume": Operation(
        {200: answers.SeatNegotiation},
        frozenset(
            {
                C.SETTLED,
                C.INTENT_INACTIVE,
                C.MOVE_NOT_ALLOWED,
                C.NEEDS_PRINCIPAL,
                C.EXECUTOR_CHANGED,
                C.NO_NEW_CONTEXT,
            }
        ),
    ),
    "POST /api/opportunities/{opportunity_id}/negotiation/questions": Operation(
        {201: answers.AskedQuestions},
        frozenset({C.SETTLED, C.NEEDS_PRINCIPAL, C.EXECUTOR_CHANGED}),
    ),
    "GET /api/opportunities/{opportunity_id}/negotiation/questions": Operation(
        {200: answers.AskedQuestions}, _SEATED
    ),
    "POST /api/opportunities/{opportunity_id}/negotiation/questions/{question_id}/answer": (
        Operation({200: answers.AnsweredQuestion}, frozenset({C.MOVE_NOT_ALLOWED}))
    ),
    "GET /api/opportunities/{opportunity_id}/negotiation/log": Operation(
        {200: answers.Log}, _SEATED
    ),
    "GET /api/opportunities/{opportunity_id}/negotiation/receipt": Operation(
        {200: answers.IntroReceipt}, _SEATED | {C.NEGOTIATION_OPEN}
    ),
    "GET /api/negotiations": Operation({200: answers.NegotiationList}),
    "PATCH /api/opportunities/{opportunity_id}/status": Operation(
        {200: answers.OpportunityAnswer}, frozenset({C.OPPORTUNITY_FINAL})
    ),
    "POST /api/opportunities/{opportunity_id}/negotiation/turns": Operation(
        {200: answers.SeatNegotiation},
        frozenset(
            {
                C.MESSAGE_ID_REUSED,
                C.SETTLED,
                C.INTENT_INACTIVE,
                C.ROUND_OVER,
                C.NEEDS_PRINCIPAL,
                C.EXECUTOR_CHANGED,
                C.NOT_YOUR_TURN,
                C.RACED,
                C.MOVE_NOT_ALLOWED,
                C.REPEATED_MESSAGE,
            }
        ),
    ),
    "POST /api/networks": Operation({201: answers.NetworkCreated}),
    "GET /api/networks": Operation({200: answers.Networks}),
    "POST /api/networks/join": Operation({200: answers.Network}, frozenset({C.NOT_FOUND})),
    # the adviser
    "POST /v1/adviser/cases": Operation({201: answers.Case}),
    "GET /v1/adviser/cases": Operation({200: answers.Cases}),
    "GET /v1/adviser/events": Operation({200: None}),
    "GET /v1/adviser/cases/{case_id}": Operation({200: answers.Case}),
    "GET /v1/adviser/cases/{case_id}/versions/{number}": Operation({200: answers.CaseVersion}),
    "GET /v1/adviser/cases/{case_id}/history": Operation({200: answers.CaseHistory}),
    "GET /v1/adviser/cases/{case_id}/export": Operation({200: None}),
    "POST /v1/adviser/cases/{case_id}/patches": Operation(
        {200: answers.PatchResult}, frozenset({C.CASE_CLOSED})
    ),
    "POST /v1/adviser/cases/{case_id}/answers": Operation(
        {200: answers.AnswerResult}, frozenset({C.NOT_FOUND, C.CASE_CLOSED, C.QUESTION_NOT_OPEN})
    ),
    "POST /v1/adviser/cases/{case_id}/material-changes/{change_id}/seen": Operation(
        {200: answers.ChangeSeen}, frozenset({C.NOT_FOUND, C.CASE_CLOSED})
    ),
    "POST /v1/adviser/cases/{case_id}/deal-review": Operation(
        {200: answers.ReviewResult}, frozenset({C.CASE_CLOSED})
    ),
    "POST /v1/adviser/cases/{case_id}/deal-review/override": Operation(
        {200: answers.PatchResult}, frozenset({C.CASE_CLOSED, C.NOTHING_TO_OVERRIDE})
    ),
    "POST /v1/adviser/cases/{case_id}/close": Operation(
        {200: answers.PatchResult}, frozenset({C.CASE_CLOSED})
    ),
    "POST /v1/adviser/cases/{case_id}/skills/{skill_id}/runs": Operation(
        {200: answers.RunResult}, frozenset({C.NOT_FOUND, C.CASE_CLOSED, C.NOT_LINKED})
    ),
    "POST /v1/adviser/cases/{case_id}/findings/{finding_id}": Operation(
        {200: answers.PatchResult}, frozenset({C.NOT_FOUND, C.CASE_CLOSED, C.FINDING_FINAL})
    ),
    "POST /v1/adviser/cases/{case_id}/links": Operation(
        {201: answers.Link},
        frozenset({C.NOT_FOUND, C.FORBIDDEN, C.CASE_CLOSED, C.ALREADY_LINKED}),
    ),
    "GET /v1/adviser/skills": Operation({200: answers.Skills}),
    # webhooks
    "POST /v1/webhooks": Operation({201: answers.Webhook}),
    "GET /v1/webhooks": Operation({200: answers.Webhooks}),
    "GET /v1/webhooks/{webhook_id}": Operation({200: answers.Webhook}, _WEBHOOK),
    "PATCH /v1/webhooks/{webhook_id}": Operation({200: answers.Webhook}, _WEBHOOK),
    "POST /v1/webhooks/{webhook_id}/rotate": Operation({200: answers.Webhook}, _WEBHOOK),
    "POST /v1/webhooks/{webhook_id}/test": Operation({202: answers.Delivery}, _WEBHOOK),
    "GET /v1/webhooks/{webhook_id}/deliveries": Operation({200: answers.Deliveries}, _WEBHOOK),
    "POST /v1/webhooks/{webhook_id}/deliveries/{event_id}/retry": Operation(
        {202: answers.Delivery}, _WEBHOOK
    ),
    "GET /.well-known/webhook-keys.json": Operation({200: answers.WebhookKeys}),
    # link codes
    "POST /v1/links": Operation({201: answers.LinkCode}),
    "POST /v1/adviser/skills": Operation({201: answers.Skill, 200: answers.Skill}),
    # the server
    "GET /.well-known/jwks.json": Operation({200: answers.Jwks}),
    "GET /healthz": Operation({200: answers.Health}),
    "GET /.well-known/ucp": Operation({200: answers.UcpProfile}),
    "GET /ucp/negotiation/spec": Operation({200: None}),
    "GET /ucp/negotiation/schema.json": Operation({200: None}),
    "GET /ucp/negotiation/openapi.json": Operation({200: None}),
}


def api_routes(routes: Sequence[BaseRoute | RouteContext]) -> Iterator[tuple[str, APIRoute]]:
    """Every `METHOD path` an app's routes answer, with its route (included routers'
    routes too, which FastAPI keeps inside the router it includes)."""
    for context in iter_route_contexts(routes):
        route = context.original_route
        if isinstance(route, APIRoute):
            for method in sorted(context.methods or ()):
                yield f"{method} {context.path}", route


def refusals(route: APIRoute, operation: Operation) -> Codes:
    """Every refusal the route can answer: its own, its credential's, its body's, its query's
    and its path's (a number in the path that is not one)."""
    codes = set(EVERY | operation.refuses)
    for call in _calls(route.dependant):
        codes |= BY_DEPENDENCY.get(call, frozenset())
    if route.body_field is not None:
        codes |= BODY
    typed_path = any(p.field_info.annotation is not str for p in route.dependant.path_params)
    if route.dependant.query_params or route.dependant.header_params or typed_path:
        codes |= PARAMETERS
    return frozenset(codes)


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for sub in dependant.dependencies:
        if sub.call is not None:
            yield sub.call
        yield from _calls(sub)

"""Who may call what: every route the app answers, against every kind of credential → the status
its credential check gives (`ok` once the check lets it through, whatever the route then
says of the request). A route without a row fails, as does a kind that gains or loses access.

A room route is called on the room the seat and owner tokens belong to, a session route on
the session of the session token and of the merchant's keys; the invite is a draft room's; an
intent route on the intent of the principal's keys."""

from collections.abc import Iterator, Sequence
from typing import Final

import httpx
import pytest
from fastapi.routing import iter_route_contexts
from starlette.routing import BaseRoute

from accord.app.identity import CredentialKind
from tests.conftest import LiveServer
from tests.http.credentials import Credentials, make_credentials

OK: Final = "ok"
NONE: Final = "none"
UNKNOWN: Final = "unknown"
K = CredentialKind
RIVAL: Final = "rival_secret"
"""Another tenant's secret key: a session it does not own is not found."""
KINDS: Final = (NONE, UNKNOWN, *(str(kind) for kind in CredentialKind), RIVAL)


def row(default: int | str, **allowed: int | str) -> dict[str, int | str]:
    """`default` for every kind but no credential and an unknown one (401) and those named."""
    kinds = [*map(str, CredentialKind), RIVAL]
    return {NONE: 401, UNKNOWN: 401} | dict.fromkeys(kinds, default) | allowed


Expected = dict[str, int | str]
PUBLIC: Final[Expected] = dict.fromkeys(KINDS, OK)
SEAT: Final = row(403, seat=OK, owner=OK)
OWNER: Final = row(403, owner=OK)
SECRET: Final = row(403, secret=OK, rival_secret=OK)
SESSION_SECRET: Final = row(403, secret=OK, rival_secret=404)
READER: Final = row(403, session=OK, secret=OK, rival_secret=404)
BUYER: Final = row(403, session=OK)
OPENER: Final = row(403, publishable=OK, secret=OK, rival_secret=OK)
MERCHANT_ANY: Final = row(403, publishable=OK, secret=OK, rival_secret=OK)
MERCHANT_SECRET: Final = row(403, publishable=403, secret=OK, rival_secret=OK)
PRINCIPAL: Final = row(403, principal_owner=OK, principal_agent=OK)
PRINCIPAL_OWNER: Final = row(403, principal_owner=OK)
PRINCIPAL_AGENT: Final = row(403, principal_agent=OK)
AUDIENCE: Final = row(
    403, seat=OK, owner=OK, secret=OK, rival_secret=OK, principal_owner=OK, principal_agent=OK
)
"""Any credential with an event stream of its own may keep webhook endpoints for it."""
PERSON: Final = row(403, owner=OK, session=OK, principal_owner=OK)
"""A person's own credential may be handed on with a link code."""

MATRIX: Final[dict[str, Expected]] = {
    "POST /v1/rooms": PUBLIC,
    "POST /v1/rooms/join": PUBLIC,
    "POST /v1/rooms/list": PUBLIC,
    "GET /v1/rooms/{room_id}": SEAT,
    "POST /v1/rooms/{room_id}/moves": SEAT,
    "GET /v1/rooms/{room_id}/confirmations": OWNER,
    "POST /v1/rooms/{room_id}/confirmations/{confirmation_id}": OWNER,
    "GET /v1/rooms/{room_id}/log": SEAT,
    "GET /v1/rooms/{room_id}/receipt": SEAT,
    "GET /v1/rooms/{room_id}/events": SEAT,
    "POST /v1/sessions": OPENER,
    "GET /v1/sessions": SECRET,
    "GET /v1/sessions/{session_id}": READER,
    "POST /v1/sessions/{session_id}/messages": BUYER,
    "GET /v1/sessions/{session_id}/log": READER,
    "GET /v1/sessions/{session_id}/receipt": READER,
    "POST /v1/sessions/{session_id}/handoff/claim": BUYER,
    "POST /v1/sessions/{session_id}/handoff": SESSION_SECRET,
    "POST /v1/sessions/{session_id}/reveal": SESSION_SECRET,
    "GET /v1/me": MERCHANT_ANY,
    "GET /v1/catalogue": MERCHANT_ANY,
    "GET /v1/policies": MERCHANT_SECRET,
    "PUT /v1/policies/{sku}": MERCHANT_SECRET,
    "GET /api/me": PRINCIPAL,
    "PUT /api/me/agent": PRINCIPAL_OWNER,
    "GET /api/events": PRINCIPAL,
    "POST /api/intents": PRINCIPAL_OWNER,
    "GET /api/intents": PRINCIPAL,
    "GET /api/intents/{intent_id}": PRINCIPAL,
    "PATCH /api/intents/{intent_id}": PRINCIPAL_OWNER,
    "POST /api/intents/{intent_id}/chat": PRINCIPAL,
    "GET /api/intents/{intent_id}/chat": PRINCIPAL,
    "POST /api/intents/{intent_id}/discover": PRINCIPAL,
    "POST /api/intents/{intent_id}/opportunities": PRINCIPAL,
    "GET /api/opportunities": PRINCIPAL,
    "GET /api/opportunities/{opportunity_id}": PRINCIPAL,
    "GET /api/opportunities/{opportunity_id}/negotiation": PRINCIPAL,
    "POST /api/opportunities/{opportunity_id}/negotiation/turns": PRINCIPAL_AGENT,
    "PATCH /api/opportunities/{opportunity_id}/status": PRINCIPAL_OWNER,
    "POST /api/opportunities/{opportunity_id}/negotiation/resume": PRINCIPAL,
    "POST /api/opportunities/{opportunity_id}/negotiation/questions": PRINCIPAL_AGENT,
    "GET /api/opportunities/{opportunity_id}/negotiation/questions": PRINCIPAL,
    "POST /api/opportunities/{opportunity_id}/negotiation/questions/{question_id}/answer": (
        PRINCIPAL_OWNER
    ),
    "GET /api/opportunities/{opportunity_id}/negotiation/log": PRINCIPAL,
    "GET /api/opportunities/{opportunity_id}/negotiation/receipt": PRINCIPAL,
    "GET /api/negotiations": PRINCIPAL,
    "POST /api/networks": PRINCIPAL_OWNER,
    "GET /api/networks": PRINCIPAL,
    "POST /api/networks/join": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases": PRINCIPAL_OWNER,
    "GET /v1/adviser/cases": PRINCIPAL,
    "GET /v1/adviser/events": PRINCIPAL,
    "GET /v1/adviser/cases/{case_id}": PRINCIPAL,
    "GET /v1/adviser/cases/{case_id}/versions/{number}": PRINCIPAL,
    "GET /v1/adviser/cases/{case_id}/history": PRINCIPAL,
    "GET /v1/adviser/cases/{case_id}/export": PRINCIPAL,
    "POST /v1/adviser/cases/{case_id}/patches": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases/{case_id}/answers": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases/{case_id}/material-changes/{change_id}/seen": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases/{case_id}/deal-review": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases/{case_id}/deal-review/override": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases/{case_id}/close": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases/{case_id}/skills/{skill_id}/runs": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases/{case_id}/findings/{finding_id}": PRINCIPAL_OWNER,
    "POST /v1/adviser/cases/{case_id}/links": PRINCIPAL_OWNER,
    "GET /v1/adviser/skills": PRINCIPAL,
    "POST /v1/adviser/skills": PRINCIPAL_OWNER,
    "POST /v1/webhooks": AUDIENCE,
    "GET /v1/webhooks": AUDIENCE,
    "GET /v1/webhooks/{webhook_id}": AUDIENCE,
    "PATCH /v1/webhooks/{webhook_id}": AUDIENCE,
    "POST /v1/webhooks/{webhook_id}/rotate": AUDIENCE,
    "POST /v1/webhooks/{webhook_id}/test": AUDIENCE,
    "GET /v1/webhooks/{webhook_id}/deliveries": AUDIENCE,
    "POST /v1/webhooks/{webhook_id}/deliveries/{event_id}/retry": AUDIENCE,
    "GET /.well-known/webhook-keys.json": PUBLIC,
    "POST /v1/links": PERSON,
    "GET /.well-known/jwks.json": PUBLIC,
    "GET /healthz": PUBLIC,
    "GET /openapi.json": PUBLIC,
    "GET /docs": PUBLIC,
    "GET /docs/oauth2-redirect": PUBLIC,
    "GET /redoc": PUBLIC,
    **{
        f"GET {path}{slash}": PUBLIC
        for path in (
            "/.well-known/ucp",
            "/ucp/negotiation/spec",
            "/ucp/negotiation/schema.json",
            "/ucp/negotiation/openapi.json",
        )
        for slash in ("", "/")
    },
}


NOT_YOURS: Final = '"code":"session_not_found"'


def answered(routes: Sequence[BaseRoute]) -> Iterator[str]:
    """`METHOD path` for every route with methods (a mount of static files has none)."""
    for context in iter_route_contexts(routes):
        for method in sorted(set(context.methods or ()) - {"HEAD"}):
            yield f"{method} {context.path}"


@pytest.fixture(scope="module")
def credentials(shared_server: LiveServer, client: httpx.Client) -> Credentials:
    return make_credentials(shared_server, client, "matrix")


@pytest.fixture(scope="module")
def rival(shared_server: LiveServer, client: httpx.Client) -> Credentials:
    return make_credentials(shared_server, client, "matrix-rival")


def token_of(kind: str, creds: Credentials, rival: Credentials) -> str | None:
    return {
        NONE: None,
        UNKNOWN: "acc_unknown_0000000000000000000000",
        K.SEAT: creds.room.opener_seat,
        K.OWNER: creds.room.opener_owner,
        K.INVITE: creds.draft.invite,
        K.SESSION: creds.session_token,
        K.PUBLISHABLE: creds.merchant["publishable_test"],
        K.SECRET: creds.merchant["secret_test"],
        K.PRINCIPAL_OWNER: creds.principal_owner,
        K.PRINCIPAL_AGENT: creds.principal_agent,
        RIVAL: rival.merchant["secret_test"],
    }[kind]


def test_every_route_has_a_row_and_every_row_a_route(shared_server: LiveServer) -> None:
    from accord.http.app import create_app

    routes = list(create_app(shared_server.settings).routes)
    assert sorted(answered(routes)) == sorted(MATRIX)
    assert all(set(row) == set(KINDS) for row in MATRIX.values())


@pytest.mark.parametrize("operation", sorted(MATRIX))
def test_who_may_call_what(
    operation: str, credentials: Credentials, rival: Credentials, client: httpx.Client
) -> None:
    method, path = operation.split(" ", 1)
    url = path.format(
        room_id=credentials.room.room_id,
        session_id=credentials.session_id,
        confirmation_id="cnf_none",
        sku=credentials.sku,
        intent_id=credentials.intent_id,
        opportunity_id=credentials.opportunity_id,
        question_id="q_none",
        case_id=credentials.case_id,
        number=1,
        change_id="chg_none",
        finding_id="fnd_none",
        skill_id="F04",
        webhook_id="whk_none",
        event_id="evt_none",
    )
    got = {}
    for kind in KINDS:
        token = token_of(kind, credentials, rival)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        body: dict[str, object] | None = {} if method in ("POST", "PUT", "PATCH") else None
        with client.stream(method, url, headers=headers, json=body) as response:
            status = response.status_code
            code = response.read().decode() if status == 404 else ""
        got[kind] = status if status in (401, 403) else OK
        if status == 404 and NOT_YOURS in code:  # the path names what another owns
            got[kind] = 404
    assert got == MATRIX[operation]

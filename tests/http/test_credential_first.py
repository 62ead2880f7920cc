"""Credential and permission come before the body, on every route: a wrong-kind credential
with an invalid body gets the credential's refusal, never `invalid_request`; every 401 names
the Bearer scheme; and a path with a trailing slash is `not_found` with the one error body."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

import httpx
import pytest

from accord.app.merchants import Merchants
from accord.app.principals import Principals
from accord.app.settings import Settings
from accord.http.app import create_app
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import Room, assert_error, auth, open_room
from tests.sessions.conftest import POLICY

ROOM: Final = "/v1/rooms/{room_id}"
SESSION: Final = "/v1/sessions/{session_id}"
INTENT: Final = "/api/intents/{intent_id}"
OPPORTUNITY: Final = "/api/opportunities/{opportunity_id}"
CASE: Final = "/v1/adviser/cases/{case_id}"
WEBHOOK: Final = "/v1/webhooks/{webhook_id}"
NO_AUDIENCE: Final = (
    ("nobody", "unauthenticated"),
    ("stranger", "unauthenticated"),
    ("publishable", "forbidden"),
    ("session_token", "forbidden"),
    ("used_invite", "forbidden"),
)
OWNER_ONLY: Final = (
    ("nobody", "unauthenticated"),
    ("principal_agent", "forbidden"),
    ("other_principal", "not_found"),  # another's case is unknown, before the key's level
    ("room_owner", "forbidden"),
)

# Who asks: the wrong kind of credential for the route, or none.
ROUTES: Final[dict[tuple[str, str], tuple[tuple[str, str], ...]]] = {
    ("POST", "/v1/adviser/cases"): (
        ("nobody", "unauthenticated"),
        ("stranger", "unauthenticated"),
        ("principal_agent", "forbidden"),
        ("room_owner", "forbidden"),
    ),
    ("GET", "/v1/adviser/cases"): (("nobody", "unauthenticated"), ("room_owner", "forbidden")),
    ("GET", "/v1/adviser/events"): (
        ("nobody", "unauthenticated"),
        ("stranger", "unauthenticated"),
        ("room_owner", "forbidden"),
    ),
    ("GET", CASE): (("nobody", "unauthenticated"), ("other_principal", "not_found")),
    ("GET", CASE + "/versions/{number}"): (
        ("nobody", "unauthenticated"),
        ("other_principal", "not_found"),
    ),
    ("GET", CASE + "/history"): (("nobody", "unauthenticated"), ("other_principal", "not_found")),
    ("GET", CASE + "/export"): (("nobody", "unauthenticated"), ("other_principal", "not_found")),
    ("POST", CASE + "/patches"): OWNER_ONLY,
    ("POST", CASE + "/answers"): OWNER_ONLY,
    ("POST", CASE + "/material-changes/{change_id}/seen"): OWNER_ONLY,
    ("POST", CASE + "/deal-review"): OWNER_ONLY,
    ("POST", CASE + "/deal-review/override"): OWNER_ONLY,
    ("POST", CASE + "/close"): OWNER_ONLY,
    ("POST", CASE + "/skills/{skill_id}/runs"): OWNER_ONLY,
    ("POST", CASE + "/findings/{finding_id}"): OWNER_ONLY,
    ("POST", CASE + "/links"): OWNER_ONLY,
    ("GET", "/v1/adviser/skills"): (("nobody", "unauthenticated"), ("room_owner", "forbidden")),
    ("POST", "/v1/adviser/skills"): (
        ("nobody", "unauthenticated"),
        ("stranger", "unauthenticated"),
        ("principal_agent", "forbidden"),
        ("room_owner", "forbidden"),
    ),
    ("GET", ROOM): (("nobody", "unauthenticated"), ("other_room_owner", "forbidden")),
    ("POST", ROOM + "/moves"): (
        ("nobody", "unauthenticated"),
        ("stranger", "unauthenticated"),
        ("other_room_owner", "forbidden"),
        ("used_invite", "forbidden"),
        ("session_token", "forbidden"),
    ),
    ("GET", ROOM + "/confirmations"): (
        ("nobody", "unauthenticated"),
        ("joiner_seat", "forbidden"),
    ),
    ("POST", ROOM + "/confirmations/{confirmation_id}"): (
        ("nobody", "unauthenticated"),
        ("other_room_owner", "forbidden"),
        ("joiner_seat", "forbidden"),  # an agent asks; only the owner confirms
        ("opener_seat", "forbidden"),
    ),
    ("GET", ROOM + "/log"): (("nobody", "unauthenticated"), ("other_room_owner", "forbidden")),
    ("GET", ROOM + "/receipt"): (
        ("nobody", "unauthenticated"),
        ("other_room_owner", "forbidden"),
    ),
    ("GET", ROOM + "/events"): (("nobody", "unauthenticated"), ("other_room_owner", "forbidden")),
    ("GET", "/v1/me"): (("nobody", "unauthenticated"), ("stranger", "unauthenticated")),
    ("GET", "/api/me"): (("nobody", "unauthenticated"), ("stranger", "unauthenticated")),
    ("PUT", "/api/me/agent"): (("nobody", "unauthenticated"), ("stranger", "unauthenticated")),
    ("GET", "/api/events"): (
        ("nobody", "unauthenticated"),
        ("stranger", "unauthenticated"),
        ("room_owner", "forbidden"),
    ),
    ("POST", "/api/intents"): (
        ("nobody", "unauthenticated"),
        ("stranger", "unauthenticated"),
        ("principal_agent", "forbidden"),
        ("room_owner", "forbidden"),
    ),
    ("GET", "/api/intents"): (("nobody", "unauthenticated"), ("room_owner", "forbidden")),
    ("GET", INTENT): (("nobody", "unauthenticated"), ("other_principal", "not_found")),
    ("PATCH", INTENT): (
        ("nobody", "unauthenticated"),
        ("principal_agent", "forbidden"),
        ("other_principal", "not_found"),  # another's intent is unknown, before the key's level
        ("session_token", "forbidden"),
    ),
    ("POST", INTENT + "/chat"): (
        ("nobody", "unauthenticated"),
        ("other_principal", "not_found"),
        ("room_owner", "forbidden"),
    ),
    ("GET", INTENT + "/chat"): (("nobody", "unauthenticated"), ("other_principal", "not_found")),
    ("POST", INTENT + "/discover"): (
        ("nobody", "unauthenticated"),
        ("other_principal", "not_found"),
        ("room_owner", "forbidden"),
    ),
    ("POST", INTENT + "/opportunities"): (
        ("nobody", "unauthenticated"),
        ("other_principal", "not_found"),
        ("room_owner", "forbidden"),
    ),
    ("GET", "/api/opportunities"): (("nobody", "unauthenticated"), ("room_owner", "forbidden")),
    ("GET", OPPORTUNITY): (("nobody", "unauthenticated"), ("room_owner", "forbidden")),
    ("GET", OPPORTUNITY + "/negotiation"): (
        ("nobody", "unauthenticated"),
        ("session_token", "forbidden"),
    ),
    ("PATCH", OPPORTUNITY + "/status"): (
        ("nobody", "unauthenticated"),
        ("room_owner", "forbidden"),
        ("other_principal", "not_found"),
    ),
    ("POST", OPPORTUNITY + "/negotiation/turns"): (
        ("nobody", "unauthenticated"),
        ("room_owner", "forbidden"),
        ("other_principal", "not_found"),
    ),
    ("POST", OPPORTUNITY + "/negotiation/resume"): (
        ("nobody", "unauthenticated"),
        ("room_owner", "forbidden"),
        ("other_principal", "not_found"),
    ),
    ("POST", OPPORTUNITY + "/negotiation/questions"): (
        ("nobody", "unauthenticated"),
        ("room_owner", "forbidden"),
        ("other_principal", "not_found"),
    ),
    ("GET", OPPORTUNITY + "/negotiation/questions"): (
        ("nobody", "unauthenticated"),
        ("room_owner", "forbidden"),
    ),
    ("POST", OPPORTUNITY + "/negotiation/questions/{question_id}/answer"): (
        ("nobody", "unauthenticated"),
        ("room_owner", "forbidden"),
        ("other_principal", "not_found"),
    ),
    ("GET", OPPORTUNITY + "/negotiation/log"): (
        ("nobody", "unauthenticated"),
        ("room_owner", "forbidden"),
    ),
    ("GET", OPPORTUNITY + "/negotiation/receipt"): (
        ("nobody", "unauthenticated"),
        ("room_owner", "forbidden"),
    ),
    ("GET", "/api/negotiations"): (("nobody", "unauthenticated"), ("room_owner", "forbidden")),
    ("POST", "/api/networks"): (("nobody", "unauthenticated"), ("principal_agent", "forbidden")),
    ("GET", "/api/networks"): (("nobody", "unauthenticated"), ("room_owner", "forbidden")),
    ("POST", "/api/networks/join"): (
        ("nobody", "unauthenticated"),
        ("principal_agent", "forbidden"),
    ),
    ("GET", "/v1/catalogue"): (("nobody", "unauthenticated"), ("room_owner", "forbidden")),
    ("GET", "/v1/policies"): (("nobody", "unauthenticated"), ("publishable", "forbidden")),
    ("PUT", "/v1/policies/{sku}"): (
        ("nobody", "unauthenticated"),
        ("publishable", "forbidden"),
        ("session_token", "forbidden"),
    ),
    ("POST", "/v1/sessions"): (("nobody", "unauthenticated"), ("session_token", "forbidden")),
    ("GET", "/v1/sessions"): (("nobody", "unauthenticated"), ("publishable", "forbidden")),
    ("GET", SESSION): (("nobody", "unauthenticated"), ("other_session_token", "forbidden")),
    ("POST", SESSION + "/messages"): (
        ("nobody", "unauthenticated"),
        ("secret", "forbidden"),  # a merchant reads a session, never moves in it
        ("other_session_token", "forbidden"),
    ),
    ("GET", SESSION + "/log"): (
        ("nobody", "unauthenticated"),
        ("other_session_token", "forbidden"),
    ),
    ("GET", SESSION + "/receipt"): (
        ("nobody", "unauthenticated"),
        ("other_session_token", "forbidden"),
    ),
    ("POST", SESSION + "/handoff/claim"): (
        ("nobody", "unauthenticated"),
        ("secret", "forbidden"),
    ),
    ("POST", SESSION + "/handoff"): (
        ("nobody", "unauthenticated"),
        ("publishable", "forbidden"),
        ("session_token", "forbidden"),
    ),
    ("POST", SESSION + "/reveal"): (
        ("nobody", "unauthenticated"),
        ("publishable", "forbidden"),
        ("session_token", "forbidden"),
    ),
    ("POST", "/v1/links"): (
        ("nobody", "unauthenticated"),
        ("stranger", "unauthenticated"),
        ("opener_seat", "forbidden"),  # an agent's credential is never handed on
        ("secret", "forbidden"),
        ("principal_agent", "forbidden"),
        ("used_invite", "forbidden"),
    ),
    ("POST", "/v1/webhooks"): NO_AUDIENCE,
    ("GET", "/v1/webhooks"): NO_AUDIENCE,
    ("GET", WEBHOOK): NO_AUDIENCE,
    ("PATCH", WEBHOOK): NO_AUDIENCE,
    ("POST", WEBHOOK + "/rotate"): NO_AUDIENCE,
    ("POST", WEBHOOK + "/test"): NO_AUDIENCE,
    ("GET", WEBHOOK + "/deliveries"): NO_AUDIENCE,
    ("POST", WEBHOOK + "/deliveries/{event_id}/retry"): NO_AUDIENCE,
}

# Routes no credential opens: what protects them is the body's size, shape and time limits.
PUBLIC: Final = {
    ("POST", "/v1/rooms"),
    ("POST", "/v1/rooms/join"),
    ("POST", "/v1/rooms/list"),
    ("GET", "/healthz"),
    ("GET", "/.well-known/jwks.json"),
    ("GET", "/.well-known/webhook-keys.json"),
    ("GET", "/.well-known/ucp"),
    ("GET", "/ucp/negotiation/spec"),
    ("GET", "/ucp/negotiation/schema.json"),
    ("GET", "/ucp/negotiation/openapi.json"),
}

INVALID_BODIES: Final = {
    "malformed": b'{"type": ',
    "duplicate_keys": b'{"type": "cancel", "type": "reject"}',
    "wrong_shape": b'{"colour": [1, 2, 3]}',
    "not_an_object": b"[]",
}


def test_every_route_is_walked_or_public() -> None:
    """A route added without a row here fails this test: say which credential it wants."""
    paths = create_app(Settings()).openapi()["paths"]
    documented = {(method.upper(), path) for path, item in paths.items() for method in item}
    assert documented == set(ROUTES) | PUBLIC


@dataclass(frozen=True)
class World:
    room: Room
    other: Room
    keys: dict[str, str]
    session_id: str
    session_token: str
    other_session_token: str
    principal_agent: str
    other_principal: str
    intent_id: str
    case_id: str

    def token(self, who: str) -> str | None:
        return {
            "nobody": None,
            "stranger": "seat_" + "0" * 43,
            "room_owner": self.room.opener_owner,
            "opener_seat": self.room.opener_seat,
            "joiner_seat": self.room.joiner_seat,
            "used_invite": self.room.invite,
            "other_room_owner": self.other.opener_owner,
            "publishable": self.keys["publishable_test"],
            "secret": self.keys["secret_test"],
            "session_token": self.session_token,
            "other_session_token": self.other_session_token,
            "principal_agent": self.principal_agent,
            "other_principal": self.other_principal,
        }[who]

    def path(self, template: str) -> str:
        return template.format(
            room_id=self.room.room_id,
            confirmation_id="cnf_joiner_1",
            session_id=self.session_id,
            sku=POLICY["sku"],
            intent_id=self.intent_id,
            opportunity_id="opp_none",
            question_id="q_none",
            case_id=self.case_id,
            number=1,
            change_id="chg_none",
            finding_id="fnd_none",
            skill_id="F04",
            webhook_id="whk_none",
            event_id="evt_none",
        )


@pytest.fixture(scope="module")
def world(shared_server: LiveServer) -> Iterator[World]:
    db = Database(shared_server.settings.database, apply_migrations=False)
    try:
        merchants = Merchants(db, shared_server.settings, clock=shared_server.clock)
        keys: dict[str, str] = merchants.create_tenant("walk-shop")["keys"]
        principals = Principals(db, clock=shared_server.clock)
        walker, other_principal = principals.create("walker"), principals.create("walker-other")
    finally:
        db.close()
    with shared_server.client() as client:
        room = open_room(client)
        asked = client.post(room.moves, json={"type": "cancel"}, headers=auth(room.joiner_seat))
        assert asked.status_code == 202, asked.text  # cnf_joiner_1 waits for the owner
        other = open_room(client, join=False)
        stored = client.put(
            f"/v1/policies/{POLICY['sku']}", json=POLICY, headers=auth(keys["secret_test"])
        )
        assert stored.status_code == 200, stored.text
        opened = [
            client.post(
                "/v1/sessions",
                json={"sku": POLICY["sku"], "buyer": {"agent_id": f"walker-{n}"}},
                headers=auth(keys["publishable_test"]),
            ).json()
            for n in range(2)
        ]
        intent = client.post(
            "/api/intents",
            json={"statement": "A walker's intent", "visibility": "public"},
            headers=auth(walker["owner_key"]),
        )
        assert intent.status_code == 201, intent.text
        case = client.post(
            "/v1/adviser/cases", json={"title": "A walk"}, headers=auth(walker["owner_key"])
        )
        assert case.status_code == 201, case.text
    yield World(
        room,
        other,
        keys,
        opened[0]["session_id"],
        opened[0]["session_token"],
        opened[1]["session_token"],
        walker["agent_key"],
        other_principal["owner_key"],
        intent.json()["intent"]["intent_id"],
        case.json()["case_id"],
    )


WALK = [
    pytest.param(method, template, who, code, body, id=f"{method} {template} {who} {name}")
    for (method, template), askers in ROUTES.items()
    for who, code in askers
    for name, body in INVALID_BODIES.items()
]


@pytest.mark.parametrize(("method", "template", "who", "code", "body"), WALK)
def test_a_wrong_credential_with_an_invalid_body_gets_the_credentials_refusal(
    client: httpx.Client, world: World, method: str, template: str, who: str, code: str, body: Any
) -> None:
    headers = {**auth(world.token(who)), "Content-Type": "application/json"}
    answer = client.request(method, world.path(template), content=body, headers=headers)
    assert_error(answer, code)
    if code == "unauthenticated":
        assert answer.headers["WWW-Authenticate"] == "Bearer"
    else:
        assert "WWW-Authenticate" not in answer.headers


@pytest.mark.parametrize(
    ("method", "template"), sorted(set(ROUTES) | PUBLIC), ids=lambda part: str(part)
)
def test_a_trailing_slash_is_not_found_with_the_one_error_body(
    client: httpx.Client, world: World, method: str, template: str
) -> None:
    answer = client.request(
        method, world.path(template) + "/", headers=auth(world.room.opener_owner)
    )
    if template.startswith(("/.well-known/ucp", "/ucp/")):
        assert answer.status_code == 200  # the UCP documents are served under both
        return
    assert "trailing slash" in assert_error(answer, "not_found")["message"]

"""The principal endpoints through a real server (spec/intro-api.md, Endpoints): `GET /api/me`
and `PUT /api/me/agent`, a key in `Authorization: Bearer` or `x-api-key`, checked before the
body; bad input answered with the one error body, changing nothing."""

from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from accord.app.principals import Principals
from accord.app.rooms import Rooms
from accord.protocols.rooms.moves import OpenRequest
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import assert_error, auth
from tests.principals.conftest import Principal, dump_tables

JSON_HEADERS = {"Content-Type": "application/json"}


@pytest.fixture
def client(server: LiveServer) -> Any:
    with server.client() as client:
        yield client


@dataclass(frozen=True)
class Keys:
    """Ada's keys, and credentials that are not hers to use here."""

    ada: Principal
    helper: str
    replaced: str
    room_seat: str
    room_owner: str

    def of(self, who: str | None) -> str | None:
        match who:
            case None:
                return None
            case "owner":
                return self.ada.owner_key
            case "agent":
                return self.ada.agent_key
            case "unknown":
                return "acc_ok_" + "0" * 43
            case _:
                return str(getattr(self, who))


@pytest.fixture
def keys(principals: Principals, rooms: Rooms, ada: Principal) -> Keys:
    replaced = principals.agent_key("ada", "helper")["agent_key"]
    helper = principals.agent_key("ada", "helper")["agent_key"]
    opened = rooms.open(OpenRequest(subject_schema={"n": {"type": "int"}}))
    return Keys(ada, helper, replaced, opened["seat_token"], opened["owner_token"])


@pytest.mark.parametrize(
    ("who", "key", "agent_id"),
    [
        pytest.param("owner", "owner", None, id="owner_key"),
        pytest.param("agent", "agent", "default", id="selected_agent_key"),
        pytest.param("helper", "agent", "helper", id="other_agent_key"),
    ],
)
@pytest.mark.parametrize("header", ["bearer", "x-api-key", "both"])
def test_me_names_the_principal_and_the_key(
    client: httpx.Client, keys: Keys, who: str, key: str, agent_id: str | None, header: str
) -> None:
    token = keys.of(who)
    assert token is not None
    headers = {
        "bearer": auth(token),
        "x-api-key": {"x-api-key": token},
        "both": {**auth(token), "x-api-key": token},
    }[header]
    got = client.get("/api/me", headers=headers)
    assert got.status_code == 200, got.text
    assert got.json() == {
        "principal_id": keys.ada.principal_id,
        "name": "ada",
        "key": key,
        "agent_id": agent_id,
        "selected_agent_id": "default",
    }


def test_the_owner_selects_the_agent(client: httpx.Client, keys: Keys) -> None:
    owner = {"x-api-key": keys.ada.owner_key}
    for agent_id in ("helper", "accord", "default"):
        chosen = client.put("/api/me/agent", json={"agent_id": agent_id}, headers=owner)
        assert chosen.status_code == 200, chosen.text
        assert chosen.json() == {
            "principal_id": keys.ada.principal_id,
            "selected_agent_id": agent_id,
        }
        for token in (keys.ada.owner_key, keys.helper):
            me = client.get("/api/me", headers=auth(token)).json()
            assert me["selected_agent_id"] == agent_id


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    who: str | None
    code: str
    body: bytes | dict[str, Any] | list[Any] | None = None
    detail: str | None = None  # "reason" or "fields" for invalid_request
    names: tuple[str, ...] = ()  # the fields `fields` must name
    headers: dict[str, str] = field(default_factory=lambda: dict(JSON_HEADERS))


ME, AGENT = "/api/me", "/api/me/agent"
GOOD = {"agent_id": "helper"}


def _put(who: str | None, code: str, body: Any, *names: str, detail: str | None = None) -> Case:
    return Case("PUT", AGENT, who, code, body, detail or ("fields" if names else None), names)


CASES = [
    # unauthenticated and forbidden, before the body is looked at
    pytest.param(Case("GET", ME, None, "unauthenticated"), id="me_without_key"),
    pytest.param(Case("GET", ME, "unknown", "unauthenticated"), id="me_unknown_key"),
    pytest.param(Case("GET", ME, "replaced", "unauthenticated"), id="me_replaced_key"),
    pytest.param(Case("GET", ME, "room_seat", "forbidden"), id="me_room_seat_token"),
    pytest.param(Case("GET", ME, "room_owner", "forbidden"), id="me_room_owner_token"),
    pytest.param(
        Case("GET", ME, "owner", "unauthenticated", headers={"x-api-key": "acc_ok_other"}),
        id="me_two_different_keys",
    ),
    pytest.param(
        Case("GET", ME, None, "unauthenticated", headers={"Authorization": "Basic YTpi"}),
        id="me_basic_auth",
    ),
    pytest.param(_put(None, "unauthenticated", GOOD), id="select_without_key"),
    pytest.param(_put("replaced", "unauthenticated", GOOD), id="select_replaced_key"),
    pytest.param(_put(None, "unauthenticated", b'{"agent_id": '), id="malformed_without_key"),
    pytest.param(_put("agent", "forbidden", GOOD), id="select_with_selected_agent_key"),
    pytest.param(_put("helper", "forbidden", GOOD), id="select_with_other_agent_key"),
    pytest.param(_put("agent", "forbidden", b'{"agent_id": '), id="malformed_with_agent_key"),
    pytest.param(_put("room_owner", "forbidden", GOOD), id="select_with_room_owner_token"),
    # strict JSON
    pytest.param(
        _put("owner", "invalid_request", b'{"agent_id": ', detail="reason"), id="bad_json"
    ),
    pytest.param(
        _put(
            "owner",
            "invalid_request",
            b'{"agent_id": "helper", "agent_id": "accord"}',
            detail="reason",
        ),
        id="duplicate_key",
    ),
    pytest.param(_put("owner", "invalid_request", b"", "body"), id="empty_body"),
    # the model
    pytest.param(_put("owner", "invalid_request", ["helper"], "body"), id="body_not_object"),
    pytest.param(_put("owner", "invalid_request", {}, "agent_id"), id="missing_agent_id"),
    pytest.param(_put("owner", "invalid_request", {"agent_id": 7}, "agent_id"), id="number"),
    pytest.param(
        _put("owner", "invalid_request", {**GOOD, "why": "x"}, "why"), id="unknown_member"
    ),
    # the rules
    pytest.param(_put("owner", "invalid_request", {"agent_id": "nobody"}, "agent_id"), id="no_key"),
    pytest.param(_put("owner", "invalid_request", {"agent_id": ""}, "agent_id"), id="empty_id"),
    pytest.param(
        _put("owner", "invalid_request", {"agent_id": "Helper"}, "agent_id"), id="not_an_id"
    ),
    # routes and methods
    pytest.param(Case("POST", ME, "owner", "method_not_allowed"), id="post_me"),
    pytest.param(Case("GET", AGENT, "owner", "method_not_allowed"), id="get_agent"),
]


@pytest.mark.parametrize("case", CASES)
def test_bad_requests_get_one_error_body_and_change_nothing(
    client: httpx.Client, db: Database, keys: Keys, case: Case
) -> None:
    before = dump_tables(db)
    headers = {**auth(keys.of(case.who)), **case.headers}
    content = case.body if isinstance(case.body, bytes) else None
    json_body = None if isinstance(case.body, bytes) else case.body
    response = client.request(
        case.method, case.path, headers=headers, content=content, json=json_body
    )
    error = assert_error(response, case.code)
    if case.detail is not None:
        assert case.detail in error, error
    for name in case.names:
        assert name in error["fields"], error
    assert dump_tables(db) == before


def test_openapi_documents_both_ways_to_send_a_key(client: httpx.Client) -> None:
    document = client.get("/openapi.json").json()
    assert {"get"} <= set(document["paths"][ME]) and {"put"} <= set(document["paths"][AGENT])
    schemes = document["components"]["securitySchemes"]
    assert {s["type"] for s in schemes.values()} >= {"http", "apiKey"}
    assert any(s.get("name") == "x-api-key" for s in schemes.values())

"""Bad input on every route (datasette-style): one error body `{"error": {"code", "message",
...}}`, the status STATUS_BY_CODE gives its code, details that say what is wrong, and nothing
changed in the room."""

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from accord import __version__
from accord.core.refusals import RefusalCode
from accord.core.statuses import STATUS_BY_CODE
from tests.http.support import (
    SCHEMA,
    Room,
    assert_error,
    auth,
    open_room,
    snapshot,
    terms,
    view,
)

JSON_HEADERS = {"Content-Type": "application/json"}

MALFORMED = b'{"type": "cancel",'
DUPLICATE = b'{"type": "cancel", "type": "reject"}'
NAN = b'{"type": "counter", "terms": {"price": {"amount_minor": NaN, "currency": "EUR"}}}'
INFINITY = b'{"type": "cancel", "expected_seq": Infinity}'
HUGE = b'{"type": "cancel", "expected_seq": 9007199254740993}'
HUGE_FLOAT = b'{"type": "cancel", "expected_seq": 1e300000}'

ROOM = "/v1/rooms/{room}"
MOVES = "/v1/rooms/{room}/moves"
CONFIRMATIONS = "/v1/rooms/{room}/confirmations"
CONFIRM = "/v1/rooms/{room}/confirmations/cnf_opener_1"
LOG = "/v1/rooms/{room}/log"
EVENTS = "/v1/rooms/{room}/events"


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    who: str | None
    code: str
    body: bytes | dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    detail: str | None = None  # "reason" or "fields" for invalid_request
    names: tuple[str, ...] = ()  # the fields `fields` must name


@dataclass(frozen=True)
class World:
    room: Room  # opened with an offer and joined: the joiner's turn
    other: Room  # another room, still a draft (its invite unused)

    def path(self, template: str) -> str:
        return template.format(room=self.room.room_id, other=self.other.room_id)

    def token(self, who: str | None) -> str | None:
        match who:
            case None:
                return None
            case "stranger":
                return "seat_" + "0" * 43
            case "other_owner":
                return self.other.opener_owner
            case "other_invite":
                return self.other.invite
            case "used_invite":
                return self.room.invite
            case _:
                return self.room.token(who)


def _raw(method: str, path: str, who: str | None, body: bytes, code: str = "invalid_request"):
    return Case(method, path, who, code, body, JSON_HEADERS, "reason")


def _strict_json_cases(route: str, path: str, who: str | None) -> Iterator[Any]:
    for name, body in (
        ("malformed", MALFORMED),
        ("duplicate_keys", DUPLICATE),
        ("nan", NAN),
        ("infinity", INFINITY),
        ("huge_integer", HUGE),
        ("huge_float", HUGE_FLOAT),
    ):
        yield pytest.param(_raw("POST", path, who, body), id=f"{route}-{name}")


def _auth_cases(route: str, method: str, path: str, body: dict[str, Any] | None) -> Iterator[Any]:
    for name, who, code in (
        ("no_token", None, "unauthenticated"),
        ("unknown_token", "stranger", "unauthenticated"),
        ("token_of_another_room", "other_owner", "forbidden"),
        ("invite_of_another_room", "other_invite", "forbidden"),
        ("used_invite_of_this_room", "used_invite", "forbidden"),
    ):
        yield pytest.param(Case(method, path, who, code, body), id=f"{route}-{name}")
    unknown = path.replace("{room}", "room_doesnotexist")
    yield pytest.param(
        Case(method, unknown, None, "unauthenticated", body), id=f"{route}-unknown_room_no_token"
    )
    # forbidden comes before room_not_found: no credential belongs to a room that is not there
    yield pytest.param(
        Case(method, unknown, "opener_owner", "forbidden", body),
        id=f"{route}-unknown_room",
    )


def _model(path: str, who: str | None, body: Any, *names: str, method: str = "POST") -> Case:
    return Case(method, path, who, "invalid_request", body, {}, "fields", names)


CASES = [
    # POST /v1/rooms
    *_strict_json_cases("open", "/v1/rooms", None),
    pytest.param(
        _model("/v1/rooms", None, {"subject_schema": SCHEMA, "colour": 1}, "colour"),
        id="open-unknown_member",
    ),
    pytest.param(
        _model("/v1/rooms", None, {"subject_schema": []}, "subject_schema"), id="open-wrong_type"
    ),
    pytest.param(
        _model("/v1/rooms", None, {"subject_schema": SCHEMA, "title": 7}, "title"),
        id="open-title_not_a_string",
    ),
    pytest.param(_model("/v1/rooms", None, {}, "subject_schema"), id="open-missing_member"),
    pytest.param(_model("/v1/rooms", None, [SCHEMA]), id="open-body_not_an_object"),
    pytest.param(_model("/v1/rooms", None, None), id="open-no_body"),
    pytest.param(
        _model("/v1/rooms", None, {"subject_schema": {"price": {"kind": "money"}}}),
        id="open-bad_subject_schema",
    ),
    pytest.param(
        _model(
            "/v1/rooms", None, {"subject_schema": SCHEMA, "limits": {"nope": {}}}, "limits.nope"
        ),
        id="open-limits_for_no_field",
    ),
    pytest.param(
        Case(
            "POST",
            "/v1/rooms",
            None,
            "invalid_terms",
            {"subject_schema": SCHEMA, "subject": {"price": 5}},
        ),
        id="open-invalid_terms",
    ),
    pytest.param(
        Case(
            "POST",
            "/v1/rooms",
            None,
            "invalid_deadline",
            {"subject_schema": SCHEMA, "deadline": "tomorrow"},
        ),
        id="open-invalid_deadline",
    ),
    # POST /v1/rooms/join
    *_strict_json_cases("join", "/v1/rooms/join", None),
    pytest.param(
        _model("/v1/rooms/join", None, {"invite_token": "x", "colour": 1}, "colour"),
        id="join-unknown_member",
    ),
    pytest.param(
        _model("/v1/rooms/join", None, {"invite_token": 5}, "invite_token"), id="join-wrong_type"
    ),
    pytest.param(_model("/v1/rooms/join", None, {}, "invite_token"), id="join-missing_member"),
    pytest.param(
        Case("POST", "/v1/rooms/join", None, "invite_invalid", {"invite_token": "x"}),
        id="join-unknown_invite",
    ),
    # POST /v1/rooms/list
    *_strict_json_cases("list", "/v1/rooms/list", None),
    pytest.param(
        _model("/v1/rooms/list", None, {"tokens": [], "colour": 1}, "colour"),
        id="list-unknown_member",
    ),
    pytest.param(_model("/v1/rooms/list", None, {"tokens": "abc"}, "tokens"), id="list-wrong_type"),
    pytest.param(
        _model("/v1/rooms/list", None, {"tokens": [], "include_closed": "yes"}, "include_closed"),
        id="list-string_for_bool",
    ),
    pytest.param(_model("/v1/rooms/list", None, {}, "tokens"), id="list-missing_member"),
    # GET /v1/rooms/{room_id}
    *_auth_cases("show", "GET", ROOM, None),
    # POST /v1/rooms/{room_id}/moves
    *_strict_json_cases("move", MOVES, "joiner_owner"),
    *_auth_cases("move", "POST", MOVES, {"type": "cancel"}),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "cancel", "colour": 1}, "colour"),
        id="move-unknown_member",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "cancel", "expected_seq": "2"}, "expected_seq"),
        id="move-string_for_int",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "cancel", "expected_seq": True}, "expected_seq"),
        id="move-bool_for_int",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "cancel", "expected_seq": 2.0}, "expected_seq"),
        id="move-float_for_int",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "cancel", "expected_seq": -2}, "expected_seq"),
        id="move-negative_seq",
    ),
    pytest.param(_model(MOVES, "joiner_owner", {"type": "accept"}, "type"), id="move-unknown_type"),
    pytest.param(_model(MOVES, "joiner_owner", {}, "type"), id="move-missing_type"),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "cancel", "message_id": ""}, "message_id"),
        id="move-empty_message_id",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "cancel", "message": "x" * 2001}, "message"),
        id="move-message_too_long",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "counter", "terms": [1]}, "terms"),
        id="move-terms_not_an_object",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "approve"}, "subject_hash"),
        id="move-approve_without_hash",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "counter"}, "terms"), id="move-counter_without_terms"
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "cancel", "terms": terms(1)}, "terms"),
        id="move-terms_on_cancel",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "need_more_detail"}, "message"),
        id="move-question_without_message",
    ),
    pytest.param(
        _model(MOVES, "joiner_owner", {"type": "reject", "deadline": "2026-12-24"}, "deadline"),
        id="move-deadline_on_reject",
    ),
    pytest.param(
        Case("POST", MOVES, None, "unauthenticated", {"type": "approve"}),
        id="move-shape_problem_without_token",
    ),
    pytest.param(
        Case("POST", MOVES, "other_owner", "forbidden", {"type": "approve"}),
        id="move-shape_problem_with_token_of_another_room",
    ),
    pytest.param(
        Case(
            "POST",
            MOVES,
            "joiner_owner",
            "invalid_terms",
            {"type": "counter", "terms": {"price": 5, "day": "soon"}},
        ),
        id="move-invalid_terms",
    ),
    pytest.param(
        Case(
            "POST",
            MOVES,
            "joiner_owner",
            "invalid_deadline",
            {"type": "counter", "terms": terms(9000), "deadline": "2020-01-01T00:00:00Z"},
        ),
        id="move-deadline_in_the_past",
    ),
    # GET /v1/rooms/{room_id}/confirmations
    *_auth_cases("confirmations", "GET", CONFIRMATIONS, None),
    pytest.param(
        Case("GET", CONFIRMATIONS, "joiner_seat", "forbidden"), id="confirmations-agent_token"
    ),
    # POST /v1/rooms/{room_id}/confirmations/{confirmation_id}
    *_strict_json_cases("confirm", CONFIRM, "opener_owner"),
    *_auth_cases("confirm", "POST", CONFIRM, {"decision": "confirm"}),
    pytest.param(
        _model(CONFIRM, "opener_owner", {"decision": "confirm", "colour": 1}, "colour"),
        id="confirm-unknown_member",
    ),
    pytest.param(
        _model(CONFIRM, "opener_owner", {"decision": True}, "decision"), id="confirm-wrong_type"
    ),
    pytest.param(
        _model(CONFIRM, "opener_owner", {"decision": "maybe"}, "decision"),
        id="confirm-unknown_decision",
    ),
    pytest.param(_model(CONFIRM, "opener_owner", {}, "decision"), id="confirm-missing_member"),
    pytest.param(
        Case("POST", CONFIRM, "opener_owner", "confirmation_not_found", {"decision": "confirm"}),
        id="confirm-no_such_confirmation",
    ),
    pytest.param(
        Case("POST", CONFIRM, "opener_seat", "forbidden", {"decision": "confirm"}),
        id="confirm-agent_token",
    ),
    # GET /v1/rooms/{room_id}/log
    *_auth_cases("log", "GET", LOG, None),
    # GET /v1/rooms/{room_id}/events (refused before any stream starts)
    *_auth_cases("events", "GET", EVENTS, None),
    pytest.param(
        Case(
            "GET",
            EVENTS,
            "opener_seat",
            "invalid_request",
            headers={"Last-Event-ID": "abc"},
            detail="fields",
            names=("Last-Event-ID",),
        ),
        id="events-bad_last_event_id",
    ),
    pytest.param(
        Case(
            "GET",
            EVENTS,
            "opener_seat",
            "invalid_request",
            headers={"Last-Event-ID": "-1"},
            detail="fields",
            names=("Last-Event-ID",),
        ),
        id="events-negative_last_event_id",
    ),
    pytest.param(
        Case(
            "GET",
            EVENTS,
            "opener_seat",
            "invalid_request",
            headers={"Last-Event-ID": "9223372036854775808"},
            detail="fields",
            names=("Last-Event-ID",),
        ),
        id="events-last_event_id_past_64_bits",
    ),
]


@pytest.fixture
def world(client: httpx.Client) -> World:
    room = open_room(
        client, opener_limits={"price": {"min": {"amount_minor": 5000, "currency": "EUR"}}}
    )
    other = open_room(client, join=False)
    return World(room, other)


def _send(client: httpx.Client, world: World, case: Case) -> httpx.Response:
    headers = {**auth(world.token(case.who)), **case.headers}
    path = world.path(case.path)
    if isinstance(case.body, bytes):
        return client.request(case.method, path, content=case.body, headers=headers)
    if case.body is None:
        return client.request(case.method, path, headers=headers)
    return client.request(case.method, path, json=case.body, headers=headers)


@pytest.mark.parametrize("case", CASES)
def test_bad_input_gets_the_one_error_body_and_changes_nothing(
    client: httpx.Client, world: World, case: Case
) -> None:
    before = snapshot(client, world.room)
    other_before = snapshot(client, world.other)
    response = _send(client, world, case)
    error = assert_error(response, case.code)
    if case.code == "invalid_request":
        assert isinstance(error.get("fields"), dict) or isinstance(error.get("reason"), str)
    if case.detail == "reason":
        assert isinstance(error["reason"], str) and error["reason"], error
    if case.detail == "fields":
        assert isinstance(error["fields"], dict) and error["fields"], error
        for name in case.names:
            assert name in error["fields"], error
    assert snapshot(client, world.room) == before
    assert snapshot(client, world.other) == other_before


def test_a_refused_join_leaves_the_invite_usable(client: httpx.Client) -> None:
    room = open_room(client, join=False)
    before = snapshot(client, room)
    refused = client.post(
        "/v1/rooms/join", json={"invite_token": room.invite, "limits": {"price": {"lo": 1}}}
    )
    assert_error(refused, "invalid_request")["fields"]["limits.price"]
    assert snapshot(client, room) == before
    joined = client.post("/v1/rooms/join", json={"invite_token": room.invite})
    assert joined.status_code == 200, joined.text
    again = client.post("/v1/rooms/join", json={"invite_token": room.invite})
    assert_error(again, "invite_invalid")


@pytest.mark.parametrize(
    ("content_type", "read"),
    [
        ("application/json", True),
        ("application/json; charset=utf-8", True),
        ("Application/JSON ; charset=UTF-8", True),
        ("application/vnd.accord+json", True),
        ("text/plain", False),
        ("application/jsonx", False),
        ("text/json", False),
        ("json", False),
        ("", False),
    ],
)
def test_a_body_is_read_as_json_only_under_a_json_content_type(
    client: httpx.Client, content_type: str, read: bool
) -> None:
    sent = client.post(
        "/v1/rooms/list", content=b'{"tokens": []}', headers={"Content-Type": content_type}
    )
    if read:
        assert sent.status_code == 200, sent.text
        assert sent.json() == {"rooms": []}
    else:
        assert_error(sent, "invalid_request")


def test_every_refusal_code_has_a_status() -> None:
    assert set(STATUS_BY_CODE) == set(RefusalCode)
    for code, status in STATUS_BY_CODE.items():
        assert 400 <= status <= 599, code


def test_an_unknown_route_is_not_found(client: httpx.Client) -> None:
    for method, path in (
        ("GET", "/v1/nothing"),
        ("POST", "/v1/rooms/x/moves/y"),
        ("GET", "/nothing-here"),
    ):
        assert_error(client.request(method, path), "not_found")


def test_a_wrong_method_gets_the_error_body(client: httpx.Client) -> None:
    assert_error(client.delete("/v1/rooms/list"), "method_not_allowed")


def test_healthz(client: httpx.Client) -> None:
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json() == {"status": "ok", "version": __version__}


def test_openapi_lists_every_rooms_endpoint(client: httpx.Client) -> None:
    got = client.get("/openapi.json")
    assert got.status_code == 200
    paths = got.json()["paths"]
    expected = {
        ("/v1/rooms", "post"),
        ("/v1/rooms/join", "post"),
        ("/v1/rooms/list", "post"),
        ("/v1/rooms/{room_id}", "get"),
        ("/v1/rooms/{room_id}/moves", "post"),
        ("/v1/rooms/{room_id}/confirmations", "get"),
        ("/v1/rooms/{room_id}/confirmations/{confirmation_id}", "post"),
        ("/v1/rooms/{room_id}/events", "get"),
        ("/v1/rooms/{room_id}/log", "get"),
        ("/healthz", "get"),
    }
    listed = {(path, method) for path, ops in paths.items() for method in ops}
    assert expected <= listed, expected - listed


def test_views_of_a_seat_never_hold_the_other_seats_limits(client: httpx.Client) -> None:
    room = open_room(
        client,
        opener_limits={"price": {"min": {"amount_minor": 7777, "currency": "EUR"}}},
        joiner_limits={"price": {"max": {"amount_minor": 123456, "currency": "EUR"}}},
    )
    joiner = view(client, room, "joiner_owner")
    opener = view(client, room, "opener_owner")
    assert "7777" not in str(joiner) and room.opener_nonce not in str(joiner)
    assert "123456" not in str(opener) and room.joiner_nonce not in str(opener)

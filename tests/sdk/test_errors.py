"""One error type (spec: Python SDK): a refusal keeps the server's code, message, status and
details; the SDK's own codes say the answer never came or is not Accord's; a body the strict
request model refuses never leaves."""

from typing import Any

import httpx
import pytest

from accord.sdk import Accord, AccordError, RoomSeat
from tests.sdk.conftest import Script, Waits, terms

URL = "http://accord.test"


def _seat(script: Script) -> RoomSeat:
    client = Accord(URL, transport=script.transport, sleep=Waits().sleep, max_retries=0)
    return RoomSeat(client, "owner_x", "room_1")


@pytest.mark.parametrize(
    ("response", "code", "status", "details", "retry_after"),
    [
        pytest.param(
            httpx.Response(409, json={"error": {"code": "move_not_allowed", "message": "No.",
                                                "allowed": ["cancel"]}}),
            "move_not_allowed", 409, {"allowed": ["cancel"]}, None, id="details_are_the_rest",
        ),
        pytest.param(
            httpx.Response(429, json={"error": {"code": "rate_limited", "message": "Wait.",
                                                "retry_after": 7}}),
            "rate_limited", 429, {"retry_after": 7}, 7.0, id="retry_after_member",
        ),
        pytest.param(
            httpx.Response(409, json={"error": {"code": "handoff_pending", "message": "Soon."}},
                           headers={"Retry-After": "5"}),
            "handoff_pending", 409, {}, 5.0, id="retry_after_header",
        ),
        pytest.param(
            httpx.Response(418, json={"error": {"code": "a_code_of_tomorrow", "message": "Hm."}}),
            "a_code_of_tomorrow", 418, {}, None, id="an_unknown_code_is_kept",
        ),
        pytest.param(
            httpx.Response(500, text="<h1>Internal Server Error</h1>"),
            "invalid_response", 500, {}, None, id="not_json",
        ),
        pytest.param(
            httpx.Response(404, json={"detail": "Not Found"}),
            "invalid_response", 404, {}, None, id="json_but_not_an_accord_error",
        ),
        pytest.param(
            httpx.Response(200, text="ok"), "invalid_response", 200, {}, None,
            id="success_without_json",
        ),
        pytest.param(
            httpx.Response(200, json={"room_id": "room_1"}), "invalid_response", 200, {}, None,
            id="success_that_is_not_a_room",
        ),
        pytest.param(
            httpx.Response(201, json={}), "invalid_response", 201, {}, None,
            id="a_status_the_endpoint_does_not_answer",
        ),
    ],
)  # fmt: skip
def test_answers_become_one_error(
    response: httpx.Response,
    code: str,
    status: int,
    details: dict[str, Any],
    retry_after: float | None,
) -> None:
    with pytest.raises(AccordError) as caught:
        _seat(Script([response])).view()
    error = caught.value
    assert (error.code, error.status, dict(error.details), error.retry_after) == (
        code, status, details, retry_after
    )  # fmt: skip
    assert error.is_refusal is (code != "invalid_response")


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        pytest.param(httpx.ConnectError("refused"), "network_error", id="connect"),
        pytest.param(httpx.ReadError("reset"), "network_error", id="reset"),
        pytest.param(httpx.ConnectTimeout("slow"), "timeout", id="connect_timeout"),
        pytest.param(httpx.ReadTimeout("slow"), "timeout", id="read_timeout"),
    ],
)
def test_no_answer_is_an_sdk_code_with_its_cause(failure: Exception, code: str) -> None:
    with pytest.raises(AccordError) as caught:
        _seat(Script([failure])).view()
    assert caught.value.code == code
    assert caught.value.status is None
    assert caught.value.__cause__ is failure
    assert not caught.value.is_refusal


def test_str_repr_and_body() -> None:
    error = AccordError("raced", "Read the room again.", status=409, details={"seq": 3})
    assert str(error) == "Read the room again. (raced)"
    assert "raced" in repr(error) and "409" in repr(error)
    assert error.to_json() == {"error": {"code": "raced", "message": "Read the room again.",
                                         "seq": 3}}  # fmt: skip


@pytest.mark.parametrize(
    ("move", "field"),
    [
        pytest.param(lambda s: s.ask("?" * 2001), "message", id="message_too_long"),
        pytest.param(lambda s: s.counter(terms(1), message_id=""), "message_id", id="empty_id"),
        pytest.param(lambda s: s.counter(terms(1), expected_seq=-2), "expected_seq", id="seq"),
        pytest.param(lambda s: s.move({"type": "haggle"}), "type", id="unknown_type"),
        pytest.param(
            lambda s: s.move({"type": "offer", "terms": {}, "tip": 1}), "tip", id="unknown_member"
        ),
        pytest.param(
            lambda s: s.move({"type": "cancel", "expected_seq": "3"}),
            "expected_seq",
            id="strict_types",
        ),
    ],
)
def test_a_body_the_strict_model_refuses_never_leaves(move, field: str) -> None:
    script = Script([httpx.Response(500)])
    with pytest.raises(AccordError) as caught:
        move(_seat(script))
    error = caught.value
    assert (error.code, error.status) == ("invalid_request", None)
    assert field in error.details["fields"]
    assert script.requests == []


def test_a_closed_client_sends_nothing() -> None:
    script = Script([httpx.Response(500)])
    seat = _seat(script)
    seat._client.close()
    with pytest.raises(RuntimeError, match="closed"):
        seat.view()
    assert script.requests == []


def test_a_client_opens_once() -> None:
    client = Accord(URL, transport=Script([httpx.Response(500)]).transport)
    with client, pytest.raises(RuntimeError, match="more than once"), client:
        pass
    assert client.is_closed


@pytest.mark.parametrize("base_url", ["127.0.0.1:8000", "/v1", ""])
def test_the_base_url_is_absolute(base_url: str) -> None:
    with pytest.raises(ValueError, match="absolute"):
        Accord(base_url)


def test_a_base_url_path_is_kept_as_a_prefix() -> None:
    script = Script([httpx.Response(500)])
    client = Accord("http://accord.test/api/", transport=script.transport, max_retries=0)
    with pytest.raises(AccordError):
        RoomSeat(client, "owner_x", "room/1").view()
    assert script.requests[0].url.raw_path == b"/api/v1/rooms/room%2F1"
    assert script.requests[0].headers["authorization"] == "Bearer owner_x"

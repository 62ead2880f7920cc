"""The check order of rooms-api.md over HTTP, where several failures apply at once: the first
in the order is the refusal, and a refused move changes nothing (except recording an expiry
that was already due)."""

from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.conftest import LiveServer
from tests.http.support import (
    JSONBody,
    Room,
    assert_error,
    auth,
    move,
    open_room,
    price,
    read_log,
    snapshot,
    terms,
    view,
)

STALE = "stale"  # replaced by a seq the room has moved past
CURRENT = "current"  # replaced by the room's current seq
WRONG_HASH = "sha256:" + "0" * 64
MALFORMED = b'{"type": "counter", "expected_seq": '

OPENER_LIMITS = {"price": {"min": price(5000)}}
JOINER_LIMITS = {"price": {"max": price(9500)}}


@dataclass(frozen=True)
class Step:
    """A move made before the attempt; it must be accepted with `status`."""

    who: str
    body: JSONBody
    status: int = 200


@dataclass(frozen=True)
class Attempt:
    who: str | None
    body: JSONBody | bytes
    code: str
    setup: tuple[Step, ...] = ()


def _fill(body: JSONBody | bytes, seq: int) -> JSONBody | bytes:
    if isinstance(body, bytes) or body.get("expected_seq") not in (STALE, CURRENT):
        return body
    return {**body, "expected_seq": seq - 1 if body["expected_seq"] == STALE else seq}


def _token(room: Room, other: Room, who: str | None) -> str | None:
    if who == "other_owner":
        return other.opener_owner
    if who == "invite":
        return other.invite
    return room.token(who) if who else None


# The room: the opener offered 10000 at open and the joiner joined, so it is the joiner's turn.
COUNTER_9000 = Step("joiner_seat", {"type": "counter", "terms": terms(9000)})
REJECTED = Step("joiner_owner", {"type": "reject"})
PENDING_CANCEL = Step("joiner_seat", {"type": "cancel"}, status=202)

CASES = [
    pytest.param(Attempt(None, MALFORMED, "unauthenticated"), id="no_token+malformed_json"),
    pytest.param(
        Attempt(None, {"type": "counter", "colour": "red"}, "unauthenticated"),
        id="no_token+unknown_member",
    ),
    pytest.param(
        Attempt(None, {"type": "approve"}, "unauthenticated"), id="no_token+shape_problem"
    ),
    pytest.param(
        Attempt(
            None,
            {"type": "counter", "terms": terms(8000), "expected_seq": STALE},
            "unauthenticated",
        ),
        id="no_token+not_your_turn+raced",
    ),
    pytest.param(
        Attempt("other_owner", MALFORMED, "forbidden"), id="token_of_another_room+malformed_json"
    ),
    pytest.param(
        Attempt("other_owner", {"type": "cancel", "expected_seq": "2"}, "forbidden"),
        id="token_of_another_room+wrong_type",
    ),
    pytest.param(
        Attempt("other_owner", {"type": "approve"}, "forbidden"),
        id="token_of_another_room+shape_problem",
    ),
    pytest.param(
        Attempt("invite", {"type": "counter", "terms": terms(8000)}, "forbidden"),
        id="invite_token+move",
    ),
    pytest.param(
        Attempt("opener_owner", {"type": "approve", "expected_seq": STALE}, "invalid_request"),
        id="shape_problem+not_your_turn+raced",
    ),
    pytest.param(
        Attempt("opener_owner", {"type": "cancel", "colour": 1}, "invalid_request", (REJECTED,)),
        id="unknown_member+room_final",
    ),
    pytest.param(
        Attempt(
            "opener_owner",
            {"type": "counter", "terms": terms(8000), "expected_seq": STALE},
            "room_final",
            (REJECTED,),
        ),
        id="room_final+not_your_turn+raced",
    ),
    pytest.param(
        Attempt(
            "joiner_seat",
            {"type": "counter", "terms": terms(8500), "expected_seq": STALE},
            "confirmation_pending",
            (COUNTER_9000, PENDING_CANCEL),
        ),
        id="confirmation_pending+not_your_turn+raced",
    ),
    pytest.param(
        Attempt(
            "opener_owner",
            {"type": "counter", "terms": terms(8000), "expected_seq": STALE},
            "not_your_turn",
        ),
        id="not_your_turn+raced",
    ),
    pytest.param(
        Attempt("opener_owner", {"type": "offer", "terms": terms(8000)}, "not_your_turn"),
        id="not_your_turn+move_not_allowed",
    ),
    pytest.param(
        Attempt("opener_owner", {"type": "cancel", "expected_seq": STALE}, "raced"),
        id="cancel_exempt_from_turn+raced",
    ),
    pytest.param(
        Attempt(
            "joiner_owner",
            {"type": "offer", "terms": terms(8000), "expected_seq": STALE},
            "raced",
        ),
        id="raced+move_not_allowed",
    ),
    pytest.param(
        Attempt(
            "joiner_owner",
            {
                "type": "offer",
                "terms": {"price": 1},
                "deadline": "2020-01-01T00:00:00Z",
                "expected_seq": CURRENT,
            },
            "move_not_allowed",
        ),
        id="move_not_allowed+invalid_deadline+invalid_terms",
    ),
    pytest.param(
        Attempt(
            "joiner_owner",
            {"type": "counter", "terms": {"price": 1}, "deadline": "2020-01-01T00:00:00Z"},
            "invalid_deadline",
        ),
        id="invalid_deadline+invalid_terms",
    ),
    pytest.param(
        Attempt(
            "joiner_owner",
            {"type": "counter", "terms": terms(9999, day="not-a-day")},
            "invalid_terms",
        ),
        id="invalid_terms+outside_own_limits",
    ),
    pytest.param(
        Attempt("joiner_owner", {"type": "counter", "terms": terms(10000)}, "outside_own_limits"),
        id="outside_own_limits+no_change",
    ),
    pytest.param(
        Attempt(
            "joiner_seat",
            {"type": "counter", "terms": terms(9200)},
            "no_change",
            (COUNTER_9000, Step("opener_seat", {"type": "counter", "terms": terms(9200)})),
        ),
        id="no_change",
    ),
    pytest.param(
        Attempt("joiner_owner", {"type": "approve", "subject_hash": WRONG_HASH}, "stale_terms"),
        id="stale_terms",
    ),
    pytest.param(
        Attempt("joiner_seat", {"type": "approve", "subject_hash": WRONG_HASH}, "stale_terms"),
        id="agent_asking_with_stale_terms",
    ),
]


@pytest.fixture
def rooms(client: httpx.Client) -> tuple[Room, Room]:
    room = open_room(client, opener_limits=OPENER_LIMITS, joiner_limits=JOINER_LIMITS)
    return room, open_room(client, join=False)


def _send(client: httpx.Client, room: Room, other: Room, attempt: Attempt) -> httpx.Response:
    seq = view(client, room, "opener_owner")["seq"]
    body = _fill(attempt.body, seq)
    headers = auth(_token(room, other, attempt.who))
    if isinstance(body, bytes):
        headers["Content-Type"] = "application/json"
        return client.post(room.moves, content=body, headers=headers)
    return client.post(room.moves, json=body, headers=headers)


@pytest.mark.parametrize("attempt", CASES)
def test_the_first_failure_in_check_order_is_the_refusal(
    client: httpx.Client, rooms: tuple[Room, Room], attempt: Attempt
) -> None:
    room, other = rooms
    for step in attempt.setup:
        made = move(client, room, step.who, step.body)
        assert made.status_code == step.status, made.text
    before = snapshot(client, room)
    assert_error(_send(client, room, other, attempt), attempt.code)
    assert snapshot(client, room) == before


def test_a_repeated_message_id_is_answered_before_turn_and_finality(
    client: httpx.Client, rooms: tuple[Room, Room]
) -> None:
    room, other = rooms
    body = {"type": "counter", "terms": terms(9000), "message_id": "m-1", "expected_seq": 2}
    first = move(client, room, "joiner_seat", body)
    assert first.status_code == 200, first.text
    # now it is the opener's turn and seq 2 is stale: the repeat still gets the first answer
    again = move(client, room, "joiner_seat", body)
    assert (again.status_code, again.json()) == (200, first.json())
    assert_error(
        move(client, room, "joiner_seat", {**body, "terms": terms(9100)}), "message_id_reused"
    )
    # scoped to the seat: the same id from the other seat is a new move of its own
    mine = {"type": "counter", "terms": terms(9050), "message_id": "m-1"}
    assert move(client, room, "opener_seat", mine).status_code == 200
    # the owner and the agent are one seat: the owner repeating the agent's id reuses it
    assert_error(
        move(client, room, "joiner_owner", {"type": "cancel", "message_id": "m-1"}),
        "message_id_reused",
    )
    closed = move(client, room, "joiner_owner", {"type": "reject"})
    assert closed.status_code == 200, closed.text
    before = snapshot(client, room)
    final_repeat = move(client, room, "joiner_seat", body)
    assert (final_repeat.status_code, final_repeat.json()) == (200, first.json())
    assert_error(
        move(client, room, "joiner_seat", {**body, "terms": terms(9100)}), "message_id_reused"
    )
    # but not before authentication and authorization
    no_token = client.post(room.moves, json=body)
    assert_error(no_token, "unauthenticated")
    foreign = client.post(room.moves, json=body, headers=auth(other.opener_owner))
    assert_error(foreign, "forbidden")
    assert snapshot(client, room) == before
    ids = [e["message_id"] for e in read_log(client, room)]
    assert ids.count("m-1") == 2  # once per seat


def test_a_repeated_message_id_is_answered_before_invalid_request(
    client: httpx.Client, rooms: tuple[Room, Room]
) -> None:
    room, _ = rooms
    body = {"type": "counter", "terms": terms(9000), "message_id": "m-2"}
    assert move(client, room, "joiner_seat", body).status_code == 200
    before = snapshot(client, room)
    # a used message_id with a different body that has a shape problem
    reused = move(client, room, "joiner_seat", {"type": "approve", "message_id": "m-2"})
    assert_error(reused, "message_id_reused")
    assert snapshot(client, room) == before


def test_a_refused_move_is_not_remembered(client: httpx.Client, rooms: tuple[Room, Room]) -> None:
    room, _ = rooms
    body: dict[str, Any] = {"type": "counter", "terms": terms(9000), "message_id": "m-3"}
    assert_error(move(client, room, "joiner_seat", {**body, "expected_seq": 0}), "raced")
    retried = move(client, room, "joiner_seat", body)
    assert retried.status_code == 200, retried.text


# -- a due expiry is recorded before room_final (these move the clock: a server of their own)


def _log_types(client: httpx.Client, room: Room) -> list[str]:
    return [e["type"] for e in read_log(client, room)]


def test_room_final_after_the_idle_expiry_is_recorded(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client)
        seq = view(client, room, "opener_owner")["seq"]
        server.clock.advance(days=8)
        late = move(
            client,
            room,
            "opener_owner",
            {"type": "counter", "terms": terms(8000), "expected_seq": seq - 1},
        )
        assert_error(late, "room_final")
        log = read_log(client, room)
        assert log[-1]["type"] == "room.expired"
        assert log[-1]["payload"] == {"reason": "idle"}
        assert log[-1]["seq"] == seq + 1
        assert view(client, room, "joiner_owner")["state"] == "expired"


def test_room_final_after_the_deadline_expiry_is_recorded(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client, deadline="2026-12-01T12:00:00Z")
        server.clock.advance(days=1, seconds=1)
        late = move(client, room, "joiner_seat", {"type": "approve", "subject_hash": WRONG_HASH})
        assert_error(late, "room_final")
        log = read_log(client, room)
        assert log[-1]["type"] == "room.expired"
        assert log[-1]["payload"] == {"reason": "deadline"}
        assert _log_types(client, room).count("room.expired") == 1


def test_room_final_on_a_draft_after_the_invite_expired(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client, join=False)
        server.clock.advance(days=3, seconds=1)
        assert_error(move(client, room, "opener_owner", {"type": "cancel"}), "room_final")
        assert read_log(client, room)[-1]["payload"] == {"reason": "invite"}
        late_join = client.post("/v1/rooms/join", json={"invite_token": room.invite})
        assert_error(late_join, "invite_invalid")


def test_a_retry_after_the_expiry_still_gets_the_first_answer(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client)
        body = {"type": "counter", "terms": terms(9000), "message_id": "m-4"}
        first = move(client, room, "joiner_seat", body)
        assert first.status_code == 200, first.text
        server.clock.advance(days=8)
        again = move(client, room, "joiner_seat", body)
        assert (again.status_code, again.json()) == (200, first.json())
        assert_error(move(client, room, "opener_seat", {"type": "cancel"}), "room_final")
        assert _log_types(client, room)[-2:] == ["move.counter", "room.expired"]

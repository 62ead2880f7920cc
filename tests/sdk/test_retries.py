"""Safe retries through `httpx.MockTransport` (spec: Python SDK): which requests are sent
again and after what, that a move keeps its message_id across its retries, and that the
waits stay within `min(8, 0.5 · 2ⁿ)` seconds. Sync and async run the same table."""

import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from accord.sdk import (
    Accord,
    AccordError,
    Applied,
    AsyncAccord,
    AsyncBuyerSession,
    AsyncRoomSeat,
    BuyerSession,
    Decided,
    Handoff,
    JoinedRoom,
    OpenedRoom,
    Policy,
    Room,
    RoomList,
    RoomSeat,
    SessionView,
)
from tests.sdk.conftest import SCHEMA, SKU, Outcome, Script, Waits, terms
from tests.sessions.conftest import POLICY

URL = "http://accord.test"
ENVELOPE = {"seq": 1, "ts": "2026-11-30T12:00:00Z", "type": "move.counter",
            "sender": {"role": "joiner", "via": "owner"}, "payload": {}, "message_id": "m",
            "prev_hash": "sha256:" + "0" * 64}  # fmt: skip
ROOM: dict[str, Any] = {
    "room_id": "room_1", "name": "🦊 Amber Fox", "title": "", "seq": 1, "state": "awaiting",
    "seat": "joiner", "your_turn": False, "turn": "opener", "subject_schema": SCHEMA,
    "table": None, "approvals": [], "pending_confirmation": None, "deadline": None,
    "expires_at": None, "circling": False, "limits_compatible": True, "incompatible_fields": [],
    "outside_your_limits": [], "your_limits": {}, "moves": [], "moves_total": 1,
    "receipt_url": None, "created_at": "2026-11-30T12:00:00Z",
    "updated_at": "2026-11-30T12:00:00Z",
}  # fmt: skip
OPENING = {"nonce": "n", "limits": {}}
OPENED = {"room": ROOM, "seat_token": "seat_x", "owner_token": "owner_x",
          "limits_opening": OPENING,
          "invite": {"token": "invite_x", "url": f"{URL}/rooms/join#invite_x",
                     "expires_at": "2026-12-03T12:00:00Z"}}  # fmt: skip
SESSION = {"session_id": "ses_1", "mode": "test", "sku": SKU, "state": "negotiating", "round": 0,
           "max_rounds": 5, "your_turn": True, "corrective": False, "offer_on_table": None,
           "last_verdict": None, "close": None, "events": [], "receipt": None,
           "session_token": "acc_st_test_x"}  # fmt: skip
HANDOFF = {"kind": "discount_code", "value": "ACC-1", "checkout_url": "https://shop.example/c",
           "expires_at": "2026-11-30T13:00:00Z"}  # fmt: skip


def ok(body: Any, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json=body)


def refused(status: int, code: str, **details: Any) -> httpx.Response:
    headers = {"Retry-After": str(details["retry_after"])} if "retry_after" in details else {}
    body = {"error": {"code": code, "message": f"Refused: {code}.", **details}}
    return httpx.Response(status, json=body, headers=headers)


CONNECT = httpx.ConnectError("connection refused")
READ_TIMEOUT = httpx.ReadTimeout("the server said nothing")
DISCONNECT = httpx.RemoteProtocolError("Server disconnected without sending a response.")
BUSY = httpx.Response(503, text="<html>busy</html>")
BAD_GATEWAY = httpx.Response(502, text="bad gateway")
GATEWAY_TIMEOUT = httpx.Response(504, text="gateway timeout")


@dataclass
class Actors:
    seat: RoomSeat | AsyncRoomSeat
    client: Accord | AsyncAccord

    @property
    def buyer(self) -> Any:
        return self.client.sessions.attach("acc_st_test_x", "ses_1")

    @property
    def merchant(self) -> Any:
        return self.client.merchant("acc_sk_test_x")


Action = Callable[[Actors], Any]
VIEW: Action = lambda a: a.seat.view()  # noqa: E731
MOVE: Action = lambda a: a.seat.counter(terms(9000))  # noqa: E731
OPEN: Action = lambda a: a.client.rooms.open(SCHEMA)  # noqa: E731
JOIN: Action = lambda a: a.client.rooms.join("invite_x")  # noqa: E731
CONFIRM: Action = lambda a: a.seat.confirm("cnf_opener_1")  # noqa: E731
LIST: Action = lambda a: a.client.rooms.list(["seat_x"])  # noqa: E731
SESSION_OPEN: Action = lambda a: a.client.sessions.open("acc_pk_test_x", SKU, agent_id="b")  # noqa: E731
OFFER: Action = lambda a: a.buyer.offer(40000)  # noqa: E731
REVEAL: Action = lambda a: a.buyer.reveal({"ceiling": 1})  # noqa: E731
CLAIM: Action = lambda a: a.buyer.claim_handoff()  # noqa: E731
PUT_POLICY: Action = lambda a: a.merchant.put_policy(SKU, POLICY)  # noqa: E731

APPLIED = ok({"room": ROOM, "move": ENVELOPE})

# (action, what the transport does on each try, tries made, waits, result type or error code)
ROWS = [
    pytest.param(VIEW, [BUSY, BUSY, ok(ROOM)], 3, [0.5, 1.0], Room, id="get_after_503"),
    pytest.param(VIEW, [BAD_GATEWAY, ok(ROOM)], 2, [0.5], Room, id="get_after_502"),
    pytest.param(VIEW, [GATEWAY_TIMEOUT, ok(ROOM)], 2, [0.5], Room, id="get_after_504"),
    pytest.param(VIEW, [CONNECT, ok(ROOM)], 2, [0.5], Room, id="get_after_connect_error"),
    pytest.param(VIEW, [READ_TIMEOUT, ok(ROOM)], 2, [0.5], Room, id="get_after_timeout"),
    pytest.param(VIEW, [DISCONNECT, ok(ROOM)], 2, [0.5], Room, id="get_after_disconnect"),
    pytest.param(
        VIEW,
        [refused(429, "rate_limited", retry_after=3), ok(ROOM)],
        2,
        [3.0],
        Room,
        id="get_after_429_waits_retry_after",
    ),
    pytest.param(
        VIEW,
        [refused(429, "rate_limited"), ok(ROOM)],
        2,
        [0.5],
        Room,
        id="get_after_429_without_retry_after",
    ),
    pytest.param(
        VIEW,
        [refused(429, "rate_limited", retry_after=120)],
        1,
        [],
        "rate_limited",
        id="retry_after_over_a_minute_is_left_to_the_caller",
    ),
    pytest.param(VIEW, [refused(500, "internal")], 1, [], "internal", id="get_500_not_retried"),
    pytest.param(VIEW, [refused(401, "unauthenticated")], 1, [], "unauthenticated", id="get_401"),
    pytest.param(VIEW, [BUSY], 3, [0.5, 1.0], "invalid_response", id="get_retries_run_out"),
    pytest.param(VIEW, [CONNECT], 3, [0.5, 1.0], "network_error", id="unreachable"),
    pytest.param(VIEW, [READ_TIMEOUT], 3, [0.5, 1.0], "timeout", id="never_answers"),
    pytest.param(MOVE, [BUSY, APPLIED], 2, [0.5], Applied, id="move_after_503"),
    pytest.param(MOVE, [READ_TIMEOUT, APPLIED], 2, [0.5], Applied, id="move_after_timeout"),
    pytest.param(MOVE, [DISCONNECT, APPLIED], 2, [0.5], Applied, id="move_after_disconnect"),
    pytest.param(
        MOVE, [refused(409, "not_your_turn")], 1, [], "not_your_turn", id="refusal_not_retried"
    ),
    pytest.param(MOVE, [refused(409, "raced")], 1, [], "raced", id="raced_not_retried"),
    pytest.param(OPEN, [CONNECT, ok(OPENED, 201)], 2, [0.5], OpenedRoom, id="open_never_sent"),
    pytest.param(OPEN, [BUSY], 1, [], "invalid_response", id="open_after_503_not_retried"),
    pytest.param(OPEN, [READ_TIMEOUT], 1, [], "timeout", id="open_after_timeout_not_retried"),
    pytest.param(OPEN, [DISCONNECT], 1, [], "network_error", id="open_after_disconnect"),
    pytest.param(
        JOIN,
        [CONNECT, ok({k: v for k, v in OPENED.items() if k != "invite"})],
        2,
        [0.5],
        JoinedRoom,
        id="join_never_sent",
    ),
    pytest.param(JOIN, [READ_TIMEOUT], 1, [], "timeout", id="join_after_timeout_not_retried"),
    pytest.param(CONFIRM, [CONNECT, ok({"room": ROOM})], 2, [0.5], Decided, id="confirm_unsent"),
    pytest.param(CONFIRM, [BUSY], 1, [], "invalid_response", id="confirm_after_503"),
    pytest.param(
        CONFIRM,
        [refused(429, "rate_limited", retry_after=1)],
        1,
        [],
        "rate_limited",
        id="confirm_after_429",
    ),
    pytest.param(LIST, [BUSY, ok({"rooms": []})], 2, [0.5], RoomList, id="list_is_a_read"),
    pytest.param(
        SESSION_OPEN,
        [CONNECT, ok(SESSION, 201)],
        2,
        [0.5],
        (BuyerSession, AsyncBuyerSession),
        id="session_open_unsent",
    ),
    pytest.param(SESSION_OPEN, [BUSY], 1, [], "invalid_response", id="session_open_after_503"),
    pytest.param(OFFER, [BUSY, ok(SESSION)], 2, [0.5], SessionView, id="offer_after_503"),
    pytest.param(REVEAL, [BUSY], 1, [], "invalid_response", id="reveal_has_no_message_id"),
    pytest.param(REVEAL, [CONNECT, ok(SESSION)], 2, [0.5], SessionView, id="reveal_unsent"),
    pytest.param(CLAIM, [BUSY], 1, [], "invalid_response", id="claim_after_503"),
    pytest.param(
        CLAIM,
        [refused(409, "handoff_pending", retry_after=5)],
        1,
        [],
        "handoff_pending",
        id="handoff_pending_is_a_refusal",
    ),
    pytest.param(CLAIM, [CONNECT, ok(HANDOFF)], 2, [0.5], Handoff, id="claim_unsent"),
    pytest.param(PUT_POLICY, [BUSY, ok(POLICY)], 2, [0.5], Policy, id="put_replaces"),
]


def _sync(script: Script, waits: Waits, action: Action, max_retries: int = 2) -> Any:
    with Accord(
        URL, transport=script.transport, sleep=waits.sleep, jitter=waits.cap,
        max_retries=max_retries,
    ) as client:  # fmt: skip
        return action(Actors(RoomSeat(client, "owner_x", "room_1"), client))


async def _async(script: Script, waits: Waits, action: Action, max_retries: int = 2) -> Any:
    async with AsyncAccord(
        URL, transport=script.transport, sleep=waits.asleep, jitter=waits.cap,
        max_retries=max_retries,
    ) as client:  # fmt: skip
        result = action(Actors(AsyncRoomSeat(client, "owner_x", "room_1"), client))
        assert inspect.isawaitable(result)
        return await result


def _check(run: Callable[[], Any], script: Script, waits: Waits, tries: int, slept: list[float],
           expected: type | str) -> None:  # fmt: skip
    if isinstance(expected, str):
        with pytest.raises(AccordError) as caught:
            run()
        assert caught.value.code == expected
    else:
        assert isinstance(run(), expected)
    assert len(script.requests) == tries
    assert waits.seconds == slept


@pytest.mark.parametrize(("action", "outcomes", "tries", "slept", "expected"), ROWS)
def test_sync_retries(
    action: Action, outcomes: list[Outcome], tries: int, slept: list[float], expected: Any
) -> None:
    script, waits = Script(outcomes), Waits()
    _check(lambda: _sync(script, waits, action), script, waits, tries, slept, expected)


@pytest.mark.anyio
@pytest.mark.parametrize(("action", "outcomes", "tries", "slept", "expected"), ROWS)
async def test_async_retries(
    action: Action, outcomes: list[Outcome], tries: int, slept: list[float], expected: Any
) -> None:
    script, waits = Script(outcomes), Waits()
    if isinstance(expected, str):
        with pytest.raises(AccordError) as caught:
            await _async(script, waits, action)
        assert caught.value.code == expected
    else:
        assert isinstance(await _async(script, waits, action), expected)
    assert len(script.requests) == tries
    assert waits.seconds == slept


def _message_ids(script: Script) -> list[str]:
    return [json.loads(r.content)["message_id"] for r in script.requests]


def test_a_move_keeps_its_message_id_across_its_retries() -> None:
    script = Script([BUSY, READ_TIMEOUT, APPLIED])
    _sync(script, Waits(), MOVE)
    first, *others = _message_ids(script)
    assert re.fullmatch(r"sdk_[0-9a-f]{32}", first)
    assert others == [first, first]
    assert len({r.content for r in script.requests}) == 1  # the same bytes every time


def test_each_move_gets_its_own_message_id() -> None:
    script = Script([APPLIED])
    _sync(script, Waits(), lambda a: [MOVE(a), MOVE(a)])
    assert len(set(_message_ids(script))) == 2


def test_a_given_message_id_is_sent_as_given() -> None:
    script = Script([BUSY, APPLIED])
    _sync(script, Waits(), lambda a: a.seat.counter(terms(9000), message_id="mine-1"))
    assert _message_ids(script) == ["mine-1", "mine-1"]


@pytest.mark.anyio
async def test_an_async_move_keeps_its_message_id() -> None:
    script = Script([DISCONNECT, APPLIED])
    await _async(script, Waits(), MOVE)
    first, second = _message_ids(script)
    assert first == second and first.startswith("sdk_")


def test_a_session_offer_gets_a_message_id_and_a_reveal_none() -> None:
    script = Script([ok(SESSION)])
    _sync(script, Waits(), lambda a: [OFFER(a), REVEAL(a)])
    offer, reveal = (json.loads(r.content) for r in script.requests)
    assert re.fullmatch(r"sdk_[0-9a-f]{32}", offer["message_id"])
    assert "message_id" not in reveal


def test_the_waits_double_up_to_eight_seconds() -> None:
    script, waits = Script([BUSY]), Waits()
    with pytest.raises(AccordError):
        _sync(script, waits, VIEW, max_retries=7)
    assert waits.seconds == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert len(script.requests) == 8


def test_full_jitter_draws_each_wait_within_its_bound() -> None:
    slept: list[float] = []
    client = Accord(URL, transport=Script([BUSY]).transport, sleep=slept.append, max_retries=40)
    with client, pytest.raises(AccordError):
        RoomSeat(client, "owner_x", "room_1").view()
    bounds = [min(8.0, 0.5 * 2**n) for n in range(40)]
    assert all(0.0 <= wait <= bound for wait, bound in zip(slept, bounds, strict=True))
    assert len(set(slept)) > 1  # drawn, not fixed


def test_no_retries_when_max_retries_is_zero() -> None:
    script, waits = Script([BUSY, ok(ROOM)]), Waits()
    with pytest.raises(AccordError):
        _sync(script, waits, VIEW, max_retries=0)
    assert len(script.requests) == 1 and waits.seconds == []

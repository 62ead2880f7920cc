"""Many clients racing one room over HTTP (DESIGN principle 5): one winner per turn, the rest
refused `raced` or `not_your_turn`, a log that verifies and never forks, and retries by
`message_id` applied once."""

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import pytest

from accord.core.chain import verify_chain
from tests.conftest import LiveServer
from tests.http.support import (
    JSONBody,
    Room,
    assert_error,
    auth,
    connect,
    move,
    open_room,
    read_log,
    terms,
    view,
)

T = TypeVar("T")
CLIENTS = 16
ROUNDS = 5


def _in_threads(count: int, work: Callable[[int], T]) -> list[T]:
    """Run work(0..count-1) in threads at once; an exception in any is raised here."""
    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(work, range(count)))


def _assert_log_sound(envelopes: Sequence[JSONBody]) -> None:
    verify_chain(envelopes)
    seqs = [e["seq"] for e in envelopes]
    assert seqs == list(range(len(envelopes)))  # contiguous, one envelope per seq: no fork
    message_ids = [e["message_id"] for e in envelopes]
    assert len(set(message_ids)) == len(message_ids)


@dataclass(frozen=True)
class Outcome:
    seat: str
    message_id: str
    status: int
    code: str | None
    body: JSONBody


def _race(server: LiveServer, room: Room, clients: int, rounds: int) -> list[list[Outcome]]:
    """`clients` threads, half per seat; each round all read the room, wait for each other,
    then send a counter with the seq they read."""
    barrier = threading.Barrier(clients)

    def client_loop(index: int) -> list[Outcome]:
        who = "opener_seat" if index % 2 == 0 else "joiner_seat"
        outcomes = []
        with connect(server.url, room.token(who)) as client:
            for turn in range(rounds):
                seq = client.get(f"/v1/rooms/{room.room_id}").json()["seq"]
                barrier.wait(timeout=30)
                message_id = f"r{turn}-c{index}"
                sent = client.post(
                    room.moves,
                    json={
                        "type": "counter",
                        "terms": terms(100_000 + turn * 100 + index),
                        "expected_seq": seq,
                        "message_id": message_id,
                    },
                )
                body = sent.json()
                code = body["error"]["code"] if sent.status_code != 200 else None
                outcomes.append(Outcome(who, message_id, sent.status_code, code, body))
                barrier.wait(timeout=30)  # the round is over for everyone before the next read
        return outcomes

    per_client = _in_threads(clients, client_loop)
    return [[outcomes[turn] for outcomes in per_client] for turn in range(rounds)]


def _check_race(server: LiveServer, room: Room, clients: int, rounds: int) -> None:
    with connect(server.url) as client:
        start = read_log(client, room)
        rounds_seen = _race(server, room, clients, rounds)
        log = read_log(client, room)
    _assert_log_sound(log)
    assert log[: len(start)] == start
    winners = []
    for outcomes in rounds_seen:
        won = [o for o in outcomes if o.status == 200]
        assert len(won) == 1, [(o.seat, o.status, o.code) for o in outcomes]
        refused = Counter((o.status, o.code) for o in outcomes if o.status != 200)
        assert set(refused) <= {(409, "raced"), (409, "not_your_turn")}, refused
        winners.append(won[0])
    # each winner is the seat whose turn it was, so the turn alternates
    assert [w.seat for w in winners] == [
        ("joiner_seat", "opener_seat")[turn % 2] for turn in range(rounds)
    ]
    appended = log[len(start) :]
    assert [e["type"] for e in appended] == ["move.counter"] * rounds
    assert [e["message_id"] for e in appended] == [w.message_id for w in winners]
    for winner, envelope in zip(winners, appended, strict=True):
        assert winner.body["move"] == envelope


def test_one_winner_per_turn_and_no_fork(shared_server: LiveServer, client: httpx.Client) -> None:
    room = open_room(client)
    _check_race(shared_server, room, CLIENTS, ROUNDS)


def test_several_rooms_race_at_once(shared_server: LiveServer, client: httpx.Client) -> None:
    rooms = [open_room(client) for _ in range(4)]
    _in_threads(len(rooms), lambda i: _check_race(shared_server, rooms[i], 6, 4))


def _send_all(
    server: LiveServer, token: str, path: str, bodies: Sequence[JSONBody]
) -> list[tuple[int, Any]]:
    barrier = threading.Barrier(len(bodies))

    def send(index: int) -> tuple[int, Any]:
        with connect(server.url, token) as client:
            barrier.wait(timeout=30)
            sent = client.post(path, json=bodies[index])
            return sent.status_code, sent.json()

    return _in_threads(len(bodies), send)


@pytest.mark.parametrize("who", ["joiner_seat", "joiner_owner"])
def test_concurrent_retries_apply_once_with_one_answer(
    shared_server: LiveServer, client: httpx.Client, who: str
) -> None:
    room = open_room(client)
    before = read_log(client, room)
    body = {"type": "counter", "terms": terms(9000), "message_id": "same", "expected_seq": 2}
    answers = _send_all(shared_server, room.token(who), room.moves, [body] * CLIENTS)
    assert {status for status, _ in answers} == {200}
    assert all(answer == answers[0][1] for _, answer in answers)
    log = read_log(client, room)
    _assert_log_sound(log)
    assert len(log) == len(before) + 1
    assert log[-1] == answers[0][1]["move"]
    assert log[-1]["message_id"] == "same"
    # later, alone: the same answer again; a different body is refused
    again = move(client, room, who, body)
    assert (again.status_code, again.json()) == (200, answers[0][1])
    other = move(client, room, who, {**body, "terms": terms(9001)})
    assert_error(other, "message_id_reused")
    assert read_log(client, room) == log


def test_concurrent_retries_of_a_move_waiting_for_the_owner(
    shared_server: LiveServer, client: httpx.Client
) -> None:
    room = open_room(client)
    body = {"type": "reject", "message_id": "ask-once"}
    answers = _send_all(shared_server, room.joiner_seat, room.moves, [body] * 8)
    assert {status for status, _ in answers} == {202}
    assert all(answer == answers[0][1] for _, answer in answers)
    pending = client.get(
        f"/v1/rooms/{room.room_id}/confirmations", headers=auth(room.joiner_owner)
    ).json()["confirmations"]
    assert len(pending) == 1
    assert view(client, room, "joiner_owner")["state"] == "awaiting"


def test_one_message_id_two_bodies_at_once(shared_server: LiveServer, client: httpx.Client) -> None:
    room = open_room(client)
    a = {"type": "counter", "terms": terms(9000), "message_id": "twice"}
    b = {"type": "counter", "terms": terms(8000), "message_id": "twice"}
    answers = _send_all(shared_server, room.joiner_seat, room.moves, [a, b] * (CLIENTS // 2))
    log = read_log(client, room)
    _assert_log_sound(log)
    applied = [e for e in log if e["message_id"] == "twice"]
    assert len(applied) == 1
    winner = a if applied[0]["payload"]["terms"] == terms(9000) else b
    for index, (status, answer) in enumerate(answers):
        if (a, b)[index % 2] is winner:
            assert status == 200 and answer["move"] == applied[0]
        else:
            assert (status, answer["error"]["code"]) == (409, "message_id_reused")

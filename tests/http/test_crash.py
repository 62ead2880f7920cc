"""A crash in the middle of a stream of moves (DESIGN principle 5): every move the server
acknowledged is in the log after `accord serve` is killed and restarted, every chain verifies,
and `accord check` agrees."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from accord.core.chain import verify_chain
from tests.conftest import free_port
from tests.http.support import JSONBody, Room, auth, open_room, read_log, terms, view

ROOMS = 4
KILL_AFTER = 40  # acknowledged moves before the kill
START_TIMEOUT = 30.0


def _store_args(data_dir: Path, database_url: str) -> list[str]:
    args = ["--data-dir", str(data_dir)]
    if os.environ.get("ACCORD_TEST_DATABASE_URL"):
        args += ["--database-url", database_url]
    return args


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("ACCORD_")}


@contextmanager
def serving(
    data_dir: Path, database_url: str, logs: Path
) -> Iterator[tuple[str, "subprocess.Popen[bytes]"]]:
    """`accord serve` in a process of its own, once /healthz answers."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "accord", "serve", "--port", str(port)]
    with open(logs, "ab") as log:
        process = subprocess.Popen(
            [*command, *_store_args(data_dir, database_url)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=_clean_env(),
        )
    try:
        _wait_healthy(url, process)
        yield url, process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_healthy(url: str, process: "subprocess.Popen[bytes]") -> None:
    deadline = time.monotonic() + START_TIMEOUT
    with httpx.Client(base_url=url, timeout=2) as client:
        while time.monotonic() < deadline:
            assert process.poll() is None, "accord serve exited before it was healthy"
            try:
                if client.get("/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)  # polling another process: there is nothing to wait on
    raise AssertionError("accord serve did not become healthy")


class Acks:
    """The moves the server acknowledged, per room: message_id → the envelope it returned."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_room: dict[str, dict[str, JSONBody]] = {}
        self.enough = threading.Event()
        self.unexpected: list[str] = []

    def add(self, room_id: str, message_id: str, envelope: JSONBody) -> None:
        with self._lock:
            self.by_room.setdefault(room_id, {})[message_id] = envelope
            if sum(len(m) for m in self.by_room.values()) >= KILL_AFTER:
                self.enough.set()

    def odd(self, text: str) -> None:
        with self._lock:
            self.unexpected.append(text)
        self.enough.set()


def _play(url: str, room: Room, acks: Acks) -> None:
    """Counter after counter, the seats taking turns, until the server goes away."""
    seats = ("joiner_seat", "opener_seat")  # the opener offered at open: the joiner moves first
    with httpx.Client(base_url=url, timeout=10) as client:
        for index in range(10_000):
            message_id = f"{room.room_id}-{index}"
            body = {
                "type": "counter",
                "terms": terms(20_000 + index),
                "message_id": message_id,
            }
            try:
                sent = client.post(
                    room.moves, json=body, headers=auth(room.token(seats[index % 2]))
                )
            except httpx.TransportError:
                return
            if sent.status_code not in (200, 202):
                acks.odd(f"{message_id}: {sent.status_code} {sent.text}")
                return
            acks.add(room.room_id, message_id, sent.json()["move"])


def _check(data_dir: Path, database_url: str) -> JSONBody:
    done = subprocess.run(
        [sys.executable, "-m", "accord", "check", "--json", *_store_args(data_dir, database_url)],
        capture_output=True,
        text=True,
        timeout=60,
        env=_clean_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report: JSONBody = json.loads(done.stdout)
    return report


def test_acknowledged_moves_survive_a_kill(tmp_path: Path, database_url: str) -> None:
    data_dir = tmp_path / "crash-data"
    logs = tmp_path / "serve.log"
    acks = Acks()
    with serving(data_dir, database_url, logs) as (url, process):
        with httpx.Client(base_url=url, timeout=10) as client:
            rooms = [open_room(client) for _ in range(ROOMS)]
        players = [threading.Thread(target=_play, args=(url, room, acks)) for room in rooms]
        for player in players:
            player.start()
        try:
            assert acks.enough.wait(timeout=60), "the moves did not get going"
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        finally:
            for player in players:
                player.join(timeout=30)
        assert not acks.unexpected, acks.unexpected
        assert process.returncode == -signal.SIGKILL

    with serving(data_dir, database_url, logs) as (url, _), httpx.Client(base_url=url) as client:
        for room in rooms:
            log = read_log(client, room)
            verify_chain(log)
            assert [e["seq"] for e in log] == list(range(len(log)))
            by_id = {e["message_id"]: e for e in log}
            for message_id, envelope in acks.by_room.get(room.room_id, {}).items():
                assert by_id.get(message_id) == envelope, message_id
            # the room goes on where it stopped
            turn = view(client, room, "opener_seat")["turn"]
            going_on = client.post(
                room.moves,
                json={"type": "counter", "terms": terms(1_000 + len(log))},
                headers=auth(room.token(f"{turn}_seat")),
            )
            assert going_on.status_code == 200, going_on.text
    assert sum(len(m) for m in acks.by_room.values()) >= KILL_AFTER

    report = _check(data_dir, database_url)
    assert report["ok"] is True, report
    assert report["negotiations"] == ROOMS

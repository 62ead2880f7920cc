"""Instructions a room's move costs the server, counted by callgrind: steadier than time on a
shared machine, where the same move's CPU time moves by ±10% from run to run.

In process: `accord serve`'s app (`create_server`, its access log on), its lifespan and its
writer, on SQLite in a temp dir. `--rooms` rooms are opened and joined, and each is driven by a
task that counters in turn with fresh terms, `expected_seq` and a `message_id`, through raw ASGI
calls (the HTTP parsing of uvicorn is left out; the app, the writer and the store are in). The
answers are not parsed, only their `seq` read.

Without `--callgrind` it prints the process's CPU time a move. With it, the script runs itself
again under `valgrind --tool=callgrind --instr-atstart=no` and switches counting on
(`callgrind_control -i on`) only while the measured moves run, after a warm-up, so that
start-up (imports, schemas, migrations) is not counted; it prints instructions a move. Repeats
agree within about ±1.5%. Needs valgrind (Debian's `valgrind`) for `--callgrind`.

    .venv/bin/python benchmarks/move_instructions.py [--moves 640] [--rooms 16] [--callgrind]
"""

import argparse
import asyncio
import json
import logging.config
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rooms_throughput import SCHEMA, counter, terms

from accord.app.settings import Settings
from accord.cli.server import LOG_CONFIG
from accord.serve import create_server, settle_garbage_collector

WARMUP_MOVES = 20
"""Moves per room before counting: the caches the server keeps are filled by then."""
COUNTING = "ACCORD_BENCH_COUNTING"
"""Set in the run under valgrind, which runs the script as its own process (same pid)."""

Asgi = Any


async def call(app: Asgi, path: str, token: str, body: dict[str, Any]) -> tuple[int, bytes]:
    """One POST through the ASGI app, as uvicorn would hand it over."""
    raw = json.dumps(body).encode()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"bench"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(raw)).encode()),
            (b"authorization", f"Bearer {token}".encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("bench", 80),
    }
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects
        raise AssertionError("unreachable")

    status = 0
    chunks: list[bytes] = []

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        else:
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


class Room:
    def __init__(self, room_id: str, tokens: tuple[str, str], seq: int) -> None:
        self.room_id, self.tokens, self.seq, self.count = room_id, tokens, seq, 0

    async def moves(self, app: Asgi, count: int) -> None:
        for _ in range(count):
            self.count += 1
            token = self.tokens[(self.count - 1) % 2]
            body = counter(self.count, self.seq)
            status, answer = await call(app, f"/v1/rooms/{self.room_id}/moves", token, body)
            if status != 200:
                raise SystemExit(f"move refused {status}: {answer[:300]!r}")
            at = answer.index(b'"seq":') + 6
            self.seq = int(answer[at : answer.index(b",", at)])


async def open_rooms(app: Asgi, count: int) -> list[Room]:
    import httpx  # only to open the rooms

    rooms = []
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        for _ in range(count):
            body = {"subject_schema": SCHEMA, "subject": terms(120_000, 0)}
            opened = (await client.post("/v1/rooms", json=body)).json()
            invite = {"invite_token": opened["invite"]["token"]}
            joined = (await client.post("/v1/rooms/join", json=invite)).json()
            tokens = (joined["seat_token"], opened["seat_token"])
            rooms.append(Room(opened["room"]["room_id"], tokens, joined["room"]["seq"]))
    return rooms


def switch_counting(on: bool) -> None:
    """`callgrind_control -i on|off` for this process, waited for while this process keeps
    running code: valgrind takes the command between two of its blocks, not while we block."""
    command = ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())]
    control = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while control.poll() is None:
        time.sleep(0.02)


async def measure(moves: int, room_count: int) -> float:
    """CPU seconds a move, every thread of the process counted."""
    data_dir = Path(tempfile.mkdtemp(prefix="accord-bench-"))
    try:
        app = create_server(Settings(data_dir=data_dir))
        async with app.router.lifespan_context(app):
            settle_garbage_collector()
            rooms = await open_rooms(app, room_count)
            await asyncio.gather(*(room.moves(app, WARMUP_MOVES) for room in rooms))
            each = moves // room_count
            if COUNTING in os.environ:
                switch_counting(True)
            started = time.process_time()
            await asyncio.gather(*(room.moves(app, each) for room in rooms))
            cpu = time.process_time() - started
            if COUNTING in os.environ:
                switch_counting(False)
        return cpu / (each * room_count)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def under_callgrind(args: argparse.Namespace) -> float:
    """Instructions a move: this script again, under callgrind, counting only the moves."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--callgrind needs valgrind: apt-get install valgrind")
    with tempfile.TemporaryDirectory(prefix="accord-callgrind-") as scratch:
        out = Path(scratch) / "callgrind.out"
        script = [sys.executable, __file__, "--moves", str(args.moves), "--rooms", str(args.rooms)]
        command = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            "--log-file=" + str(Path(scratch) / "valgrind.log"),
            *script,
        ]
        errors = Path(scratch) / "stderr.txt"
        with errors.open("wb") as stderr:
            ran = subprocess.run(
                command, env={**os.environ, COUNTING: "1"}, stdout=subprocess.DEVNULL, stderr=stderr
            )
        if ran.returncode != 0:
            raise SystemExit(f"the run under valgrind failed:\n{errors.read_text()[-3000:]}")
        totals = re.search(r"^totals: (\d+)", out.read_text(), re.MULTILINE)
        if totals is None:
            raise SystemExit("callgrind wrote no totals")
        each = args.moves // args.rooms
        return float(int(totals.group(1)) / (each * args.rooms))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--moves", type=int, default=640, help="moves counted, over all rooms")
    parser.add_argument("--rooms", type=int, default=16, help="rooms driven at once")
    parser.add_argument("--callgrind", action="store_true", help="count instructions")
    args = parser.parse_args()
    if args.moves < args.rooms or args.rooms < 1:
        raise SystemExit("--moves must be at least --rooms, and --rooms at least 1")
    logging.config.dictConfig(LOG_CONFIG)
    for noisy in ("alembic", "httpx", "mcp"):  # migrations, the rooms opened, MCP start, stop
        logging.getLogger(noisy).setLevel(logging.WARNING)
    for handler in logging.getLogger("accord").handlers:  # each line formatted, then dropped
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(open(os.devnull, "w"))  # noqa: SIM115  # for the whole run
    if args.callgrind:
        per_move = under_callgrind(args)
        print(
            f"{per_move / 1e6:.3f} M instructions a move ({args.moves} moves, {args.rooms} rooms)"
        )
        return
    cpu = asyncio.run(measure(args.moves, args.rooms))
    print(f"{cpu * 1e6:.0f} µs of CPU a move ({args.moves} moves, {args.rooms} rooms)")


if __name__ == "__main__":
    main()

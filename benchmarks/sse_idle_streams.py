"""Idle event streams: `/healthz` latency with 500 SSE streams open beside none, in one run,
and every stream still woken by an append to its room.

1. starts `accord serve` (one process) on a fresh temp data dir and a free port: SQLite, or
   with `--database-url` PostgreSQL, in a schema of its own that is dropped at the end;
2. opens and joins `--streams / 4` rooms (the opener's offer on the table, the joiner's turn);
3. `--rounds` rounds, so that a machine's drift falls on both sides alike, of
   - **without**: `--requests` sequential `GET /healthz` on one keep-alive client;
   - `--streams` SSE streams opened, each its own TCP connection, four per room (each seat's
     agent and owner tokens), resuming after the latest event so that they start idle;
     in the first round, the server's CPU over `--idle` seconds (streams that polled the
     store would show here);
   - **with**: the same `/healthz` requests, the streams open;
   - in the last round, **delivery**: one counter in each room; the streams that receive a
     new event within `--deliver-timeout` seconds, and how long after its move was sent;
   - the streams closed;
4. prints p50 and p95 of all rounds' samples, p95 with ÷ p95 without (the aim: at most 2),
   and the delivery count.

Not a test: nothing here asserts a time. Run: `.venv/bin/python benchmarks/sse_idle_streams.py`.
"""

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rooms_throughput import (
    free_port,
    log,
    percentile,
    postgres_schema,
    process_cpu,
    wait_healthy,
)

SCHEMA = {"price": {"type": "money", "currency": "EUR"}}
AIM = 2.0
SEATS = ("opener_seat", "opener_owner", "joiner_seat", "joiner_owner")


def price(amount: int) -> dict[str, Any]:
    return {"price": {"amount_minor": amount, "currency": "EUR"}}


# -- the server ------------------------------------------------------------------------------


@contextlib.contextmanager
def running_server(
    data_dir: Path, port: int, log_file: Path, database_url: str | None
) -> Iterator[subprocess.Popen[bytes]]:
    script = Path(sys.executable).parent / "accord"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "accord"]
    command += ["serve", "--data-dir", str(data_dir), "--host", "127.0.0.1", "--port", str(port)]
    if database_url is not None:
        command += ["--database-url", database_url]
    with log_file.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", process, log_file)
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# -- rooms and streams -----------------------------------------------------------------------


@dataclass
class RoomTokens:
    room_id: str
    tokens: dict[str, str]


def open_rooms(client: httpx.Client, count: int) -> list[RoomTokens]:
    rooms = []
    for _ in range(count):
        opened = client.post("/v1/rooms", json={"subject_schema": SCHEMA, "subject": price(9000)})
        opened.raise_for_status()
        o = opened.json()
        joined = client.post("/v1/rooms/join", json={"invite_token": o["invite"]["token"]})
        joined.raise_for_status()
        j = joined.json()
        tokens = {
            "opener_seat": o["seat_token"],
            "opener_owner": o["owner_token"],
            "joiner_seat": j["seat_token"],
            "joiner_owner": j["owner_token"],
        }
        rooms.append(RoomTokens(o["room"]["room_id"], tokens))
    return rooms


def latest_event_id(client: httpx.Client, room: RoomTokens) -> int:
    """The id of the last event written so far: the joiner's `your_turn` in the last room."""
    headers = {"Authorization": f"Bearer {room.tokens['joiner_owner']}"}
    with client.stream("GET", f"/v1/rooms/{room.room_id}/events", headers=headers) as response:
        response.raise_for_status()
        last = 0
        for line in response.iter_lines():
            if line.startswith("id: "):
                last = int(line.removeprefix("id: "))
            if line.startswith("data: ") and '"type":"your_turn"' in line:
                return last
    raise RuntimeError("the stream ended before the joiner's turn")


@dataclass
class Stream:
    room_id: str
    token: str
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    received: asyncio.Event = field(default_factory=asyncio.Event)
    first_event_at: float | None = None
    frames: int = 0
    error: str | None = None


async def follow(client: httpx.AsyncClient, stream: Stream, after: int) -> None:
    headers = {"Authorization": f"Bearer {stream.token}", "Last-Event-ID": str(after)}
    try:
        async with client.stream(
            "GET", f"/v1/rooms/{stream.room_id}/events", headers=headers
        ) as response:
            if response.status_code != 200:
                stream.error = f"status {response.status_code}"
                stream.opened.set()
                return
            async for line in response.aiter_lines():
                stream.opened.set()  # the stream's first line: it is open
                if line.startswith("id: "):
                    stream.frames += 1
                    if stream.first_event_at is None:
                        stream.first_event_at = time.perf_counter()
                    stream.received.set()
    except httpx.HTTPError as exc:
        stream.error = repr(exc)
        stream.opened.set()


# -- the measurements ------------------------------------------------------------------------


def healthz_samples(base: str, requests: int, warmup: int) -> tuple[list[float], int]:
    """Seconds per sequential `GET /healthz` on one keep-alive client, and the errors."""
    samples: list[float] = []
    errors = 0
    with httpx.Client(base_url=base, timeout=30) as client:
        for index in range(warmup + requests):
            started = time.perf_counter()
            try:
                client.get("/healthz").raise_for_status()
            except httpx.HTTPError:
                errors += 1
                continue
            if index >= warmup:
                samples.append(time.perf_counter() - started)
    return samples, errors


def latency(samples: list[float], errors: int) -> dict[str, Any]:
    return {
        "requests": len(samples),
        "p50_ms": percentile(samples, 0.50),
        "p95_ms": percentile(samples, 0.95),
        "p99_ms": percentile(samples, 0.99),
        "errors": errors,
    }


def server_cpu_per_second(pid: int, seconds: float) -> float:
    before, started = process_cpu(pid), time.perf_counter()
    time.sleep(seconds)
    return (process_cpu(pid) - before) / (time.perf_counter() - started)


async def counter_each_room(
    base: str, rooms: list[RoomTokens], concurrency: int
) -> tuple[dict[str, float], int]:
    """One counter per room by the joiner's seat (it is the joiner's turn): when each was
    sent, and how many were refused."""
    limit = asyncio.Semaphore(concurrency)
    sent: dict[str, float] = {}
    refused = 0

    async def one(client: httpx.AsyncClient, room: RoomTokens) -> None:
        nonlocal refused
        async with limit:
            sent[room.room_id] = time.perf_counter()
            got = await client.post(
                f"/v1/rooms/{room.room_id}/moves",
                json={"type": "counter", "terms": price(8500)},
                headers={"Authorization": f"Bearer {room.tokens['joiner_seat']}"},
            )
            if got.status_code != 200:
                refused += 1

    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        await asyncio.gather(*(one(client, room) for room in rooms))
    return sent, refused


@dataclass
class OpenStreams:
    streams: list[Stream]
    tasks: list["asyncio.Task[None]"]
    seconds: float


@contextlib.asynccontextmanager
async def open_streams(
    base: str, rooms: list[RoomTokens], count: int, after: int, timeout: float
) -> AsyncIterator[OpenStreams]:
    """`count` streams, each its own connection, open (their first line read) and settled."""
    streams = [Stream(room.room_id, room.tokens[seat]) for room in rooms for seat in SEATS]
    streams = streams[:count]
    limits = httpx.Limits(max_connections=len(streams) + 8)
    async with httpx.AsyncClient(
        base_url=base, limits=limits, timeout=httpx.Timeout(30, read=None)
    ) as client:
        started = time.perf_counter()
        tasks = [asyncio.create_task(follow(client, s, after)) for s in streams]
        try:
            await asyncio.wait_for(asyncio.gather(*(s.opened.wait() for s in streams)), timeout)
            seconds = time.perf_counter() - started
            failed = [s.error for s in streams if s.error]
            if failed:
                raise SystemExit(f"{len(failed)} streams failed to open, e.g. {failed[0]}")
            await asyncio.sleep(1.0)  # every stream's first read done
            yield OpenStreams(streams, tasks, seconds)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(1.0)  # the server has seen every stream go


async def run(args: argparse.Namespace, base: str, pid: int) -> dict[str, Any]:
    rooms_count = max(1, args.streams // len(SEATS))
    log(f"opening {rooms_count} rooms")
    with httpx.Client(base_url=base, timeout=60) as client:
        rooms = open_rooms(client, rooms_count)
        after = latest_event_id(client, rooms[-1])
    log(f"idle: server CPU with no stream open, {args.idle:g} s")
    cpu_without = await asyncio.to_thread(server_cpu_per_second, pid, args.idle)

    without: list[float] = []
    with_streams: list[float] = []
    errors = {"without": 0, "with": 0}
    summary: dict[str, Any] = {}
    open_seconds: list[float] = []
    for round_ in range(1, args.rounds + 1):
        log(f"round {round_}/{args.rounds}: healthz, no stream open")
        samples, failed = await asyncio.to_thread(healthz_samples, base, args.requests, args.warmup)
        without += samples
        errors["without"] += failed
        log(f"round {round_}/{args.rounds}: opening {args.streams} streams")
        async with open_streams(base, rooms, args.streams, after, args.deliver_timeout) as held:
            open_seconds.append(held.seconds)
            n = len(held.streams)
            if round_ == 1:
                log(f"idle: server CPU with {n} streams open, {args.idle:g} s")
                summary["server_cpu_idle_with"] = await asyncio.to_thread(
                    server_cpu_per_second, pid, args.idle
                )
            log(f"round {round_}/{args.rounds}: healthz, {n} streams open")
            samples, failed = await asyncio.to_thread(
                healthz_samples, base, args.requests, args.warmup
            )
            with_streams += samples
            errors["with"] += failed
            if round_ == args.rounds:
                summary["frames_while_idle"] = sum(s.frames for s in held.streams)
                log(f"delivery: one counter in each of {len(rooms)} rooms")
                summary |= await deliver(args, base, pid, rooms, held.streams)

    healthz_without = latency(without, errors["without"])
    healthz_with = latency(with_streams, errors["with"])
    p95_with, p95_without = healthz_with["p95_ms"], healthz_without["p95_ms"]
    return {
        "store": "postgresql" if args.database_url else "sqlite",
        "streams": args.streams,
        "rooms": len(rooms),
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "open_seconds": max(open_seconds),
        "healthz_without": healthz_without,
        "healthz_with": healthz_with,
        "p95_ratio": p95_with / p95_without if p95_with and p95_without else None,
        "aim": AIM,
        "server_cpu_idle_without": cpu_without,
        **summary,
    }


async def deliver(
    args: argparse.Namespace, base: str, pid: int, rooms: list[RoomTokens], streams: list[Stream]
) -> dict[str, Any]:
    """One counter in each room; which streams hear of it, and how long after it was sent."""
    cpu_before = process_cpu(pid)
    sent, refused = await counter_each_room(base, rooms, args.concurrency)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(
            asyncio.gather(*(s.received.wait() for s in streams)), args.deliver_timeout
        )
    waits = [s.first_event_at - sent[s.room_id] for s in streams if s.first_event_at is not None]
    return {
        "moves_refused": refused,
        "delivered": len(waits),
        "delivery_p50_ms": percentile(waits, 0.50),
        "delivery_p95_ms": percentile(waits, 0.95),
        "delivery_max_ms": percentile(waits, 1.0),
        "delivery_server_cpu_seconds": process_cpu(pid) - cpu_before,
    }


# -- the report ------------------------------------------------------------------------------


def fmt(value: float | None, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


def report(summary: dict[str, Any]) -> str:
    n = summary["streams"]
    header = f"{'GET /healthz':<36}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'errors':>8}"
    title = f"store: {summary['store']}, {summary['cpus']} cores, {summary['rounds']} rounds"
    lines = [title, header, "-" * len(header)]
    for key, label in (("healthz_without", "no stream open"), ("healthz_with", f"{n} open")):
        r = summary[key]
        lines.append(
            f"{label:<36}{fmt(r['p50_ms']):>9}{fmt(r['p95_ms']):>9}{fmt(r['p99_ms']):>9}"
            f"{r['errors']:>8}"
        )
    ratio = summary["p95_ratio"]
    met = "met" if ratio is not None and ratio <= AIM else "not met"
    rows = [
        ("p95 with ÷ p95 without", f"{fmt(ratio)}   (aim ≤ {AIM:g}: {met})"),
        (f"{n} streams opened in", f"{summary['open_seconds']:.2f} s (slowest round)"),
        ("server CPU idle, no stream", f"{summary['server_cpu_idle_without']:.3f} s/s"),
        (f"server CPU idle, {n} streams", f"{summary['server_cpu_idle_with']:.3f} s/s"),
        ("frames sent while idle", f"{summary['frames_while_idle']}"),
        (
            "streams woken by their room's move",
            f"{summary['delivered']}/{n}   ({summary['rooms']} moves, "
            f"{summary['moves_refused']} refused)",
        ),
        (
            "event after its move was sent",
            f"p50 {fmt(summary['delivery_p50_ms'], '.0f')} ms, "
            f"p95 {fmt(summary['delivery_p95_ms'], '.0f')} ms, "
            f"max {fmt(summary['delivery_max_ms'], '.0f')} ms",
        ),
        ("server CPU, moves and delivery", f"{summary['delivery_server_cpu_seconds']:.2f} s"),
    ]
    lines += ["", *(f"{label:<36}{value}" for label, value in rows)]
    lines.append("(CPU in seconds per wall second; clients and server share the machine)")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--streams", type=int, default=500, help="SSE streams to hold open")
    parser.add_argument(
        "--requests", type=int, default=1000, help="healthz requests per phase and round"
    )
    parser.add_argument("--warmup", type=int, default=100, help="untimed requests per phase")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of (no stream, streams open), interleaved"
    )
    parser.add_argument("--idle", type=float, default=5.0, help="seconds of idle CPU measured")
    parser.add_argument("--concurrency", type=int, default=8, help="moves in flight at once")
    parser.add_argument(
        "--deliver-timeout", type=float, default=60.0, help="seconds to wait for the streams"
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="a PostgreSQL database (postgresql+psycopg://…); the run uses a schema of its own",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--tmp-dir", type=Path, default=None, help="where the temp dir goes")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (server log, db)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="accord-sse-", dir=args.tmp_dir))
    try:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with (
            postgres_schema(args.database_url) as database_url,
            running_server(workdir / "data", port, workdir / "server.log", database_url) as proc,
        ):
            log(f"accord serve pid {proc.pid} on {base}")
            summary = asyncio.run(run(args, base, proc.pid))
    finally:
        if args.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(summary, indent=2) if args.json else report(summary))


if __name__ == "__main__":
    main()

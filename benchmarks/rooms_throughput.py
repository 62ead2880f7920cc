"""Rooms throughput: moves per second over HTTP, side by side with its two ceilings.

One run, one machine, one disk:

1. starts `accord serve` (one process) on a fresh temp data dir and a free port;
2. `GET /healthz` with N client threads: the server's cheapest request (HTTP ceiling);
3. N rooms (opened and joined first), each driven by its own client thread, alternating
   counters between the two seats with fresh terms (seat tokens, so each move applies at once,
   with `expected_seq` and a fresh `message_id` as a careful agent sends them);
4. raw single-row SQLite transactions (WAL, synchronous=FULL) on the same filesystem, with
   plain `sqlite3` in this process: N threads on one file, and one thread (storage ceiling);
5. prints the table and `moves/s ÷ min(ceilings)`; `--json` prints the same as JSON.

With `--rounds N`, steps 2 and 3 and the bare app's `/healthz` run N times in turn, with both
servers up, and each measurement reports its median round: on a shared machine one phase can
land on a busy second and another on a quiet one, and a ratio of single runs moves with that.
Every round's ratio is printed too.

The clients run on the same machine as the server and take CPU too: that is part of why
`/healthz` is a ceiling and not a target. Run: `.venv/bin/python benchmarks/rooms_throughput.py`.
"""

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

HERE = Path(__file__).resolve().parent
SCHEMA = {
    "price": {"type": "money", "currency": "EUR"},
    "day": {"type": "date"},
    "note": {"type": "string", "optional": True},
}
AIM = 0.5
SQLITE_ROW = "x" * 600  # about the size of a stored move envelope


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- measurement helpers ---------------------------------------------------------------------


@dataclass
class Result:
    name: str
    ops: int
    seconds: float
    p50_ms: float | None = None
    p99_ms: float | None = None
    errors: int = 0
    server_cpu: float | None = None  # server CPU seconds per wall second (2.0 = both cores)
    client_cpu: float | None = None  # the same for this process
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.ops / self.seconds if self.seconds else 0.0

    @property
    def server_cpu_ms_per_op(self) -> float | None:
        """Server CPU per operation: steadier than rates when the machine is shared."""
        if self.server_cpu is None or not self.ops:
            return None
        return 1000.0 * self.server_cpu / self.rate


def percentile(samples: list[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index] * 1000.0


def _stat(pid: int | str) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of a process and its children alive now (Linux /proc),
    threads included: `accord serve --workers N` runs its workers as children."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = _stat(entry.name)
        except OSError:
            continue
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += int(fields[11]) + int(fields[12])
    return total / ticks


class CpuMeter:
    def __init__(self, server_pid: int | None) -> None:
        self._pid = server_pid
        self._wall = time.perf_counter()
        self._server = process_cpu(server_pid) if server_pid else 0.0
        self._client = sum(os.times()[:2])

    def stop(self, result: Result) -> None:
        wall = time.perf_counter() - self._wall
        if self._pid:
            result.server_cpu = (process_cpu(self._pid) - self._server) / wall
        result.client_cpu = (sum(os.times()[:2]) - self._client) / wall


def drive(
    name: str,
    workers: list[Callable[[], None]],
    *,
    duration: float,
    warmup: float,
    server_pid: int | None = None,
) -> Result:
    """Run each worker step in its own thread, in a loop; time the steps that start after the
    warm-up and before the end. A step that raises counts as an error (and is not timed)."""
    latencies: list[list[float]] = [[] for _ in workers]
    errors = [0 for _ in workers]
    first_error: list[BaseException] = []
    barrier = threading.Barrier(len(workers) + 1)
    bounds: dict[str, float] = {}

    def loop(index: int, step: Callable[[], None]) -> None:
        barrier.wait()
        start, end = bounds["start"], bounds["end"]
        mine = latencies[index]
        while True:
            t0 = time.perf_counter()
            if t0 >= end:
                return
            try:
                step()
            except Exception as exc:  # counted and shown once, the run goes on
                errors[index] += 1
                if not first_error:
                    first_error.append(exc)
                continue
            if t0 >= start:
                mine.append(time.perf_counter() - t0)

    threads = [
        threading.Thread(target=loop, args=(i, w), name=f"{name}-{i}", daemon=True)
        for i, w in enumerate(workers)
    ]
    for thread in threads:
        thread.start()
    now = time.perf_counter()
    bounds["start"], bounds["end"] = now + warmup, now + warmup + duration
    barrier.wait()
    time.sleep(warmup)
    meter = CpuMeter(server_pid)
    for thread in threads:
        thread.join()
    # Steps still running at the end finish a little later: count the time they took.
    seconds = time.perf_counter() - bounds["start"]
    samples = [s for per in latencies for s in per]
    result = Result(
        name,
        ops=len(samples),
        seconds=seconds,
        p50_ms=percentile(samples, 0.50),
        p99_ms=percentile(samples, 0.99),
        errors=sum(errors),
    )
    meter.stop(result)
    if first_error:
        log(f"  {name}: {result.errors} errors, first: {first_error[0]!r}")
    return result


# -- the server ------------------------------------------------------------------------------


@contextlib.contextmanager
def postgres_schema(base: str | None) -> Iterator[str | None]:
    """A schema of its own in the database `base` names, dropped afterwards."""
    if base is None:
        yield None
        return
    schema = f"accord_bench_{secrets.token_hex(4)}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    separator = "&" if "?" in base else "?"
    try:
        yield f"{base}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class Store:
    """Where the server keeps its data: SQLite in the data dir, or a PostgreSQL database."""

    database_url: str | None = None
    workers: int = 1


def server_command(
    data_dir: Path,
    port: int,
    stats_file: Path | None,
    switch_interval: float | None,
    store: Store = Store(),
) -> list[str]:
    args = ["serve", "--data-dir", str(data_dir), "--port", str(port), "--host", "127.0.0.1"]
    if store.database_url is not None:
        args += ["--database-url", store.database_url, "--workers", str(store.workers)]
    if stats_file is not None:
        wrapper = [sys.executable, str(HERE / "instrumented_serve.py"), "--stats", str(stats_file)]
        if switch_interval is not None:
            wrapper += ["--switch-interval", str(switch_interval)]
        return [*wrapper, *args]
    script = Path(sys.executable).parent / "accord"
    if script.exists():
        return [str(script), *args]
    return [sys.executable, "-m", "accord", *args]


@contextlib.contextmanager
def running_server(
    data_dir: Path,
    port: int,
    log_file: Path,
    stats_file: Path | None,
    switch_interval: float | None = None,
    store: Store = Store(),
) -> Iterator[subprocess.Popen[bytes]]:
    command = server_command(data_dir, port, stats_file, switch_interval, store)
    yield from _serving(command, port, log_file)


@contextlib.contextmanager
def running_bare(port: int, log_file: Path, workers: int = 1) -> Iterator[subprocess.Popen[bytes]]:
    """`bare_asgi.py` under uvicorn: the same server loop with no framework and no store, in as
    many worker processes as Accord's."""
    command = [
        sys.executable, "-m", "uvicorn", "--app-dir", str(HERE), "bare_asgi:app",
        "--host", "127.0.0.1", "--port", str(port), "--lifespan", "off",
        "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip
    if workers > 1:
        command += ["--workers", str(workers)]
    yield from _serving(command, port, log_file)


def _serving(command: list[str], port: int, log_file: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log_file.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", process, log_file)
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_healthy(base: str, process: subprocess.Popen[bytes], log_file: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"accord serve exited early:\n{log_file.read_text()}")
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"accord serve did not become healthy in 30 s:\n{log_file.read_text()}")


def new_client(base: str, token: str | None = None) -> httpx.Client:
    """The one client setup for every HTTP measurement: one keep-alive Client per thread."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=base, headers=headers, timeout=60)


# -- the measurements ------------------------------------------------------------------------


def measure_healthz(base: str, clients: int, duration: float, warmup: float, pid: int) -> Result:
    sessions = [new_client(base) for _ in range(clients)]

    def worker(client: httpx.Client) -> Callable[[], None]:
        def step() -> None:
            client.get("/healthz").raise_for_status()

        return step

    try:
        return drive(
            "healthz",
            [worker(c) for c in sessions],
            duration=duration,
            warmup=warmup,
            server_pid=pid,
        )
    finally:
        for client in sessions:
            client.close()


def terms(amount: int, day: int) -> dict[str, Any]:
    return {
        "price": {"amount_minor": amount, "currency": "EUR"},
        "day": f"2027-01-{1 + day % 28:02d}",
        "note": f"counter at {amount}",
    }


def counter(count: int, seq: int) -> dict[str, Any]:
    """A room's `count`th counter, as a careful agent sends it: fresh terms every move (the
    price walks and never repeats, so no circling), `expected_seq` and a fresh `message_id`."""
    amount = 100_000 - count if count % 2 else 50_000 + count
    return {
        "type": "counter",
        "terms": terms(amount, count),
        "expected_seq": seq,
        "message_id": uuid.uuid4().hex,
    }


@dataclass
class RoomDriver:
    """One room driven by one thread: the joiner and the opener counter in turn."""

    base: str
    room_id: str
    tokens: tuple[str, str]  # (joiner seat token, opener seat token): the joiner moves first
    seq: int
    count: int = 0

    def __post_init__(self) -> None:
        self.clients = [new_client(self.base, t) for t in self.tokens]

    def step(self) -> None:
        client = self.clients[self.count % 2]
        self.count += 1
        body = counter(self.count, self.seq)
        response = client.post(f"/v1/rooms/{self.room_id}/moves", json=body)
        if response.status_code != 200:
            raise RuntimeError(f"move refused {response.status_code}: {response.text[:300]}")
        self.seq = response.json()["room"]["seq"]

    def close(self) -> None:
        for client in self.clients:
            client.close()


def open_rooms(base: str, count: int) -> list[RoomDriver]:
    drivers = []
    with new_client(base) as anyone:
        for _ in range(count):
            opened = anyone.post(
                "/v1/rooms", json={"subject_schema": SCHEMA, "subject": terms(120_000, 0)}
            )
            opened.raise_for_status()
            o = opened.json()
            joined = anyone.post("/v1/rooms/join", json={"invite_token": o["invite"]["token"]})
            joined.raise_for_status()
            j = joined.json()
            drivers.append(
                RoomDriver(
                    base,
                    o["room"]["room_id"],
                    (j["seat_token"], o["seat_token"]),
                    j["room"]["seq"],
                )
            )
    return drivers


def measure_rooms(
    base: str,
    rooms: int,
    duration: float,
    warmup: float,
    process: subprocess.Popen[bytes],
    stats_file: Path | None,
) -> Result:
    drivers = open_rooms(base, rooms)
    if stats_file is not None:
        process.send_signal(signal.SIGUSR1)  # the instrumented server: reset its counters
    try:
        result = drive(
            "moves",
            [d.step for d in drivers],
            duration=duration,
            warmup=warmup,
            server_pid=process.pid,
        )
    finally:
        for driver in drivers:
            driver.close()
    moves = [d.count for d in drivers]
    result.extra["moves_per_room_max"] = max(moves)
    result.extra["moves_per_room_min"] = min(moves)
    if stats_file is not None:
        stats_file.unlink(missing_ok=True)  # an earlier round's
        process.send_signal(signal.SIGUSR2)  # the instrumented server: write its counters
        deadline = time.monotonic() + 5
        while not stats_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        if stats_file.exists():
            result.extra["writer"] = json.loads(stats_file.read_text())
    return result


def measure_postgres(database_url: str, threads: int, duration: float, warmup: float) -> Result:
    """Raw single-row inserts with psycopg, one autocommit transaction each (durable: the
    server's `synchronous_commit` as configured), one connection per thread."""
    import psycopg  # only for a PostgreSQL run

    url = make_url(database_url)
    conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
    connections = [psycopg.connect(conninfo, autocommit=True) for _ in range(threads)]
    connections[0].execute(
        "CREATE TABLE IF NOT EXISTS raw_rows (id BIGSERIAL PRIMARY KEY, thread INT, body TEXT)"
    )

    def worker(index: int, conn: "psycopg.Connection[Any]") -> Callable[[], None]:
        def step() -> None:
            conn.execute("INSERT INTO raw_rows (thread, body) VALUES (%s, %s)", (index, SQLITE_ROW))

        return step

    try:
        return drive(
            f"postgres x{threads}",
            [worker(i, c) for i, c in enumerate(connections)],
            duration=duration,
            warmup=warmup,
        )
    finally:
        for conn in connections:
            conn.close()


def sqlite_connection(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA busy_timeout=30000")
    return conn


def measure_sqlite(directory: Path, threads: int, duration: float, warmup: float) -> Result:
    path = directory / f"raw-{threads}.db"
    setup = sqlite_connection(path)
    setup.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, thread INTEGER, body TEXT)")
    setup.close()
    connections = [sqlite_connection(path) for _ in range(threads)]

    def worker(index: int, conn: sqlite3.Connection) -> Callable[[], None]:
        def step() -> None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute("INSERT INTO rows (thread, body) VALUES (?, ?)", (index, SQLITE_ROW))
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

        return step

    try:
        return drive(
            f"sqlite x{threads}",
            [worker(i, c) for i, c in enumerate(connections)],
            duration=duration,
            warmup=warmup,
        )
    finally:
        for conn in connections:
            conn.close()


# -- the report ------------------------------------------------------------------------------


def fmt(value: float | None, spec: str = ".1f") -> str:
    return "-" if value is None else format(value, spec)


def report(results: dict[str, Result], summary: dict[str, Any]) -> str:
    header = f"{'measurement':<26}{'ops/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
    header += f"{'errors':>8}{'srv cpu':>9}{'cli cpu':>9}{'srv ms/op':>11}"
    lines = [header, "-" * len(header)]
    db = summary["store"]
    labels = {
        "healthz": "GET /healthz (Accord)",
        "bare": "GET /healthz (bare ASGI)",
        "moves": f"moves, {summary['rooms']} rooms",
        "storage_threads": f"{db} tx, {summary['rooms']} threads",
        "storage_single": f"{db} tx, 1 thread",
    }
    for key, label in labels.items():
        r = results[key]
        lines.append(
            f"{label:<26}{r.rate:>10.0f}{fmt(r.p50_ms, '.2f'):>9}{fmt(r.p99_ms, '.2f'):>9}"
            f"{r.errors:>8}{fmt(r.server_cpu, '.2f'):>9}{fmt(r.client_cpu, '.2f'):>9}"
            f"{fmt(r.server_cpu_ms_per_op, '.2f'):>11}"
        )
    if len(summary["rounds"]) > 1:
        each = " ".join(f"{r['ratio']:.3f}" for r in summary["rounds"])
        lines += ["", f"medians of {len(summary['rounds'])} rounds; ratio per round: {each}"]
    lines += [
        "",
        f"store: {db}, {summary['workers']} worker(s)",
        f"HTTP ceiling (best no-op req/s)     {summary['http_ceiling']:>10.0f}",
        f"storage ceiling (best {db} tx/s){'':<{13 - len(db)}}{summary['storage_ceiling']:>10.0f}",
        f"moves/s                             {summary['moves_per_second']:>10.0f}",
        f"moves/s ÷ min(ceilings)             {summary['ratio']:>10.3f}"
        f"   (aim ≥ {AIM}: {'met' if summary['ratio'] >= AIM else 'not met'})",
        f"moves/s ÷ HTTP ceiling              {summary['ratio_http']:>10.3f}",
        f"moves/s ÷ storage ceiling           {summary['ratio_storage']:>10.3f}",
        f"server CPU per move ÷ per no-op     {summary['cpu_move_over_noop']:>10.2f}",
    ]
    writer = results["moves"].extra.get("writer")
    if writer:
        lines.append(
            f"writer: {writer['batches']} batches, mean {writer['mean_batch']:.2f} works/batch, "
            f"busy {writer['busy_fraction']:.0%} of the time, "
            f"{writer['work_ms_per_item']:.2f} ms work per item, "
            f"{writer['commit_ms_per_batch']:.2f} ms begin+commit per batch; "
            f"its thread's CPU {writer['cpu_ms_per_item']:.2f} ms per item; the commit alone "
            f"{writer['commit_wall_ms']:.2f} ms wall, {writer['commit_cpu_ms']:.2f} ms CPU"
        )
    lines.append(
        "(cpu columns: CPU seconds per wall second; srv ms/op: server CPU per request; "
        f"the machine has {os.cpu_count()} cores, clients and server share them)"
    )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per HTTP phase")
    parser.add_argument("--warmup", type=float, default=1.0, help="untimed seconds per phase")
    parser.add_argument(
        "--rooms", type=int, default=16, help="rooms, client threads, sqlite threads"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure Accord's /healthz, the moves and the bare app this many times in turn, "
        "and report each one's median round",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument(
        "--writer-stats",
        action="store_true",
        help="run the server through benchmarks/instrumented_serve.py and report the writer's "
        "batch sizes and timings for the moves phase",
    )
    parser.add_argument(
        "--server-switch-interval",
        type=float,
        default=None,
        metavar="S",
        help="an experiment: the instrumented server (implies --writer-stats) with "
        "sys.setswitchinterval(S); Python's default is 0.005",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="serve from PostgreSQL (postgresql+psycopg://…), in a schema of its own that is "
        "dropped at the end; the storage ceiling is then raw psycopg inserts",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="`accord serve --workers` (PostgreSQL only)"
    )
    parser.add_argument("--tmp-dir", type=Path, default=None, help="where the temp dirs go")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (server log, db)")
    return parser.parse_args(argv)


def emit(
    results: dict[str, Result],
    summary: dict[str, Any],
    *,
    as_json: bool,
    report: Callable[[dict[str, Result], dict[str, Any]], str],
) -> None:
    """Print a run: the table for people, or the summary and every result as JSON."""
    if as_json:
        payload = {
            "summary": summary,
            "results": {
                k: {**asdict(r), "rate": r.rate, "server_cpu_ms_per_op": r.server_cpu_ms_per_op}
                for k, r in results.items()
            },
        }
        print(json.dumps(payload, indent=2))
    else:
        print(report(results, summary))


def median_round(rounds: list[Result]) -> Result:
    """The round whose rate is the median (the lower of the middle two for an even count): a
    measurement as it was taken, not an average of several."""
    middle = statistics.median_low(r.rate for r in rounds)
    return next(r for r in rounds if r.rate == middle)


def ratio_of(results: dict[str, Result]) -> float:
    http = max(results["healthz"].rate, results["bare"].rate)
    storage = max(results["storage_threads"].rate, results["storage_single"].rate)
    return results["moves"].rate / min(http, storage)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.rounds < 1:
        raise SystemExit("--rounds must be at least 1")
    workdir = Path(tempfile.mkdtemp(prefix="accord-bench-", dir=args.tmp_dir))
    instrumented = args.writer_stats or args.server_switch_interval is not None
    stats_file = workdir / "writer-stats.json" if instrumented else None
    rounds: list[dict[str, Result]] = []
    results: dict[str, Result] = {}
    half = max(1.0, args.duration / 2)
    try:
        with postgres_schema(args.database_url) as database_url:
            store = Store(database_url, args.workers)
            port, bare_port = free_port(), free_port()
            base, bare_base = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{bare_port}"
            with (
                running_server(
                    workdir / "data",
                    port,
                    workdir / "server.log",
                    stats_file,
                    args.server_switch_interval,
                    store,
                ) as proc,
                running_bare(bare_port, workdir / "bare.log", args.workers) as bare,
            ):
                log(f"accord serve pid {proc.pid} on {base}, {args.workers} worker(s)")
                for number in range(1, args.rounds + 1):
                    if args.rounds > 1:
                        log(f"round {number} of {args.rounds}")
                    measured: dict[str, Result] = {}
                    log(f"healthz: {args.rooms} client threads, {args.duration:g} s")
                    measured["healthz"] = measure_healthz(
                        base, args.rooms, args.duration, args.warmup, proc.pid
                    )
                    log(f"moves: {args.rooms} rooms, {args.duration:g} s")
                    measured["moves"] = measure_rooms(
                        base, args.rooms, args.duration, args.warmup, proc, stats_file
                    )
                    log(f"bare ASGI healthz: {args.rooms} client threads, {args.duration:g} s")
                    measured["bare"] = measure_healthz(
                        bare_base, args.rooms, args.duration, args.warmup, bare.pid
                    )
                    rounds.append(measured)
            for key in ("healthz", "moves", "bare"):
                results[key] = median_round([measured[key] for measured in rounds])
            if database_url is not None:
                log(f"postgres: {args.rooms} threads, then 1 thread, {half:g} s each")
                results["storage_threads"] = measure_postgres(
                    database_url, args.rooms, half, args.warmup / 2
                )
                results["storage_single"] = measure_postgres(database_url, 1, half, args.warmup / 2)
            else:
                log(f"sqlite: {args.rooms} threads, then 1 thread, {half:g} s each")
                results["storage_threads"] = measure_sqlite(
                    workdir, args.rooms, half, args.warmup / 2
                )
                results["storage_single"] = measure_sqlite(workdir, 1, half, args.warmup / 2)
    finally:
        if args.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    http_ceiling = max(results["healthz"].rate, results["bare"].rate)
    storage_ceiling = max(results["storage_threads"].rate, results["storage_single"].rate)
    moves = results["moves"].rate
    noop_cpu = min(
        r.server_cpu_ms_per_op or float("inf") for r in (results["healthz"], results["bare"])
    )
    summary = {
        "store": "postgres" if args.database_url else "sqlite",
        "workers": args.workers,
        "rooms": args.rooms,
        "duration": args.duration,
        "cpus": os.cpu_count(),
        "http_ceiling": http_ceiling,
        "storage_ceiling": storage_ceiling,
        "moves_per_second": moves,
        "ratio": ratio_of(results),
        "ratio_http": moves / http_ceiling,
        "ratio_storage": moves / storage_ceiling,
        "cpu_move_over_noop": (results["moves"].server_cpu_ms_per_op or 0.0) / noop_cpu,
        "aim": AIM,
        "rounds": [
            {
                **{key: measured[key].rate for key in ("healthz", "moves", "bare")},
                "ratio": ratio_of({**results, **measured}),
            }
            for measured in rounds
        ],
    }
    emit(results, summary, as_json=args.json, report=report)


if __name__ == "__main__":
    main()

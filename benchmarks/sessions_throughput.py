"""Arbitrated sessions throughput: complete sessions per second over HTTP, beside rooms moves
per second on the same server in the same run.

One run, one machine, one disk:

1. `accord merchants create bench --json` on a fresh temp data dir (the tenant and its keys),
   then `accord serve` (one process) on it and a free port;
2. `PUT /v1/policies/BENCH-1` with the secret test key: a linear concession over 5 rounds;
3. `GET /healthz` with N client threads: the server's cheapest request (HTTP ceiling);
4. sessions: N client threads, each running complete sessions one after another: open with
   the publishable key, then buyer offers at the fair edge (`ceil(t_target / (1 + band))` plus
   the arbiter's inclusion value, from the public log) with a fresh `message_id` until the
   merchant's offer is at or below it (accept) or the session ends, then `GET …/receipt` with
   the session token;
5. rooms: N rooms driven as in `rooms_throughput.py` (its functions, the same server);
6. prints sessions/s, buyer moves/s within sessions and rooms moves/s side by side; `--json`
   prints the same as JSON.

Run: `.venv/bin/python benchmarks/sessions_throughput.py` (about 40 s).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from pathlib import Path
from typing import Any

import httpx
from rooms_throughput import (
    Result,
    drive,
    emit,
    fmt,
    free_port,
    log,
    measure_healthz,
    measure_rooms,
    new_client,
    percentile,
    running_server,
)

SKU = "BENCH-1"
POLICY: dict[str, Any] = {
    "description": "Benchmark monitor",
    "currency": "USD",
    "list_price_minor": 44900,
    "reference_price_minor": 41900,
    "floor_minor": 38000,
    "inclusions": [
        {"kind": "warranty", "value_minor": 3900, "included_by_default": True},
        {"kind": "cable", "value_minor": 1500, "included_by_default": True},
    ],
    "concession": {"style": "linear"},
    "max_rounds": 5,
    "round_timeout_seconds": 900,
    "fair_band": "0.05",
    "handoff": {
        "kind": "discount_code",
        "checkout_url": "https://shop.example.com/checkout",
        "ttl_seconds": 3600,
        "publish": "automatic",
    },
    "active": True,
}
MAX_MOVES = 20  # a session that needs more is a bug in the buyer below, not a slow server


def accord_command() -> list[str]:
    script = Path(sys.executable).parent / "accord"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "accord"]


def create_tenant(data_dir: Path) -> dict[str, str]:
    """The tenant's four keys, made on the store before the server starts."""
    made = subprocess.run(
        [*accord_command(), "merchants", "create", "bench", "--json", "--data-dir", str(data_dir)],
        check=True,
        capture_output=True,
        text=True,
    )
    keys: dict[str, str] = json.loads(made.stdout)["keys"]
    return keys


def put_policy(base: str, secret_key: str) -> None:
    with new_client(base, secret_key) as merchant:
        stored = merchant.put(f"/v1/policies/{SKU}", json=POLICY)
        if stored.status_code != 200:
            raise SystemExit(f"the policy was refused: {stored.text}")


def fair_edge(view: dict[str, Any]) -> tuple[int, list[str]]:
    """The buyer's edge of the fair band for the merchant's terms, from public envelopes only:
    `ceil(t_target / (1 + band))` plus the inclusion value the arbiter scored."""
    events = view["events"]
    accept = next(e for e in events if e["type"] == "session.accept")["payload"]
    target = accept["attested"]["t_target"]["amount_minor"]
    band = Decimal(accept["session_rules"]["fair_band"])
    edge = int((Decimal(target) / (1 + band)).quantize(Decimal(1), rounding=ROUND_CEILING))
    evaluated = [e for e in events if e["type"] == "arbitration.evaluate"]
    w = (evaluated[-1]["payload"].get("w_minor") or 0) if evaluated else 0
    kinds = [i["kind"] for i in view["offer_on_table"]["terms"].get("inclusions", [])]
    return edge + w, kinds


@dataclass
class SessionDriver:
    """One client thread running complete sessions, one after another."""

    base: str
    publishable_key: str
    client: httpx.Client = field(init=False)
    # (session start, buyer moves, per-move seconds, final state) of every completed session
    done: list[tuple[float, int, list[float], str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.client = new_client(self.base)

    def step(self) -> None:
        started = time.perf_counter()
        opened = self.client.post(
            "/v1/sessions",
            json={"sku": SKU, "buyer": {"agent_id": "bench-buyer"}},
            headers={"Authorization": f"Bearer {self.publishable_key}"},
        )
        if opened.status_code != 201:
            raise RuntimeError(f"open refused {opened.status_code}: {opened.text[:300]}")
        view = opened.json()
        session_id = view["session_id"]
        auth = {"Authorization": f"Bearer {view['session_token']}"}
        edge, kinds = fair_edge(view)
        timings: list[float] = []
        while view["state"] not in ("agreed", "closed"):
            if len(timings) >= MAX_MOVES:
                raise RuntimeError(f"{session_id} still {view['state']} after {MAX_MOVES} moves")
            table = view.get("offer_on_table")
            if table and table["terms"]["price"]["amount_minor"] <= edge:
                move: dict[str, Any] = {"type": "accept"}
            else:
                move = {"type": "offer", "price_minor": edge, "inclusions": kinds}
            move["message_id"] = uuid.uuid4().hex
            t0 = time.perf_counter()
            answer = self.client.post(
                f"/v1/sessions/{session_id}/messages", json=move, headers=auth
            )
            timings.append(time.perf_counter() - t0)
            if answer.status_code != 200:
                raise RuntimeError(f"move refused {answer.status_code}: {answer.text[:300]}")
            view = answer.json()
        receipt = self.client.get(f"/v1/sessions/{session_id}/receipt", headers=auth)
        if receipt.status_code != 200:
            raise RuntimeError(f"receipt refused {receipt.status_code}: {receipt.text[:300]}")
        self.done.append((started, len(timings), timings, view["state"]))

    def close(self) -> None:
        self.client.close()


def measure_sessions(
    base: str, clients: int, publishable_key: str, duration: float, warmup: float, pid: int
) -> tuple[Result, Result]:
    """Complete sessions, and the buyer moves inside the sessions that were timed."""
    drivers = [SessionDriver(base, publishable_key) for _ in range(clients)]
    began = time.perf_counter()
    try:
        sessions = drive(
            "sessions",
            [d.step for d in drivers],
            duration=duration,
            warmup=warmup,
            server_pid=pid,
        )
    finally:
        for driver in drivers:
            driver.close()
    timed = [s for d in drivers for s in d.done if s[0] >= began + warmup]
    move_times = [t for s in timed for t in s[2]]
    moves = Result(
        "session moves",
        ops=len(move_times),
        seconds=sessions.seconds,
        p50_ms=percentile(move_times, 0.50),
        p99_ms=percentile(move_times, 0.99),
        errors=sessions.errors,
        server_cpu=sessions.server_cpu,
        client_cpu=sessions.client_cpu,
    )
    states = [s[3] for s in timed]
    sessions.extra.update(
        moves_per_session=len(move_times) / len(timed) if timed else 0.0,
        agreed=states.count("agreed"),
        closed=states.count("closed"),
        requests_per_session=(len(move_times) + 2 * len(timed)) / len(timed) if timed else 0,
    )
    return sessions, moves


def report(results: dict[str, Result], summary: dict[str, Any]) -> str:
    header = f"{'measurement':<30}{'ops/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
    header += f"{'errors':>8}{'srv cpu':>9}{'cli cpu':>9}{'srv ms/op':>11}"
    lines = [header, "-" * len(header)]
    n = summary["clients"]
    labels = {
        "healthz": f"GET /healthz, {n} threads",
        "sessions": f"sessions (complete), {n} thr.",
        "session_moves": "  buyer moves within them",
        "rooms_moves": f"rooms moves, {n} rooms",
    }
    for key, label in labels.items():
        r = results[key]
        lines.append(
            f"{label:<30}{r.rate:>10.1f}{fmt(r.p50_ms, '.2f'):>9}{fmt(r.p99_ms, '.2f'):>9}"
            f"{r.errors:>8}{fmt(r.server_cpu, '.2f'):>9}{fmt(r.client_cpu, '.2f'):>9}"
            f"{fmt(r.server_cpu_ms_per_op, '.2f'):>11}"
        )
    extra = results["sessions"].extra
    lines += [
        "",
        f"sessions/s                          {summary['sessions_per_second']:>10.1f}",
        f"moves/s within sessions             {summary['session_moves_per_second']:>10.1f}",
        f"rooms moves/s                       {summary['rooms_moves_per_second']:>10.1f}",
        f"session moves/s ÷ rooms moves/s     {summary['moves_ratio']:>10.3f}",
        f"HTTP requests/s in sessions ÷ healthz {summary['session_requests_ratio']:>8.3f}",
        f"per session: {extra['moves_per_session']:.2f} buyer moves, "
        f"{extra['requests_per_session']:.2f} requests (open, moves, receipt); "
        f"{extra['agreed']} agreed, {extra['closed']} closed",
        "(p50/p99 of sessions: a whole session; cpu columns: CPU seconds per wall second; "
        "srv ms/op: server CPU per row's operation, steadier than rates on a shared machine; "
        f"the machine has {os.cpu_count()} cores, clients and server share them)",
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per phase")
    parser.add_argument("--warmup", type=float, default=1.0, help="untimed seconds per phase")
    parser.add_argument(
        "--clients", type=int, default=16, help="client threads for each phase (and rooms)"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--tmp-dir", type=Path, default=None, help="where the temp dir goes")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (server log, db)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="accord-bench-", dir=args.tmp_dir))
    data = workdir / "data"
    results: dict[str, Result] = {}
    try:
        keys = create_tenant(data)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with running_server(data, port, workdir / "server.log", None) as proc:
            log(f"accord serve pid {proc.pid} on {base}, data in {data}")
            put_policy(base, keys["secret_test"])
            log(f"healthz: {args.clients} client threads, {args.duration:g} s")
            results["healthz"] = measure_healthz(
                base, args.clients, args.duration, args.warmup, proc.pid
            )
            log(f"sessions: {args.clients} client threads, {args.duration:g} s")
            results["sessions"], results["session_moves"] = measure_sessions(
                base, args.clients, keys["publishable_test"], args.duration, args.warmup, proc.pid
            )
            log(f"rooms: {args.clients} rooms, {args.duration:g} s")
            results["rooms_moves"] = measure_rooms(
                base, args.clients, args.duration, args.warmup, proc, None
            )
    finally:
        if args.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    sessions, session_moves = results["sessions"], results["session_moves"]
    rooms_moves, healthz = results["rooms_moves"], results["healthz"]
    requests = sessions.rate * sessions.extra["requests_per_session"]
    summary = {
        "clients": args.clients,
        "duration": args.duration,
        "cpus": os.cpu_count(),
        "http_ceiling": healthz.rate,
        "sessions_per_second": sessions.rate,
        "session_moves_per_second": session_moves.rate,
        "session_requests_per_second": requests,
        "rooms_moves_per_second": rooms_moves.rate,
        "moves_ratio": session_moves.rate / rooms_moves.rate if rooms_moves.rate else 0.0,
        "session_requests_ratio": requests / healthz.rate if healthz.rate else 0.0,
        "moves_per_session": sessions.extra["moves_per_session"],
    }
    emit(results, summary, as_json=args.json, report=report)


if __name__ == "__main__":
    main()

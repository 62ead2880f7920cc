"""What another worker's commit costs a worker, beside what LISTEN costs at the least.

With `accord serve --workers N` on PostgreSQL every commit is announced (NOTIFY) on the
channels of the rooms and scopes it touched, and on one channel carrying every key; a worker
listens on the channels of what its streams follow (and on the shared one only while
something in it follows everything). This measures what a commit to a room the worker does
not follow costs it, in one run:

1. `accord serve` on PostgreSQL (one process, idle: no request, no stream) in a schema of
   its own, and a bare listener beside it that hears every commit, as each worker did when
   every commit was announced to all: psycopg, `LISTEN` on the shared channel, each
   notification read and dropped (`reference`);
2. `--notes` commits' announcements, one transaction each, at `--rate` a second, each
   naming one room, as a move's commit does (`accord.store.notifications.announcements`);
3. each process's CPU time over the notes, less what it spends idle for as long, per note,
   and Accord's over the reference's.

Run: `.venv/bin/python benchmarks/listener_cost.py [--database-url URL]`.
"""

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import psycopg
from rooms_throughput import (
    Store,
    free_port,
    postgres_schema,
    process_cpu,
    server_command,
    wait_healthy,
)

from accord.store.notifications import CHANNEL, announcements, conninfo

DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
IDLE_SECONDS = 3.0

BARE_LISTENER = textwrap.dedent(
    """
    import sys, psycopg
    with psycopg.connect(sys.argv[1], autocommit=True) as conn:
        conn.execute("LISTEN " + sys.argv[2])
        print("listening", flush=True)
        for _ in conn.notifies():
            pass
    """
)


def cpu_per_second(pids: list[int], seconds: float) -> list[float]:
    before = [process_cpu(pid) for pid in pids]
    time.sleep(seconds)
    return [(process_cpu(pid) - b) / seconds for pid, b in zip(pids, before, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database-url", default=DATABASE_URL)
    parser.add_argument("--notes", type=int, default=5000, help="notifications sent")
    parser.add_argument("--rate", type=float, default=500.0, help="notifications a second")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="accord-listener-"))
    announced = announcements({"rom_" + secrets.token_hex(12)})
    try:
        with postgres_schema(args.database_url) as database_url:
            assert database_url is not None
            port = free_port()
            command = server_command(workdir / "data", port, None, None, Store(database_url))
            log_file = workdir / "server.log"
            with log_file.open("wb") as out:
                server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
            bare = subprocess.Popen(
                [sys.executable, "-c", BARE_LISTENER, conninfo(database_url), CHANNEL],
                stdout=subprocess.PIPE,
            )
            try:
                wait_healthy(f"http://127.0.0.1:{port}", server, log_file)
                assert bare.stdout is not None and bare.stdout.readline()
                time.sleep(1.0)  # the server's start-up work settles
                pids = [server.pid, bare.pid]
                idle = cpu_per_second(pids, IDLE_SECONDS)
                before = [process_cpu(pid) for pid in pids]
                started = time.monotonic()
                with psycopg.connect(conninfo(database_url)) as conn:
                    for n in range(args.notes):
                        with conn.transaction():
                            for name, payload in announced:
                                conn.execute("SELECT pg_notify(%s, %s)", (name, payload))
                        delay = started + (n + 1) / args.rate - time.monotonic()
                        if delay > 0:
                            time.sleep(delay)
                time.sleep(0.5)  # the last ones heard
                seconds = time.monotonic() - started
                spent = [
                    process_cpu(pid) - b - i * seconds
                    for pid, b, i in zip(pids, before, idle, strict=True)
                ]
            finally:
                bare.kill()
                server.terminate()
                server.wait(timeout=15)
                bare.wait()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    accord_us, bare_us = (1e6 * s / args.notes for s in spent)
    print(f"{args.notes} commits to a room at {args.rate:g}/s; CPU per commit:")
    print(f"  accord serve (idle worker, no stream follows the room)  {accord_us:8.1f} µs")
    print(f"  bare psycopg listener, hearing every commit             {bare_us:8.1f} µs")
    print(f"  accord ÷ bare                                           {accord_us / bare_us:8.2f}")
    print(f"(idle CPU: accord {1000 * idle[0]:.1f} ms/s, bare {1000 * idle[1]:.1f} ms/s)")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()

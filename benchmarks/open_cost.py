"""What opening a room costs as the store grows: the same opens through the rooms service at
1,000 and at 100,000 stored live rooms, in one run, beside the raw durable insert of one row
into the same store (the reference no open can beat). The aim is a ratio near 1: an open must
not read the rooms that are already there.

    .venv/bin/python benchmarks/open_cost.py [--rooms 1000,100000] [--opens 300] [--json]
"""

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from accord.app.root import Accord
from accord.app.settings import Settings
from accord.protocols.rooms import names
from accord.protocols.rooms.moves import OpenRequest

SCHEMA = {"price": {"type": "money", "currency": "EUR"}}
TERMS = {"price": {"amount_minor": 42000, "currency": "EUR"}}


def fill(path: Path, upto: int) -> None:
    """Live rooms straight into the store (each with a live name, as opens would leave them),
    up to `upto` rows: the rooms an open must not look at."""
    conn = sqlite3.connect(path)
    have = conn.execute("SELECT count(*) FROM negotiations").fetchone()[0]
    sizes = (len(names.ADJECTIVES), len(names.ANIMALS))
    rows = []
    for i in range(have, upto):
        name = names.room_name(i % sizes[0], (i // sizes[0]) % sizes[1], 10**6 + i)
        rows.append((f"room_fill{i:09d}", "rooms", name, "2026-12-01T00:00:00Z"))
    conn.executemany(
        "INSERT INTO negotiations (id, protocol, name, seq, head_hash, state, version, "
        "is_final, expires_at, created_at, updated_at) VALUES (?, ?, ?, 0, NULL, '{}', '', 0, "
        "'2099-01-01T00:00:00Z', ?, ?)",
        [(*row, row[3]) for row in rows],
    )
    conn.commit()
    conn.close()


def time_opens(accord: Accord, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        accord.rooms.open(OpenRequest(subject_schema=SCHEMA, subject=TERMS))
        samples.append(time.perf_counter() - start)
    return samples


def raw_inserts(folder: Path, count: int) -> list[float]:
    """One durable single-row transaction each, WAL and synchronous=FULL, as the store runs."""
    conn = sqlite3.connect(folder / "raw.db", isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)")
    samples = []
    for i in range(count):
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (id, body) VALUES (?, ?)", (i, "x" * 600))
        conn.execute("COMMIT")
        samples.append(time.perf_counter() - start)
    conn.close()
    return samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", default="1000,100000", help="store sizes, comma-separated")
    parser.add_argument("--opens", type=int, default=300, help="opens timed at each size")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.rooms.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        settings = Settings(data_dir=folder / "data")
        accord = Accord(settings, clock=lambda: datetime.now(UTC))
        database = folder / "data" / "accord.db"
        out: dict[str, Any] = {"opens": args.opens, "sizes": {}}
        try:
            time_opens(accord, 20)  # warm-up: the writer, the caches, the keyring
            for size in sizes:
                print(f"filling to {size} rooms…", file=sys.stderr, flush=True)
                fill(database, size)
                samples = time_opens(accord, args.opens)
                out["sizes"][size] = {
                    "open_ms_p50": 1000 * statistics.median(samples),
                    "open_ms_mean": 1000 * statistics.fmean(samples),
                }
        finally:
            accord.close()
        raw = raw_inserts(folder, args.opens)
        out["raw_insert_ms_p50"] = 1000 * statistics.median(raw)
    first, last = out["sizes"][sizes[0]], out["sizes"][sizes[-1]]
    out["growth"] = last["open_ms_p50"] / first["open_ms_p50"]
    out["open_over_raw_insert"] = first["open_ms_p50"] / out["raw_insert_ms_p50"]
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for size, row in out["sizes"].items():
        print(f"open at {size:>7} stored rooms: p50 {row['open_ms_p50']:.2f} ms, "
              f"mean {row['open_ms_mean']:.2f} ms")  # fmt: skip
    print(f"raw durable insert (same disk):  p50 {out['raw_insert_ms_p50']:.2f} ms")
    print(f"growth {sizes[0]} → {sizes[-1]} rooms: ×{out['growth']:.2f} (aim: about 1)")
    print(f"open ÷ raw insert: ×{out['open_over_raw_insert']:.2f}")


if __name__ == "__main__":
    main()

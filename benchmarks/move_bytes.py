"""Bytes a room's move writes, at its 1st and its 2,000th move, beside the raw durable append.

In process, through the rooms service and the kernel (no HTTP), on a fresh store: SQLite in a
temp dir, or PostgreSQL with `--database-url` (a schema of its own, dropped at the end). One
room; its seats counter in turn with fresh terms and a `message_id` each. The 1st and the last
move are measured alone, from the store (`accord.store.footprint`): the state as stored, the
answer kept for a retry, and the rows appended (envelopes, events, seen terms); the history in
between is made many moves to a transaction. The reference is the envelope the move appended:
what a raw durable append of the move would write. The aim: late ÷ early near 1.

    .venv/bin/python benchmarks/move_bytes.py [--moves 2000] [--database-url URL] [--json]
"""

import argparse
import json
import shutil
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from rooms_throughput import postgres_schema
from sqlalchemy import Connection

from accord.app.root import Accord
from accord.app.settings import Settings
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.store.footprint import footprint, written

SCHEMA = {
    "price": {"type": "money", "currency": "EUR"},
    "day": {"type": "date"},
    "note": {"type": "string", "optional": True},
}
BATCH = 250


def counter(n: int) -> MoveRequest:
    """As `rooms_throughput.py` moves: the price walks and never repeats."""
    return MoveRequest(
        type="counter",
        terms={
            "price": {"amount_minor": 100_000 + n, "currency": "EUR"},
            "day": f"2027-01-{1 + n % 28:02d}",
            "note": f"counter at {100_000 + n}",
        },
        message_id=f"move-{n}",
    )


class Room:
    def __init__(self, accord: Accord) -> None:
        self.accord = accord
        opened = accord.rooms.open(OpenRequest(subject_schema=SCHEMA, subject=counter(-1).terms))
        joined = accord.rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
        self.id: str = opened["room"]["room_id"]
        self.tokens = (joined["seat_token"], opened["seat_token"])

    def measured(self, n: int) -> dict[str, int]:
        """What move `n` wrote, table by table."""
        before = self.accord.negotiations.read(lambda conn: footprint(conn, self.id))
        status, _ = self.accord.rooms.move(self.tokens[n % 2], self.id, counter(n))
        assert status == 200
        return written(before, self.accord.negotiations.read(lambda conn: footprint(conn, self.id)))

    def history(self, numbers: range) -> None:
        txns: list[Callable[[Connection], object]] = [
            self.accord.rooms._move_txn(self.tokens[n % 2], self.id, counter(n)) for n in numbers
        ]
        for start in range(0, len(txns), BATCH):
            self.accord.negotiations.write(partial(_all, txns[start : start + BATCH]))


def _all(txns: list[Callable[[Connection], object]], conn: Connection) -> list[object]:
    return [txn(conn) for txn in txns]


def run(database_url: str, data_dir: Path, moves: int) -> dict[str, Any]:
    accord = Accord(Settings(data_dir=data_dir, database_url=database_url))
    try:
        room = Room(accord)
        early = room.measured(0)
        room.history(range(1, moves - 1))
        late = room.measured(moves - 1)
    finally:
        accord.close()
    total_early, total_late = sum(early.values()), sum(late.values())
    return {
        "moves": moves,
        "early": early,
        "late": late,
        "early_total": total_early,
        "late_total": total_late,
        "late_over_early": total_late / total_early,
        "raw_append": late["envelopes"],
        "late_over_raw_append": total_late / late["envelopes"],
    }


def report(store: str, result: dict[str, Any]) -> str:
    early, late = result["early"], result["late"]
    lines = [f"bytes a move writes ({store}), move 1 and move {result['moves']:,}", ""]
    lines.append(f"{'table':<18}{'move 1':>10}{'move ' + format(result['moves'], ','):>14}")
    for key in early:
        lines.append(f"{key:<18}{early[key]:>10,}{late[key]:>14,}")
    lines += [
        f"{'all':<18}{result['early_total']:>10,}{result['late_total']:>14,}",
        "",
        f"late ÷ early                {result['late_over_early']:.2f}   (aim: about 1)",
        f"raw durable append (the move's envelope)  {result['raw_append']:,} bytes; "
        f"late ÷ raw append {result['late_over_raw_append']:.1f}",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--moves", type=int, default=2000, help="the move measured late")
    parser.add_argument("--database-url", default=None, help="PostgreSQL (a schema of its own)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="accord-bytes-"))
    try:
        with postgres_schema(args.database_url) as url:
            database_url = url or f"sqlite:///{workdir / 'accord.db'}"
            result = run(database_url, workdir, args.moves)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    store = "postgresql" if args.database_url else "sqlite"
    print(json.dumps({"store": store, **result}, indent=2) if args.json else report(store, result))


if __name__ == "__main__":
    main()

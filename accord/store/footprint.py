"""How many bytes of row data a negotiation holds, table by table: what a move wrote is the
difference before and after it (the state is rewritten whole, so it counts at its size).
`benchmarks/move_bytes.py` and the tests hold moves to it."""

from typing import Final

from sqlalchemy import Connection

from accord.store.driver import execute

APPENDED: Final = {
    "envelopes": "body",
    "private_records": "body",
    "events": "data",
    "idempotency": "response",
    "seen": "seen_key",
}
"""Each append-only table a move may add to, with its bulky column."""


def footprint(conn: Connection, negotiation_id: str) -> dict[str, int]:
    """Bytes per table for one negotiation; `state` is its stored state's size."""
    sizes = {}
    for table, column in APPENDED.items():
        sql = f"SELECT coalesce(sum(length({column})), 0) FROM {table} WHERE negotiation_id = :id"
        sizes[table] = int(execute(conn, sql, {"id": negotiation_id}).fetchone()[0])
    state = execute(conn, "SELECT state FROM negotiations WHERE id = :id", {"id": negotiation_id})
    sizes["state"] = len(state.fetchone()[0].encode())
    return sizes


def written(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """What one write added to each table, and the state as it now stands."""
    return {k: after[k] - before[k] if k != "state" else after[k] for k in after}

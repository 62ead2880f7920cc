"""`accord check`: verify every chain and rebuild every projection from the logs and private
records, reporting each negotiation whose stored state disagrees."""

import secrets
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection

from accord.core.chain import ChainError, ChainHead, verify_chain
from accord.core.envelope import Envelope
from accord.core.jsonio import JSONError, parse_canonical
from accord.core.protocol import Table
from accord.core.step import replay
from accord.store import records
from accord.store.database import Database


@dataclass
class Report:
    negotiations: int = 0
    problems: list[dict[str, str]] = field(default_factory=list)
    repaired: list[dict[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "negotiations": self.negotiations,
            "problems": self.problems,
            "ok": self.ok,
        }
        if self.repaired:
            out["repaired"] = self.repaired
        return out


def check(db: Database, tables: Mapping[str, Table[Any]], *, repair: bool = False) -> Report:
    report = Report()
    ids = db.read(records.all_negotiation_ids)
    for negotiation_id, protocol in ids:
        report.negotiations += 1
        table = tables.get(protocol)
        problem = (
            f"unknown protocol {protocol!r}"
            if table is None
            else db.read(partial(_check_one, negotiation_id=negotiation_id, table=table))
        )
        if problem is None:
            continue
        if repair and table is not None and problem.startswith("projection"):
            db.write(partial(_rebuild, negotiation_id=negotiation_id, table=table))
            report.repaired.append({"id": negotiation_id, "problem": problem})
        else:
            report.problems.append({"id": negotiation_id, "problem": problem})
    return report


def _envelopes(bodies: list[bytes], what: str) -> list[Envelope]:
    parsed = []
    for index, body in enumerate(bodies):
        try:
            parsed.append(parse_canonical(body))
        except JSONError as exc:
            raise ChainError(f"{what} {index} is not canonical JSON: {exc.reason}") from None
    verify_chain(parsed)
    return [Envelope.from_json(value) for value in parsed]


def _replayed(
    conn: Connection, negotiation_id: str, table: Table[Any]
) -> tuple[Any, list[Envelope]]:
    public = _envelopes(records.read_log_bodies(conn, negotiation_id), "envelope")
    by_party: dict[str, list[bytes]] = defaultdict(list)
    for party, body in records.read_private(conn, negotiation_id):
        by_party[party].append(body)
    private: list[tuple[str, Envelope]] = []
    for party, bodies in sorted(by_party.items()):
        private += [(party, e) for e in _envelopes(bodies, f"private record of {party}")]
    return replay(table, public, private), public


def _check_one(conn: Connection, *, negotiation_id: str, table: Table[Any]) -> str | None:
    row = records.read_negotiation(conn, negotiation_id)
    assert row is not None
    try:
        state, public = _replayed(conn, negotiation_id, table)
    except (ChainError, JSONError, ValueError) as exc:
        return f"chain: {exc}"
    if row.seq != len(public) - 1:
        return f"projection: seq {row.seq} but the log has {len(public)} envelopes"
    if row.head_hash != verify_chain([e.to_json() for e in public]):
        return "projection: the stored chain head is not the log's"
    try:
        tail = public[-table.tail_size :] if table.tail_size else []
        stored = table.restore(row.state or "", tail)
    except ValidationError:
        return "projection: the stored state cannot be read"
    if records.read_seen(conn, negotiation_id) != _seen(table, public):
        return "projection: the seen keys differ from the log's"
    if stored != state:
        differing = sorted(
            k for k in table.state_type.model_fields if getattr(stored, k) != getattr(state, k)
        )
        return f"projection: stored state differs from the log in {differing}"
    if row.is_final != table.is_final(state):
        return "projection: is_final differs from the log"
    return None


def _seen(table: Table[Any], public: list[Envelope]) -> set[str]:
    return {key for e in public if (key := table.seen_key(e)) is not None}


def _rebuild(conn: Connection, *, negotiation_id: str, table: Table[Any]) -> None:
    state, public = _replayed(conn, negotiation_id, table)
    records.insert_seen(
        conn, negotiation_id, sorted(_seen(table, public) - records.read_seen(conn, negotiation_id))
    )
    head = ChainHead(len(public), verify_chain([e.to_json() for e in public]))
    records.save_projection(
        conn,
        negotiation_id,
        head=head,
        state=table.dump(state),
        version=secrets.token_hex(12),
        is_final=table.is_final(state),
        expires_at=table.expires_at(state),
        now=public[-1].ts,
    )

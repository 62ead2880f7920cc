"""Reading and writing rows: negotiations, logs, private records, credentials, idempotency.
Functions of a Connection, so that callers choose the transaction. Events have their own
module, `accord.store.events`."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, NamedTuple

from sqlalchemy import Connection, bindparam, insert, select

from accord.core.chain import ChainHead
from accord.core.commit import Hash, commit_bytes
from accord.core.envelope import Envelope
from accord.core.jsonio import parse_canonical
from accord.store.driver import execute as _raw
from accord.store.driver import insert as insert_rows
from accord.store.tables import (
    LIVE,
    credentials,
    envelopes,
    negotiations,
    private_records,
    receipts,
)
from accord.store.tables import seen as seen_table


@dataclass(frozen=True)
class NegotiationRow:
    id: str
    protocol: str
    seq: int
    head_hash: Hash | None
    version: str
    is_final: bool
    state: str | None

    @property
    def head(self) -> ChainHead:
        return ChainHead(self.seq + 1, self.head_hash)


_BY_ID: Final = negotiations.c.id == bindparam("negotiation_id")
_HEAD: Final = (
    negotiations.c.id,
    negotiations.c.protocol,
    negotiations.c.seq,
    negotiations.c.head_hash,
    negotiations.c.version,
    negotiations.c.is_final,
)
_READ: Final = select(*_HEAD, negotiations.c.state).where(_BY_ID)


# The state only when it is not the version the caller holds: a process that made the last
# move reads none, and one that did not reads it in the same round trip as the lock.
_LOCK_SQL: Final = (
    "SELECT id, protocol, seq, head_hash, version, is_final, "
    "CASE WHEN version = :cached THEN NULL ELSE state END FROM negotiations WHERE id = :id"
)


def lock_negotiation(
    conn: Connection, negotiation_id: str, cached_version: str | None = None
) -> NegotiationRow | None:
    """The negotiation's row, locked for this transaction (on SQLite the writer already holds
    the database lock), with its state unless the stored version is `cached_version`."""
    sql = _LOCK_SQL + (" FOR UPDATE" if conn.dialect.name == "postgresql" else "")
    row = _raw(conn, sql, {"id": negotiation_id, "cached": cached_version}).fetchone()
    return None if row is None else _locked_row(row)


class Length(NamedTuple):
    protocol: str
    seq: int


def length_of(conn: Connection, negotiation_id: str, *, lock: bool = False) -> Length | None:
    """The negotiation's protocol and last seq, never its state: for a caller that checks a
    table exists, follows how far its log runs or (`lock`) serialises on its row."""
    query = select(negotiations.c.protocol, negotiations.c.seq).where(_BY_ID)
    if lock:
        query = query.with_for_update()
    row = conn.execute(query, {"negotiation_id": negotiation_id}).first()
    return None if row is None else Length(row[0], row[1])


def _locked_row(row: Sequence[Any]) -> NegotiationRow:
    """A locked row, in `_LOCK_SQL`'s order: its state None when the cached one is current."""
    return NegotiationRow(row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6])


def read_negotiation(conn: Connection, negotiation_id: str) -> NegotiationRow | None:
    row = conn.execute(_READ, {"negotiation_id": negotiation_id}).first()
    return NegotiationRow(*row) if row is not None else None


def insert_negotiation(
    conn: Connection, negotiation_id: str, protocol: str, *, name: str | None, now: str
) -> None:
    conn.execute(
        insert(negotiations).values(
            id=negotiation_id,
            protocol=protocol,
            name=name,
            seq=-1,
            head_hash=None,
            state="{}",
            version="",
            is_final=False,
            expires_at=None,
            created_at=now,
            updated_at=now,
        )
    )


def save_projection(
    conn: Connection,
    negotiation_id: str,
    *,
    head: ChainHead,
    state: str,
    version: str,
    is_final: bool,
    expires_at: str | None,
    now: str,
) -> None:
    """`version` is new and random on every save, so that a cached state from a write that
    was rolled back can never pass for the stored one."""
    _raw(
        conn,
        "UPDATE negotiations SET seq = :seq, head_hash = :head_hash, state = :state, "
        "version = :version, is_final = :is_final, expires_at = :expires_at, "
        "updated_at = :updated_at WHERE id = :id",
        {
            "id": negotiation_id,
            "seq": head.next_seq - 1,
            "head_hash": head.head,
            "state": state,
            "version": version,
            "is_final": is_final,
            "expires_at": expires_at,
            "updated_at": now,
        },
    )


IS_NAME_LIVE: Final = f"SELECT 1 FROM negotiations WHERE name = :name AND {LIVE}"
DUE: Final = (
    f"SELECT id, protocol FROM negotiations WHERE {LIVE} AND expires_at <= :now "
    "ORDER BY expires_at LIMIT :limit"
)


def is_name_live(conn: Connection, name: str) -> bool:
    """On the partial index of live names: opening a room never scans the table."""
    return _raw(conn, IS_NAME_LIVE, {"name": name}).fetchone() is not None


def due_negotiations(conn: Connection, now: str, limit: int = 500) -> list[tuple[str, str]]:
    """`(id, protocol)` of live negotiations whose expiry is due, soonest first, on the
    partial index: the sweep reads only what is due."""
    return [(row[0], row[1]) for row in _raw(conn, DUE, {"now": now, "limit": limit}).fetchall()]


def all_negotiation_ids(conn: Connection) -> list[tuple[str, str]]:
    query = select(negotiations.c.id, negotiations.c.protocol).order_by(negotiations.c.id)
    return [(row.id, row.protocol) for row in conn.execute(query)]


def insert_envelope(conn: Connection, negotiation_id: str, envelope: Envelope, body: bytes) -> None:
    """Store the envelope's canonical bytes, `body`, which the caller hashes for the chain."""
    _raw(
        conn,
        "INSERT INTO envelopes (negotiation_id, seq, type, body) "
        "VALUES (:negotiation_id, :seq, :type, :body)",
        {
            "negotiation_id": negotiation_id,
            "seq": envelope.seq,
            "type": envelope.type,
            "body": body.decode(),
        },
    )


_TAIL_SQL: Final = (
    "SELECT body FROM envelopes WHERE negotiation_id = :id AND seq > :after AND seq <= :last "
    "ORDER BY seq"
)


def read_log_tail(
    conn: Connection, negotiation_id: str, *, last_seq: int, size: int
) -> list[Envelope]:
    """The last `size` envelopes of a log that ends at `last_seq`, on the log's key."""
    if size <= 0:
        return []
    rows = _raw(
        conn, _TAIL_SQL, {"id": negotiation_id, "after": last_seq - size, "last": last_seq}
    ).fetchall()
    return [Envelope.from_json(parse_canonical(row[0].encode())) for row in rows]


def has_seen(conn: Connection, negotiation_id: str, key: str) -> bool:
    row = _raw(
        conn,
        "SELECT 1 FROM seen WHERE negotiation_id = :id AND seen_key = :key",
        {"id": negotiation_id, "key": key},
    ).fetchone()
    return row is not None


def insert_seen(conn: Connection, negotiation_id: str, keys: Sequence[str]) -> None:
    if keys:
        insert_rows(conn, "seen", [{"negotiation_id": negotiation_id, "seen_key": k} for k in keys])


def read_seen(conn: Connection, negotiation_id: str) -> set[str]:
    query = select(seen_table.c.seen_key).where(seen_table.c.negotiation_id == negotiation_id)
    return set(conn.execute(query).scalars())


def read_log(conn: Connection, negotiation_id: str) -> list[Envelope]:
    query = (
        select(envelopes.c.body)
        .where(envelopes.c.negotiation_id == negotiation_id)
        .order_by(envelopes.c.seq)
    )
    return [Envelope.from_json(parse_canonical(b.encode())) for b in conn.execute(query).scalars()]


def read_log_bodies(conn: Connection, negotiation_id: str) -> list[bytes]:
    query = (
        select(envelopes.c.body)
        .where(envelopes.c.negotiation_id == negotiation_id)
        .order_by(envelopes.c.seq)
    )
    return [b.encode() for b in conn.execute(query).scalars()]


def private_head(conn: Connection, negotiation_id: str, party: str) -> ChainHead:
    query = (
        select(private_records.c.seq, private_records.c.body)
        .where(private_records.c.negotiation_id == negotiation_id, private_records.c.party == party)
        .order_by(private_records.c.seq.desc())
        .limit(1)
    )
    row = conn.execute(query).first()
    if row is None:
        return ChainHead()
    return ChainHead(row.seq + 1, commit_bytes(row.body.encode()))


def insert_private(
    conn: Connection, negotiation_id: str, party: str, record: Envelope, body: bytes
) -> None:
    conn.execute(
        insert(private_records).values(
            negotiation_id=negotiation_id,
            party=party,
            seq=record.seq,
            type=record.type,
            body=body.decode(),
        )
    )


def read_private(conn: Connection, negotiation_id: str) -> list[tuple[str, bytes]]:
    """Every party's private records, as (party, canonical bytes), each party in order."""
    query = (
        select(private_records.c.party, private_records.c.body)
        .where(private_records.c.negotiation_id == negotiation_id)
        .order_by(private_records.c.party, private_records.c.seq)
    )
    return [(row.party, row.body.encode()) for row in conn.execute(query)]


@dataclass(frozen=True)
class Credential:
    negotiation_id: str
    party: str
    kind: str


def insert_credential(
    conn: Connection, token_hash: str, negotiation_id: str, party: str, kind: str, now: str
) -> None:
    conn.execute(
        insert(credentials).values(
            token_hash=token_hash,
            negotiation_id=negotiation_id,
            party=party,
            kind=kind,
            created_at=now,
        )
    )


def find_credentials(conn: Connection, token_hashes: Sequence[str]) -> dict[str, Credential]:
    if not token_hashes:
        return {}
    query = select(credentials).where(credentials.c.token_hash.in_(list(token_hashes)))
    return {
        row.token_hash: Credential(row.negotiation_id, row.party, row.kind)
        for row in conn.execute(query)
    }


@dataclass(frozen=True)
class Remembered:
    request_hash: str
    status: int
    response: str


_LOCK_REMEMBERING_SQL: Final = (
    "SELECT n.id, n.protocol, n.seq, n.head_hash, n.version, n.is_final, "
    "CASE WHEN n.version = :cached THEN NULL ELSE n.state END, i.request_hash, "
    "i.status, i.response FROM negotiations n LEFT JOIN idempotency i ON "
    "i.negotiation_id = n.id AND i.party = :party AND i.message_id = :message_id "
    "WHERE n.id = :id"
)


def lock_remembering(
    conn: Connection,
    negotiation_id: str,
    party: str,
    message_id: str,
    cached_version: str | None = None,
) -> tuple[NegotiationRow | None, Remembered | None]:
    """`lock_negotiation`, and the answer first given to `message_id` if it was used before,
    in one statement: a move that carries a `message_id` asks both before anything else, and
    each statement is a round trip on PostgreSQL and a turn at the GIL for the event loop on
    SQLite."""
    locking = " FOR UPDATE OF n" if conn.dialect.name == "postgresql" else ""
    params = {
        "id": negotiation_id,
        "party": party,
        "message_id": message_id,
        "cached": cached_version,
    }
    row = _raw(conn, _LOCK_REMEMBERING_SQL + locking, params).fetchone()
    if row is None:
        return None, None
    return _locked_row(row), None if row[7] is None else Remembered(row[7], row[8], row[9])


def remember(
    conn: Connection,
    negotiation_id: str,
    party: str,
    message_id: str,
    *,
    request_hash: str,
    status: int,
    response: str,
) -> None:
    _raw(
        conn,
        "INSERT INTO idempotency (negotiation_id, party, message_id, request_hash, status, "
        "response) VALUES (:negotiation_id, :party, :message_id, :request_hash, :status, "
        ":response)",
        {
            "negotiation_id": negotiation_id,
            "party": party,
            "message_id": message_id,
            "request_hash": request_hash,
            "status": status,
            "response": response,
        },
    )


def insert_receipt(conn: Connection, negotiation_id: str, body: bytes, now: str) -> None:
    conn.execute(
        insert(receipts).values(negotiation_id=negotiation_id, body=body.decode(), created_at=now)
    )


def read_receipt(conn: Connection, negotiation_id: str) -> bytes | None:
    query = select(receipts.c.body).where(receipts.c.negotiation_id == negotiation_id)
    body = conn.execute(query).scalar()
    return body.encode() if body is not None else None

"""Reading and writing link codes. Functions of a Connection, so that callers choose the
transaction."""

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, select, update

from accord.store.tables import links


@dataclass(frozen=True)
class LinkRow:
    code_hash: str
    kind: str
    negotiation_id: str | None
    party: str | None
    principal_id: str | None
    sealed: str
    created_at: str
    expires_at: str
    used_at: str | None
    used_by: str | None


def _row(row: Any) -> LinkRow:
    return LinkRow(
        row.code_hash,
        row.kind,
        row.negotiation_id,
        row.party,
        row.principal_id,
        row.sealed,
        row.created_at,
        row.expires_at,
        row.used_at,
        row.used_by,
    )


def insert_link(conn: Connection, row: LinkRow) -> None:
    conn.execute(insert(links).values(**row.__dict__))


def find_link(conn: Connection, code_hash: str) -> LinkRow | None:
    found = conn.execute(select(links).where(links.c.code_hash == code_hash)).first()
    return None if found is None else _row(found)


def use_link(conn: Connection, code_hash: str, *, at: str, by: str) -> bool:
    """Mark the code used, once: False when it already was (another redemption won)."""
    result = conn.execute(
        update(links)
        .where(links.c.code_hash == code_hash, links.c.used_at.is_(None))
        .values(used_at=at, used_by=by)
    )
    return result.rowcount == 1


def negotiation_links(conn: Connection, negotiation_id: str) -> list[LinkRow]:
    """Every link code minted for a negotiation's seats, oldest first."""
    query = (
        select(links).where(links.c.negotiation_id == negotiation_id).order_by(links.c.created_at)
    )
    return [_row(row) for row in conn.execute(query)]

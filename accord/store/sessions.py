"""Rows of the arbitrated-session index: a session's tenant and mode, and a tenant's list."""

from dataclasses import dataclass

from sqlalchemy import Connection, insert, select

from accord.store.tables import arbitrated_sessions, negotiations


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    tenant_id: str
    mode: str
    sku: str


def insert_session(
    conn: Connection, session_id: str, *, tenant_id: str, mode: str, sku: str, now: str
) -> None:
    conn.execute(
        insert(arbitrated_sessions).values(
            session_id=session_id, tenant_id=tenant_id, mode=mode, sku=sku, created_at=now
        )
    )


def find_session(conn: Connection, session_id: str) -> SessionRow | None:
    query = select(arbitrated_sessions).where(arbitrated_sessions.c.session_id == session_id)
    row = conn.execute(query).first()
    return SessionRow(row.session_id, row.tenant_id, row.mode, row.sku) if row else None


def recent_states(conn: Connection, tenant_id: str, mode: str, limit: int) -> list[str]:
    """The projections of a tenant's latest sessions in one mode, newest first."""
    query = (
        select(negotiations.c.state)
        .join(arbitrated_sessions, arbitrated_sessions.c.session_id == negotiations.c.id)
        .where(arbitrated_sessions.c.tenant_id == tenant_id, arbitrated_sessions.c.mode == mode)
        .order_by(arbitrated_sessions.c.serial.desc())
        .limit(limit)
    )
    return list(conn.execute(query).scalars())

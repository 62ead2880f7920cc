"""Reading and writing principals' rows: principals, their keys (hashes only) and the agents they
selected. Functions of a Connection, so that callers choose the transaction."""

from dataclasses import dataclass

from sqlalchemy import Connection, insert, select, update

from accord.store.tables import agent_selections, principal_keys, principals


@dataclass(frozen=True)
class PrincipalRow:
    id: str
    name: str
    created_at: str


@dataclass(frozen=True)
class KeyRow:
    principal_id: str
    level: str
    agent_id: str | None
    created_at: str
    retired_at: str | None


def insert_principal(conn: Connection, principal_id: str, name: str, now: str) -> None:
    conn.execute(insert(principals).values(id=principal_id, name=name, created_at=now))


def find_principal(conn: Connection, name: str, *, lock: bool = False) -> PrincipalRow | None:
    """By name; with `lock`, the row stays locked for this transaction on PostgreSQL, so that
    changes to one principal's keys happen one after the other (SQLite has one writer)."""
    query = select(principals).where(principals.c.name == name)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return PrincipalRow(row.id, row.name, row.created_at) if row is not None else None


def read_principal(conn: Connection, principal_id: str) -> PrincipalRow:
    row = conn.execute(select(principals).where(principals.c.id == principal_id)).one()
    return PrincipalRow(row.id, row.name, row.created_at)


def insert_key(
    conn: Connection, key_hash: str, principal_id: str, *, agent_id: str | None, now: str
) -> None:
    """The owner key when `agent_id` is None, else that agent's key."""
    conn.execute(
        insert(principal_keys).values(
            key_hash=key_hash,
            principal_id=principal_id,
            level="owner" if agent_id is None else "agent",
            agent_id=agent_id,
            created_at=now,
            retired_at=None,
        )
    )


def retire_agent_key(conn: Connection, principal_id: str, agent_id: str, now: str) -> int:
    """Retire the agent's current key, if it has one; returns how many were retired."""
    statement = (
        update(principal_keys)
        .where(
            principal_keys.c.principal_id == principal_id,
            principal_keys.c.agent_id == agent_id,
            principal_keys.c.retired_at.is_(None),
        )
        .values(retired_at=now)
    )
    return conn.execute(statement).rowcount


def find_key(conn: Connection, key_hash: str) -> KeyRow | None:
    """A key by its hash, retired or not (the caller decides what a retired key may do)."""
    query = select(
        principal_keys.c.principal_id,
        principal_keys.c.level,
        principal_keys.c.agent_id,
        principal_keys.c.created_at,
        principal_keys.c.retired_at,
    ).where(principal_keys.c.key_hash == key_hash)
    row = conn.execute(query).first()
    return KeyRow(*row) if row is not None else None


def has_agent_key(conn: Connection, principal_id: str, agent_id: str) -> bool:
    query = select(principal_keys.c.key_hash).where(
        principal_keys.c.principal_id == principal_id,
        principal_keys.c.agent_id == agent_id,
        principal_keys.c.retired_at.is_(None),
    )
    return conn.execute(query).first() is not None


def insert_selection(conn: Connection, principal_id: str, agent_id: str, now: str) -> None:
    conn.execute(
        insert(agent_selections).values(
            principal_id=principal_id, agent_id=agent_id, selected_at=now
        )
    )


def selected_agent(conn: Connection, principal_id: str) -> str:
    """The agent the principal selected last (every principal has selected one since it was
    made)."""
    query = (
        select(agent_selections.c.agent_id)
        .where(agent_selections.c.principal_id == principal_id)
        .order_by(agent_selections.c.serial.desc())
        .limit(1)
    )
    return str(conn.execute(query).scalar_one())

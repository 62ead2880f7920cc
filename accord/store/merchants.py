"""Reading and writing merchants' rows: tenants, their keys (hashes only) and their policies.
Functions of a Connection, so that callers choose the transaction."""

from dataclasses import dataclass

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from accord.store.tables import policies, tenant_keys, tenants


@dataclass(frozen=True)
class TenantRow:
    id: str
    name: str
    created_at: str


@dataclass(frozen=True)
class KeyRow:
    tenant_id: str
    kind: str
    mode: str
    created_at: str
    retired_at: str | None


@dataclass(frozen=True)
class PolicyRow:
    sku: str
    body: str
    updated_at: str


def insert_tenant(conn: Connection, tenant_id: str, name: str, now: str) -> None:
    conn.execute(insert(tenants).values(id=tenant_id, name=name, created_at=now))


def find_tenant(conn: Connection, name: str) -> TenantRow | None:
    row = conn.execute(select(tenants).where(tenants.c.name == name)).first()
    return TenantRow(row.id, row.name, row.created_at) if row is not None else None


def all_tenants(conn: Connection) -> list[TenantRow]:
    query = select(tenants).order_by(tenants.c.name)
    return [TenantRow(row.id, row.name, row.created_at) for row in conn.execute(query)]


def insert_key(
    conn: Connection, key_hash: str, tenant_id: str, *, kind: str, mode: str, now: str
) -> None:
    conn.execute(
        insert(tenant_keys).values(
            key_hash=key_hash,
            tenant_id=tenant_id,
            kind=kind,
            mode=mode,
            created_at=now,
            retired_at=None,
        )
    )


def retire_keys(conn: Connection, tenant_id: str, kind: str, now: str) -> int:
    """Retire the tenant's current keys of one kind, in both modes; returns how many."""
    statement = (
        update(tenant_keys)
        .where(
            tenant_keys.c.tenant_id == tenant_id,
            tenant_keys.c.kind == kind,
            tenant_keys.c.retired_at.is_(None),
        )
        .values(retired_at=now)
    )
    return conn.execute(statement).rowcount


def find_key(conn: Connection, key_hash: str) -> KeyRow | None:
    """A key by its hash, retired or not (the caller decides what a retired key may do)."""
    row = conn.execute(select(tenant_keys).where(tenant_keys.c.key_hash == key_hash)).first()
    if row is None:
        return None
    return KeyRow(row.tenant_id, row.kind, row.mode, row.created_at, row.retired_at)


def keys_of(conn: Connection, tenant_ids: list[str]) -> list[KeyRow]:
    """The keys of some tenants (hashes left out), oldest first."""
    if not tenant_ids:
        return []
    query = (
        select(
            tenant_keys.c.tenant_id,
            tenant_keys.c.kind,
            tenant_keys.c.mode,
            tenant_keys.c.created_at,
            tenant_keys.c.retired_at,
        )
        .where(tenant_keys.c.tenant_id.in_(tenant_ids))
        .order_by(
            tenant_keys.c.tenant_id,
            tenant_keys.c.created_at,
            tenant_keys.c.kind,
            tenant_keys.c.mode,
        )
    )
    return [KeyRow(*row) for row in conn.execute(query)]


def save_policy(
    conn: Connection, tenant_id: str, mode: str, sku: str, *, body: str, now: str
) -> None:
    """Insert or replace the policy for (tenant, mode, SKU) in one statement, so that two
    processes saving a new SKU at once cannot collide."""
    values = {"tenant_id": tenant_id, "mode": mode, "sku": sku, "body": body, "updated_at": now}
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(policies).values(**values)
    conn.execute(
        statement.on_conflict_do_update(
            index_elements=[policies.c.tenant_id, policies.c.mode, policies.c.sku],
            set_={"body": statement.excluded.body, "updated_at": statement.excluded.updated_at},
        )
    )


def find_policy(conn: Connection, tenant_id: str, mode: str, sku: str) -> PolicyRow | None:
    query = select(policies.c.sku, policies.c.body, policies.c.updated_at).where(
        policies.c.tenant_id == tenant_id, policies.c.mode == mode, policies.c.sku == sku
    )
    row = conn.execute(query).first()
    return PolicyRow(*row) if row is not None else None


def policies_of(conn: Connection, tenant_id: str, mode: str) -> list[PolicyRow]:
    query = (
        select(policies.c.sku, policies.c.body, policies.c.updated_at)
        .where(policies.c.tenant_id == tenant_id, policies.c.mode == mode)
        .order_by(policies.c.sku)
    )
    return [PolicyRow(*row) for row in conn.execute(query)]

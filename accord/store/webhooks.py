"""Reading and writing webhook endpoints, their secrets, the outbox of deliveries and the log of
attempts. Functions of a Connection, so that callers choose the transaction."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, or_, select, tuple_, update

from accord.store.tables import (
    webhook_attempts,
    webhook_deliveries,
    webhook_endpoints,
    webhook_secrets,
)


@dataclass(frozen=True)
class EndpointRow:
    id: str
    scope: str
    audience: dict[str, Any]
    url: str
    event_types: list[str] | None
    description: str | None
    signature: str
    status: str
    disabled_reason: str | None
    cursor: int
    created_at: str
    updated_at: str
    last_success_at: str | None
    failing_since: str | None


@dataclass(frozen=True)
class SecretRow:
    position: int
    secret: str
    created_at: str
    overlap_seconds: int


@dataclass(frozen=True)
class DeliveryRow:
    endpoint_id: str
    event_id: str
    event_type: str
    body: str
    status: str
    attempts: int
    due_at: int | None
    created_at: str


@dataclass(frozen=True)
class AttemptRow:
    event_id: str
    attempt: int
    attempted_at: str
    status_code: int | None
    error: str | None
    duration_ms: int
    next_attempt_at: str | None


def _endpoint(row: Any) -> EndpointRow:
    return EndpointRow(
        row.id,
        row.scope,
        json.loads(row.audience),
        row.url,
        json.loads(row.event_types) if row.event_types is not None else None,
        row.description,
        row.signature,
        row.status,
        row.disabled_reason,
        int(row.cursor),
        row.created_at,
        row.updated_at,
        row.last_success_at,
        row.failing_since,
    )


def _delivery(row: Any) -> DeliveryRow:
    return DeliveryRow(
        row.endpoint_id,
        row.event_id,
        row.event_type,
        row.body,
        row.status,
        int(row.attempts),
        None if row.due_at is None else int(row.due_at),
        row.created_at,
    )


def _types(event_types: Sequence[str] | None) -> str | None:
    return None if event_types is None else json.dumps(list(event_types))


# -- endpoints ----------------------------------------------------------------------------


def insert_endpoint(
    conn: Connection,
    *,
    endpoint_id: str,
    scope: str,
    audience: dict[str, Any],
    url: str,
    event_types: Sequence[str] | None,
    description: str | None,
    signature: str,
    cursor: int,
    at: str,
) -> None:
    conn.execute(
        insert(webhook_endpoints).values(
            id=endpoint_id,
            scope=scope,
            audience=json.dumps(audience),
            url=url,
            event_types=_types(event_types),
            description=description,
            signature=signature,
            status="enabled",
            cursor=cursor,
            created_at=at,
            updated_at=at,
        )
    )


def count_in_scope(conn: Connection, scope: str) -> int:
    query = select(func.count()).where(webhook_endpoints.c.scope == scope)
    return int(conn.execute(query).scalar_one())


def scope_endpoints(conn: Connection, scope: str) -> list[EndpointRow]:
    query = (
        select(webhook_endpoints)
        .where(webhook_endpoints.c.scope == scope)
        .order_by(webhook_endpoints.c.created_at, webhook_endpoints.c.id)
    )
    return [_endpoint(row) for row in conn.execute(query)]


def find_endpoint(conn: Connection, endpoint_id: str, *, lock: bool = False) -> EndpointRow | None:
    query = select(webhook_endpoints).where(webhook_endpoints.c.id == endpoint_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return None if row is None else _endpoint(row)


def enabled_endpoints(conn: Connection) -> list[EndpointRow]:
    query = select(webhook_endpoints).where(webhook_endpoints.c.status == "enabled")
    return [_endpoint(row) for row in conn.execute(query)]


def update_endpoint(conn: Connection, endpoint_id: str, **values: Any) -> None:
    if "event_types" in values:
        values["event_types"] = _types(values["event_types"])
    conn.execute(
        update(webhook_endpoints).where(webhook_endpoints.c.id == endpoint_id).values(**values)
    )


# -- secrets --------------------------------------------------------------------------------


def insert_secret(
    conn: Connection, endpoint_id: str, secret: str, *, at: str, overlap_seconds: int
) -> None:
    position = conn.execute(
        select(func.coalesce(func.max(webhook_secrets.c.position), 0)).where(
            webhook_secrets.c.endpoint_id == endpoint_id
        )
    ).scalar_one()
    conn.execute(
        insert(webhook_secrets).values(
            endpoint_id=endpoint_id,
            position=int(position) + 1,
            secret=secret,
            created_at=at,
            overlap_seconds=overlap_seconds,
        )
    )


def endpoint_secrets(conn: Connection, endpoint_id: str) -> list[SecretRow]:
    """Oldest first."""
    query = (
        select(webhook_secrets)
        .where(webhook_secrets.c.endpoint_id == endpoint_id)
        .order_by(webhook_secrets.c.position)
    )
    return [
        SecretRow(int(r.position), r.secret, r.created_at, int(r.overlap_seconds))
        for r in conn.execute(query)
    ]


# -- the outbox -----------------------------------------------------------------------------


def insert_deliveries(conn: Connection, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        conn.execute(insert(webhook_deliveries), list(rows))


def find_delivery(conn: Connection, endpoint_id: str, event_id: str) -> DeliveryRow | None:
    query = select(webhook_deliveries).where(
        webhook_deliveries.c.endpoint_id == endpoint_id,
        webhook_deliveries.c.event_id == event_id,
    )
    row = conn.execute(query).first()
    return None if row is None else _delivery(row)


def claim_due(conn: Connection, *, now_ms: int, lease_ms: int, limit: int) -> list[DeliveryRow]:
    """The pending deliveries of enabled endpoints that are due, each put out of reach for
    `lease_ms` so that no other worker sends it meanwhile; on PostgreSQL, rows another worker
    is claiming are skipped rather than waited for."""
    enabled = select(webhook_endpoints.c.id).where(webhook_endpoints.c.status == "enabled")
    query = (
        select(webhook_deliveries)
        .where(
            webhook_deliveries.c.status == "pending",
            webhook_deliveries.c.due_at <= now_ms,
            webhook_deliveries.c.endpoint_id.in_(enabled.scalar_subquery()),
        )
        .order_by(webhook_deliveries.c.due_at)
        .limit(limit)
    )
    if conn.dialect.name == "postgresql":
        query = query.with_for_update(of=webhook_deliveries, skip_locked=True)
    claimed = [_delivery(row) for row in conn.execute(query)]
    for row in claimed:
        set_delivery(conn, row.endpoint_id, row.event_id, due_at=now_ms + lease_ms)
    return claimed


def set_delivery(conn: Connection, endpoint_id: str, event_id: str, **values: Any) -> None:
    conn.execute(
        update(webhook_deliveries)
        .where(
            webhook_deliveries.c.endpoint_id == endpoint_id,
            webhook_deliveries.c.event_id == event_id,
        )
        .values(**values)
    )


def insert_attempt(conn: Connection, endpoint_id: str, attempt: AttemptRow) -> None:
    conn.execute(
        insert(webhook_attempts).values(
            endpoint_id=endpoint_id,
            event_id=attempt.event_id,
            attempt=attempt.attempt,
            attempted_at=attempt.attempted_at,
            status_code=attempt.status_code,
            error=attempt.error,
            duration_ms=attempt.duration_ms,
            next_attempt_at=attempt.next_attempt_at,
        )
    )


def endpoint_deliveries(
    conn: Connection,
    endpoint_id: str,
    *,
    status: str | None,
    after: str | None,
    limit: int,
) -> list[tuple[DeliveryRow, list[AttemptRow]]]:
    """The endpoint's deliveries, oldest first, each with its attempts."""
    where = [webhook_deliveries.c.endpoint_id == endpoint_id]
    if status is not None:
        where.append(webhook_deliveries.c.status == status)
    if after is not None:
        start = find_delivery(conn, endpoint_id, after)
        if start is not None:
            order = tuple_(webhook_deliveries.c.created_at, webhook_deliveries.c.event_id)
            where.append(order > tuple_(start.created_at, start.event_id))
    query = (
        select(webhook_deliveries)
        .where(and_(*where))
        .order_by(webhook_deliveries.c.created_at, webhook_deliveries.c.event_id)
        .limit(limit)
    )
    deliveries = [_delivery(row) for row in conn.execute(query)]
    if not deliveries:
        return []
    attempts_query = (
        select(webhook_attempts)
        .where(
            webhook_attempts.c.endpoint_id == endpoint_id,
            or_(*(webhook_attempts.c.event_id == d.event_id for d in deliveries)),
        )
        .order_by(webhook_attempts.c.attempt)
    )
    by_event: dict[str, list[AttemptRow]] = {}
    for r in conn.execute(attempts_query):
        by_event.setdefault(r.event_id, []).append(
            AttemptRow(
                r.event_id,
                int(r.attempt),
                r.attempted_at,
                r.status_code,
                r.error,
                int(r.duration_ms),
                r.next_attempt_at,
            )
        )
    return [(d, by_event.get(d.event_id, [])) for d in deliveries]


def last_attempt(conn: Connection, endpoint_id: str, event_id: str) -> int:
    query = select(func.coalesce(func.max(webhook_attempts.c.attempt), 0)).where(
        webhook_attempts.c.endpoint_id == endpoint_id, webhook_attempts.c.event_id == event_id
    )
    return int(conn.execute(query).scalar_one())


def prune(conn: Connection, *, before: str, limit: int) -> int:
    """Delete up to `limit` deliveries made before `before`, with their attempts: the log is
    kept for the retention period. How many were deleted."""
    old = (
        select(webhook_deliveries.c.endpoint_id, webhook_deliveries.c.event_id)
        .where(webhook_deliveries.c.created_at < before)
        .limit(limit)
    )
    keys = [(row.endpoint_id, row.event_id) for row in conn.execute(old)]
    if not keys:
        return 0
    deliveries = tuple_(webhook_deliveries.c.endpoint_id, webhook_deliveries.c.event_id)
    conn.execute(delete(webhook_deliveries).where(deliveries.in_(keys)))
    # the attempts after their delivery: the database refuses them while it stands
    attempts = tuple_(webhook_attempts.c.endpoint_id, webhook_attempts.c.event_id)
    conn.execute(delete(webhook_attempts).where(attempts.in_(keys)))
    return len(keys)

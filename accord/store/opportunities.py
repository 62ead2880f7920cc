"""Reading and writing opportunities, functions of a Connection like the rest of the store."""

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row, insert, or_, select, update

from accord.store.tables import opportunities


@dataclass(frozen=True)
class OpportunityRow:
    id: str
    initiator_intent_id: str
    responder_intent_id: str
    initiator_principal_id: str
    responder_principal_id: str
    status: str
    initiator_decision: str | None
    responder_decision: str | None
    context: str | None
    negotiation_id: str
    created_at: str
    updated_at: str
    pending_since: str | None = None


_COLUMNS = [opportunities.c[name] for name in OpportunityRow.__dataclass_fields__]


def _row(row: Row[Any]) -> OpportunityRow:
    return OpportunityRow(**row._mapping)


def insert_opportunity(conn: Connection, row: OpportunityRow) -> None:
    low, high = sorted((row.initiator_intent_id, row.responder_intent_id))
    values = {name: getattr(row, name) for name in OpportunityRow.__dataclass_fields__}
    conn.execute(insert(opportunities).values(intent_low=low, intent_high=high, **values))


def find_by_pair(conn: Connection, a_id: str, b_id: str) -> OpportunityRow | None:
    low, high = sorted((a_id, b_id))
    query = select(*_COLUMNS).where(
        opportunities.c.intent_low == low, opportunities.c.intent_high == high
    )
    row = conn.execute(query).first()
    return _row(row) if row is not None else None


def find_opportunity(conn: Connection, opportunity_id: str) -> OpportunityRow | None:
    row = conn.execute(select(*_COLUMNS).where(opportunities.c.id == opportunity_id)).first()
    return _row(row) if row is not None else None


def seat_opportunities(
    conn: Connection, principal_id: str, *, status: str | None, intent_id: str | None
) -> list[OpportunityRow]:
    """Those in which the principal holds either seat, newest first; `intent_id` filters on
    the principal's own intent."""
    initiator = opportunities.c.initiator_principal_id == principal_id
    responder = opportunities.c.responder_principal_id == principal_id
    if intent_id is not None:
        initiator &= opportunities.c.initiator_intent_id == intent_id
        responder &= opportunities.c.responder_intent_id == intent_id
    query = select(*_COLUMNS).where(or_(initiator, responder))
    if status is not None:
        query = query.where(opportunities.c.status == status)
    return [_row(row) for row in conn.execute(query.order_by(opportunities.c.serial.desc()))]


def ids_with_status(conn: Connection, status: str) -> list[str]:
    """Every opportunity in `status`, oldest first."""
    query = select(opportunities.c.id).where(opportunities.c.status == status)
    return [str(row) for row in conn.execute(query.order_by(opportunities.c.serial)).scalars()]


def _since(status: str, now: str) -> dict[str, Any]:
    """Becoming `pending` starts its lifetime; a pending row changes only to a final status."""
    return {"pending_since": now} if status == "pending" else {}


def set_status(conn: Connection, opportunity_id: str, status: str, now: str) -> None:
    conn.execute(
        update(opportunities)
        .where(opportunities.c.id == opportunity_id)
        .values(status=status, updated_at=now, **_since(status, now))
    )


def set_decision(
    conn: Connection, opportunity_id: str, seat: str, decision: str, status: str, now: str
) -> None:
    """A seat's latest decision, and the status it makes."""
    conn.execute(
        update(opportunities)
        .where(opportunities.c.id == opportunity_id)
        .values({f"{seat}_decision": decision, "status": status, "updated_at": now})
    )
    if status == "pending":
        conn.execute(
            update(opportunities)
            .where(opportunities.c.id == opportunity_id, opportunities.c.pending_since.is_(None))
            .values(pending_since=now)
        )


def intent_opportunities(conn: Connection, intent_id: str) -> list[OpportunityRow]:
    """Every opportunity of an intent, in either seat, oldest first: what follows its edits,
    its chat and its archiving."""
    query = select(*_COLUMNS).where(
        or_(
            opportunities.c.initiator_intent_id == intent_id,
            opportunities.c.responder_intent_id == intent_id,
        )
    )
    return [_row(row) for row in conn.execute(query.order_by(opportunities.c.serial))]


def pending_before(conn: Connection, cutoff: str) -> list[OpportunityRow]:
    """The opportunities `pending` since before `cutoff`, oldest first."""
    query = select(*_COLUMNS).where(
        opportunities.c.status == "pending", opportunities.c.pending_since < cutoff
    )
    return [_row(row) for row in conn.execute(query.order_by(opportunities.c.serial))]

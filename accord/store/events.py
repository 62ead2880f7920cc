"""Events: what the streams of each audience deliver (SSE, waits, subscriptions, webhooks), in
one global sequence, so that a stream resumes after the last id it sent on any process.

A row is for one party (`party`) or for everyone at the table (`party` NULL); `owner_only`
keeps it from agents; `scope` names an audience beyond the seats that follows the negotiation,
or, on a party's row, the audience that holds that party (`party_scopes`, such as an intro
seat's principal). A row of a holder's own has no negotiation. Functions of a Connection, so
that callers choose the transaction."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, NotRequired, TypedDict

from sqlalchemy import ColumnElement, Connection, and_, func, or_, select

from accord.store import driver, notifications
from accord.store.tables import events, party_scopes

BATCH: Final = 200
NOTIFICATION: Final = "notification"
ENVELOPE: Final = "envelope"


class NewEvent(TypedDict):
    """An event to insert, as the ledger builds it."""

    negotiation_id: str | None
    party: str | None
    owner_only: bool
    kind: str
    data: str
    scope: NotRequired[str | None]


@dataclass(frozen=True)
class EventRow:
    id: int
    kind: str
    data: str
    negotiation_id: str | None


def insert_events(conn: Connection, rows: Iterable[NewEvent]) -> frozenset[str]:
    """Insert events and return their keys (negotiation ids and scopes), for the notifier
    once the transaction has committed. On PostgreSQL the same keys are NOTIFY'd in this
    transaction, so that other processes hear of them exactly at commit."""
    values = [
        {
            "negotiation_id": row["negotiation_id"],
            "party": row["party"],
            "owner_only": row["owner_only"],
            "kind": row["kind"],
            "data": row["data"],
            "scope": row.get("scope"),
        }
        for row in rows
    ]
    if not values:
        return frozenset()
    driver.insert(conn, "events", values)
    keys = frozenset(
        key
        for value in values
        for key in (value["negotiation_id"], value["scope"])
        if isinstance(key, str)
    )
    notifications.publish(conn, keys)
    return keys


def last_event_id(conn: Connection) -> int:
    """The id of the newest event of all (0 before the first): where a stream that wants
    only what comes next starts."""
    return int(conn.execute(select(func.coalesce(func.max(events.c.id), 0))).scalar_one())


def insert_party_scopes(conn: Connection, negotiation_id: str, scopes: Mapping[str, str]) -> None:
    """Who holds each party (party → scope), once, as the negotiation is opened."""
    if scopes:
        conn.execute(
            party_scopes.insert(),
            [
                {"negotiation_id": negotiation_id, "party": party, "scope": scope}
                for party, scope in scopes.items()
            ],
        )


_PARTY_SCOPES: Final = "SELECT party, scope FROM party_scopes WHERE negotiation_id = :id"


def read_party_scopes(conn: Connection, negotiation_id: str) -> dict[str, str]:
    """party → the scope that holds it; empty for a negotiation whose seats only follow it.
    Read by every move that notifies, so straight through the driver."""
    rows = driver.execute(conn, _PARTY_SCOPES, {"id": negotiation_id}).fetchall()
    return {party: scope for party, scope in rows}


def read_seat_events(
    conn: Connection,
    negotiation_id: str,
    *,
    party: str,
    is_owner: bool,
    after: int,
    limit: int = BATCH,
) -> list[EventRow]:
    """A seat's events: its negotiation's public ones and its own."""
    audience = and_(
        events.c.negotiation_id == negotiation_id,
        or_(events.c.party.is_(None), events.c.party == party),
    )
    return _read(conn, audience, is_owner=is_owner, after=after, limit=limit)


def read_scope_events(
    conn: Connection, scope: str, *, is_owner: bool, after: int, limit: int = BATCH
) -> list[EventRow]:
    """A scope's events: the public events of the negotiations it follows. What is addressed
    to one party stays that party's, whoever else follows the negotiation."""
    audience = and_(events.c.scope == scope, events.c.party.is_(None))
    return _read(conn, audience, is_owner=is_owner, after=after, limit=limit)


def read_holder_events(
    conn: Connection, scope: str, *, is_owner: bool, after: int, limit: int = BATCH
) -> list[EventRow]:
    """A holder's events: the notifications addressed to every party it holds, in any
    negotiation, and its own; never an envelope."""
    audience = and_(events.c.scope == scope, events.c.kind == NOTIFICATION)
    return _read(conn, audience, is_owner=is_owner, after=after, limit=limit)


def _read(
    conn: Connection, audience: ColumnElement[bool], *, is_owner: bool, after: int, limit: int
) -> list[EventRow]:
    if not is_owner:
        audience = and_(audience, events.c.owner_only.is_(False))
    query = (
        select(events.c.id, events.c.kind, events.c.data, events.c.negotiation_id)
        .where(events.c.id > after, audience)
        .order_by(events.c.id)
        .limit(limit)
    )
    return [EventRow(*row) for row in conn.execute(query)]

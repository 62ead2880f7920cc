"""Reading and writing intents, their revisions and chat, networks and memberships. Functions
of a Connection, so that callers choose the transaction; members are stored as JSON text."""

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, insert, select, update

from accord.store import notifications
from accord.store.tables import (
    intent_messages,
    intent_revisions,
    intents,
    network_members,
    networks,
)


@dataclass(frozen=True)
class IntentRow:
    id: str
    principal_id: str
    members: Mapping[str, Any]
    """statement, constraints, identity, visibility, networks."""
    status: str
    revision: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class MessageRow:
    serial: int
    message_id: str
    author: str
    agent_id: str | None
    message: str
    created_at: str


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _intent(row: Any) -> IntentRow:
    members = {
        "statement": row.statement,
        "constraints": json.loads(row.constraints),
        "identity": json.loads(row.identity),
        "visibility": row.visibility,
        "networks": json.loads(row.networks),
    }
    return IntentRow(
        row.id,
        row.principal_id,
        members,
        row.status,
        row.revision,
        row.created_at,
        row.updated_at,
    )


def _columns(members: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "statement": members["statement"],
        "constraints": _dumps(members["constraints"]),
        "identity": _dumps(members["identity"]),
        "visibility": members["visibility"],
        "networks": _dumps(members["networks"]),
    }


def _serial(key: Any) -> int:
    """The autoincremented `serial` an insert was given."""
    assert key is not None
    return int(key[0])


def _revise(
    conn: Connection, intent_id: str, changed: Sequence[str], body: Mapping[str, Any], now: str
) -> int:
    statement = insert(intent_revisions).values(
        intent_id=intent_id, changed=_dumps(list(changed)), body=_dumps(body), recorded_at=now
    )
    return _serial(conn.execute(statement).inserted_primary_key)


READS_EVERY_INTENT = "/* the discovery index, whole */"
"""Marks the two statements that read every intent: building a process's discovery index."""


def announce(conn: Connection, intent_id: str) -> None:
    """Tell every process, at this transaction's commit, that the intent changed (PostgreSQL's
    NOTIFY; one SQLite process knows its own writes)."""
    notifications.publish(conn, {intent_key(intent_id)})


def intent_key(intent_id: str) -> str:
    return f"intent:{intent_id}"


def insert_intent(
    conn: Connection, intent_id: str, principal_id: str, members: Mapping[str, Any], now: str
) -> int:
    """A new active intent and its first revision; returns the revision's serial."""
    conn.execute(
        insert(intents).values(
            id=intent_id,
            principal_id=principal_id,
            status="active",
            revision=0,
            created_at=now,
            updated_at=now,
            **_columns(members),
        )
    )
    serial = _revise(conn, intent_id, ("created",), {**members, "status": "active"}, now)
    conn.execute(update(intents).where(intents.c.id == intent_id).values(revision=serial))
    announce(conn, intent_id)
    return serial


def revise_intent(
    conn: Connection,
    intent_id: str,
    members: Mapping[str, Any],
    status: str,
    changed: Sequence[str],
    now: str,
) -> int:
    """Record a change of the members named in `changed`; returns the revision's serial."""
    serial = _revise(conn, intent_id, changed, {**members, "status": status}, now)
    conn.execute(
        update(intents)
        .where(intents.c.id == intent_id)
        .values(status=status, revision=serial, updated_at=now, **_columns(members))
    )
    announce(conn, intent_id)
    return serial


def find_intent(conn: Connection, intent_id: str, *, lock: bool = False) -> IntentRow | None:
    """With `lock`, the row stays locked for this transaction on PostgreSQL."""
    query = select(intents).where(intents.c.id == intent_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return _intent(row) if row is not None else None


def own_intents(conn: Connection, principal_id: str) -> list[IntentRow]:
    """Newest first."""
    query = (
        select(intents)
        .where(intents.c.principal_id == principal_id)
        .order_by(intents.c.serial.desc())
    )
    return [_intent(row) for row in conn.execute(query)]


def insert_message(
    conn: Connection,
    message_id: str,
    intent_id: str,
    *,
    author: str,
    agent_id: str | None,
    message: str,
    now: str,
) -> int:
    """Returns the message's serial, its place in the store's order."""
    statement = insert(intent_messages).values(
        message_id=message_id,
        intent_id=intent_id,
        author=author,
        agent_id=agent_id,
        message=message,
        created_at=now,
    )
    return _serial(conn.execute(statement).inserted_primary_key)


def message_serial(conn: Connection, intent_id: str, message_id: str) -> int | None:
    """The serial of the intent's message `message_id`, None if the intent has none such."""
    query = select(intent_messages.c.serial, intent_messages.c.intent_id).where(
        intent_messages.c.message_id == message_id
    )
    row = conn.execute(query).first()
    return int(row.serial) if row is not None and row.intent_id == intent_id else None


def messages_after(conn: Connection, intent_id: str, serial: int) -> list[MessageRow]:
    """Oldest first."""
    query = (
        select(
            intent_messages.c.serial,
            intent_messages.c.message_id,
            intent_messages.c.author,
            intent_messages.c.agent_id,
            intent_messages.c.message,
            intent_messages.c.created_at,
        )
        .where(intent_messages.c.intent_id == intent_id, intent_messages.c.serial > serial)
        .order_by(intent_messages.c.serial)
    )
    return [MessageRow(*row) for row in conn.execute(query)]


# -- networks --------------------------------------------------------------------------------


def insert_network(
    conn: Connection, network_id: str, name: str, invite_hash: str, creator: str, now: str
) -> None:
    conn.execute(
        insert(networks).values(
            id=network_id, name=name, invite_hash=invite_hash, created_by=creator, created_at=now
        )
    )


def network_by_invite(conn: Connection, invite_hash: str) -> tuple[str, str] | None:
    """(network_id, name) of the network this invite code opens."""
    query = select(networks.c.id, networks.c.name).where(networks.c.invite_hash == invite_hash)
    row = conn.execute(query).first()
    return (row.id, row.name) if row is not None else None


def insert_member(conn: Connection, network_id: str, principal_id: str, now: str) -> None:
    conn.execute(
        insert(network_members).values(
            network_id=network_id, principal_id=principal_id, joined_at=now
        )
    )


def member_of(conn: Connection, principal_id: str, network_ids: Iterable[str]) -> set[str]:
    """Which of `network_ids` the principal belongs to."""
    wanted = list(network_ids)
    if not wanted:
        return set()
    query = select(network_members.c.network_id).where(
        network_members.c.principal_id == principal_id,
        network_members.c.network_id.in_(wanted),
    )
    return set(conn.execute(query).scalars())


def own_networks(conn: Connection, principal_id: str) -> list[tuple[str, str]]:
    """(network_id, name) of each network the principal belongs to, in the order it joined."""
    query = (
        select(networks.c.id, networks.c.name)
        .join(network_members, network_members.c.network_id == networks.c.id)
        .where(network_members.c.principal_id == principal_id)
        .order_by(network_members.c.serial)
    )
    return [(row.id, row.name) for row in conn.execute(query)]


def find_intents(conn: Connection, intent_ids: Iterable[str]) -> list[IntentRow]:
    query = select(intents).where(intents.c.id.in_(sorted(intent_ids)))
    return [_intent(row) for row in conn.execute(query)]


def intents_after(conn: Connection, revision: int) -> list[IntentRow]:
    """The intents whose latest revision is after `revision`, whatever their status."""
    query = select(intents).where(intents.c.revision > revision).order_by(intents.c.revision)
    return [_intent(row) for row in conn.execute(query)]


def all_intents(conn: Connection) -> list[IntentRow]:
    """Every intent, whatever its visibility and status, in the order posted."""
    query = select(intents).prefix_with(READS_EVERY_INTENT).order_by(intents.c.serial)
    return [_intent(row) for row in conn.execute(query)]


def indexed_intents(conn: Connection) -> list[IntentRow]:
    """Every intent discovery indexes: neither `private` nor `archived`, in the order posted."""
    query = (
        select(intents)
        .prefix_with(READS_EVERY_INTENT)
        .where(intents.c.visibility != "private", intents.c.status != "archived")
        .order_by(intents.c.serial)
    )
    return [_intent(row) for row in conn.execute(query)]


def network_ids(conn: Connection, principal_id: str) -> frozenset[str]:
    """The ids of the networks the principal belongs to."""
    query = select(network_members.c.network_id).where(
        network_members.c.principal_id == principal_id
    )
    return frozenset(conn.execute(query).scalars())

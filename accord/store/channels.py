"""Reading and writing channel bindings. A binding is never changed: an unlink record ends it,
each event delivered to it is recorded once, and so is each question message sent for it.
Functions of a Connection, so that callers
choose the transaction."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, insert, select

from accord.store import driver
from accord.store.tables import (
    channel_bindings,
    channel_deliveries,
    channel_questions,
    channel_unlinks,
)


@dataclass(frozen=True)
class BindingRow:
    id: str
    channel: str
    chat_id: str
    kind: str
    negotiation_id: str | None
    party: str | None
    principal_id: str | None
    sealed: str
    created_at: str
    after: int


def _row(row: Any) -> BindingRow:
    return BindingRow(
        row.id,
        row.channel,
        row.chat_id,
        row.kind,
        row.negotiation_id,
        row.party,
        row.principal_id,
        row.sealed,
        row.created_at,
        row.after,
    )


def insert_binding(conn: Connection, row: BindingRow) -> None:
    conn.execute(insert(channel_bindings).values(**row.__dict__))


def _active() -> Any:
    ended = select(channel_unlinks.c.binding_id).where(
        channel_unlinks.c.binding_id == channel_bindings.c.id
    )
    return select(channel_bindings).where(~ended.exists())


def active_bindings(conn: Connection, channel: str, chat_id: str | None = None) -> list[BindingRow]:
    """The bindings not ended, oldest first: of one chat, or of every chat of the channel."""
    query = _active().where(channel_bindings.c.channel == channel)
    if chat_id is not None:
        query = query.where(channel_bindings.c.chat_id == chat_id)
    return [_row(r) for r in conn.execute(query.order_by(channel_bindings.c.created_at))]


def find_active(conn: Connection, binding_id: str) -> BindingRow | None:
    found = conn.execute(_active().where(channel_bindings.c.id == binding_id)).first()
    return None if found is None else _row(found)


def end_binding(conn: Connection, binding_id: str, *, at: str, reason: str) -> bool:
    """Record the end, once: False when the binding had already ended."""
    sql = (
        "INSERT INTO channel_unlinks (binding_id, ended_at, reason) "
        "VALUES (:binding_id, :ended_at, :reason) ON CONFLICT DO NOTHING"
    )
    values = {"binding_id": binding_id, "ended_at": at, "reason": reason}
    return bool(driver.execute(conn, sql, values).rowcount == 1)


def cursor(conn: Connection, binding: BindingRow) -> int:
    """The last event delivered to the binding (its start before the first)."""
    query = select(func.max(channel_deliveries.c.event_id)).where(
        channel_deliveries.c.binding_id == binding.id
    )
    last = conn.execute(query).scalar_one()
    return max(binding.after, int(last or 0))


def record_deliveries(
    conn: Connection, binding_id: str, event_ids: Iterable[int], *, at: str
) -> None:
    """Each event delivered, once (a second delivery of the same event records nothing)."""
    values = [{"binding_id": binding_id, "event_id": e, "delivered_at": at} for e in event_ids]
    if values:
        sql = (
            "INSERT INTO channel_deliveries (binding_id, event_id, delivered_at) "
            "VALUES (:binding_id, :event_id, :delivered_at) ON CONFLICT DO NOTHING"
        )
        driver.execute(conn, sql, values)


@dataclass(frozen=True)
class QuestionMessageRow:
    """A message sent to a chat that shows one agent's question, named by the message id the
    channel answered the send with."""

    channel: str
    chat_id: str
    message_id: int
    binding_id: str
    opportunity_id: str
    question_id: str
    sent_at: str


def record_question_message(conn: Connection, row: QuestionMessageRow) -> None:
    """Once: the same message recorded again records nothing."""
    sql = (
        "INSERT INTO channel_questions (channel, chat_id, message_id, binding_id, "
        "opportunity_id, question_id, sent_at) VALUES (:channel, :chat_id, :message_id, "
        ":binding_id, :opportunity_id, :question_id, :sent_at) ON CONFLICT DO NOTHING"
    )
    driver.execute(conn, sql, row.__dict__)


def find_question_message(
    conn: Connection, channel: str, chat_id: str, message_id: int
) -> QuestionMessageRow | None:
    t = channel_questions.c
    query = select(channel_questions).where(
        t.channel == channel, t.chat_id == chat_id, t.message_id == message_id
    )
    found = conn.execute(query).first()
    if found is None:
        return None
    return QuestionMessageRow(
        found.channel,
        found.chat_id,
        int(found.message_id),
        found.binding_id,
        found.opportunity_id,
        found.question_id,
        found.sent_at,
    )

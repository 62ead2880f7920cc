"""Appending a protocol's decision: number and link the envelopes, write private records,
queue the events. Protocol-agnostic; runs inside the caller's write transaction."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection

from accord.app.tokens import new_id
from accord.core.chain import ChainHead, link
from accord.core.commit import commit_bytes
from accord.core.envelope import Envelope
from accord.core.jsonio import canonical
from accord.core.protocol import Decision
from accord.store import records


@dataclass(frozen=True)
class Appended:
    head: ChainHead
    public: list[Envelope]
    private: list[tuple[str, Envelope]]


def append(
    conn: Connection,
    negotiation_id: str,
    head: ChainHead,
    decision: Decision,
    *,
    ts: str,
    message_id: str | None = None,
    notice_fields: Mapping[str, Any] | None = None,
) -> Appended:
    """`message_id` names the first public envelope (the client's move); the rest get new ids."""
    public: list[Envelope] = []
    events: list[dict[str, object]] = []
    for index, draft in enumerate(decision.public):
        envelope = link(
            head,
            draft,
            ts=ts,
            message_id=(message_id if index == 0 and message_id else new_id("msg")),
        )
        body = canonical(envelope.to_json())  # once: stored, hashed and streamed alike
        records.insert_envelope(conn, negotiation_id, envelope, body)
        head = ChainHead(envelope.seq + 1, commit_bytes(body))
        public.append(envelope)
        events.append(_event(negotiation_id, None, "envelope", body))
    private: list[tuple[str, Envelope]] = []
    heads: dict[str, ChainHead] = {}
    for item in decision.private:
        party_head = heads.get(item.party) or records.private_head(conn, negotiation_id, item.party)
        record = link(party_head, item.draft, ts=ts, message_id=new_id("msg"))
        body = canonical(record.to_json())
        records.insert_private(conn, negotiation_id, item.party, record, body)
        heads[item.party] = ChainHead(record.seq + 1, commit_bytes(body))
        private.append((item.party, record))
    for notice in decision.notices:
        data = {"type": notice.type, **(notice_fields or {}), **notice.data}
        events.append(
            _event(
                negotiation_id,
                notice.party,
                "notification",
                canonical(data),
                owner_only=notice.owner_only,
            )
        )
    records.insert_events(conn, events)
    return Appended(head, public, private)


def _event(
    negotiation_id: str, party: str | None, kind: str, data: bytes, *, owner_only: bool = False
) -> dict[str, object]:
    return {
        "negotiation_id": negotiation_id,
        "party": party,
        "owner_only": owner_only,
        "kind": kind,
        "data": data.decode(),
    }

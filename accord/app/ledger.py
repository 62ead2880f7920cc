"""Appending a table's decision to the store: the one step (`accord.core.step`), then its
envelopes, private records and events written inside the caller's write transaction. A notice
for a party that an audience holds (`party_scopes`) carries that audience's scope."""

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import Connection

from accord.app.tokens import new_id
from accord.core.chain import ChainHead
from accord.core.jsonio import canonical
from accord.core.protocol import Decision, Seen, Table, never_seen
from accord.core.step import Stepped, step
from accord.store import records
from accord.store.events import ENVELOPE, NOTIFICATION, NewEvent, insert_events, read_party_scopes

S = TypeVar("S", bound=BaseModel)


def append(
    conn: Connection,
    table: Table[S],
    negotiation_id: str,
    state: S | None,
    head: ChainHead,
    decision: Decision,
    *,
    ts: str,
    message_id: str | None = None,
    seen: Seen | None = None,
    holders: Callable[[], Mapping[str, str]] | None = None,
) -> tuple[Stepped[S], frozenset[str]]:
    """The step, stored; with the keys (negotiation and scope) its events are for. `seen`
    answers for the stored log and `holders` gives the party scopes, each looked up in the
    store when not given."""
    if seen is None:
        seen = partial(records.has_seen, conn, negotiation_id) if state is not None else never_seen
    stepped = step(
        table,
        state,
        head,
        decision,
        ts=ts,
        new_id=lambda: new_id("msg"),
        private_head=lambda party: records.private_head(conn, negotiation_id, party),
        message_id=message_id,
        seen=seen,
    )
    records.insert_seen(conn, negotiation_id, stepped.seen)
    scope = table.scope(stepped.state)
    events: list[NewEvent] = []
    for linked in stepped.public:
        records.insert_envelope(conn, negotiation_id, linked.envelope, linked.body)
        events.append(_event(negotiation_id, None, ENVELOPE, linked.body, scope=scope))
    for party, linked in stepped.private:
        records.insert_private(conn, negotiation_id, party, linked.envelope, linked.body)
    if decision.notices:
        fields = table.notice_fields(negotiation_id, stepped.state)
        held = read_party_scopes(conn, negotiation_id) if holders is None else holders()
        for notice in decision.notices:
            data: dict[str, Any] = {"type": notice.type, **fields, **notice.data}
            events.append(
                _event(
                    negotiation_id,
                    notice.party,
                    NOTIFICATION,
                    canonical(data),
                    owner_only=notice.owner_only,
                    scope=held.get(notice.party),
                )
            )
    return stepped, insert_events(conn, events)


def _event(
    negotiation_id: str,
    party: str | None,
    kind: str,
    data: bytes,
    *,
    owner_only: bool = False,
    scope: str | None,
) -> NewEvent:
    return {
        "negotiation_id": negotiation_id,
        "party": party,
        "owner_only": owner_only,
        "kind": kind,
        "data": data.decode(),
        "scope": scope,
    }

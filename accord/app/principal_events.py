"""A principal's events (spec/intro-api.md, Events): each intro seat is held by its principal's
scope, so what the protocol addresses to a seat reaches that principal's stream; the events
built here are the principal's own, beyond the protocol's notices. They name no other side's
intent or principal, and never hold text: a status, ids.

Written in the transaction of what they tell, through `Negotiations.emit`."""

from collections.abc import Iterable, Mapping
from typing import Final

from accord.core.jsonio import canonical
from accord.store.events import NOTIFICATION, NewEvent
from accord.store.opportunities import OpportunityRow

OPPORTUNITY_CHANGED: Final = "opportunity.changed"
ADVISER: Final = "adviser."
"""The prefix of the adviser's own events, which its stream (and only its) carries."""
PRINCIPAL_MESSAGE: Final = "principal.message"


def principal_scope(principal_id: str) -> str:
    """The scope a principal's stream reads, and the notifier key that wakes it."""
    return f"principal:{principal_id}"


def seat_scopes(initiator: str, responder: str) -> Mapping[str, str]:
    """Each seat of an intro negotiation → the scope of the principal holding it (the
    kernel's `party_scopes`, given when it is opened)."""
    return {"initiator": principal_scope(initiator), "responder": principal_scope(responder)}


def opportunity_changed(row: OpportunityRow, status: str | None = None) -> list[NewEvent]:
    """`opportunity.changed {status}` to both seats' principals: the opportunity was opened
    (`row` as inserted) or its status became `status`."""
    data = {
        "type": OPPORTUNITY_CHANGED,
        "opportunity_id": row.id,
        "status": row.status if status is None else status,
    }
    return [
        _event(scope, data, negotiation_id=row.negotiation_id, party=seat)
        for seat, scope in seat_scopes(
            row.initiator_principal_id, row.responder_principal_id
        ).items()
    ]


def principal_message(
    principal_id: str, *, intent_id: str, message_id: str, paused: Iterable[str]
) -> list[NewEvent]:
    """`principal.message` to the principal's own stream: its owner wrote in an intent's chat
    (never the text); `paused` are the opportunities whose negotiations wait between rounds."""
    data = {
        "type": PRINCIPAL_MESSAGE,
        "intent_id": intent_id,
        "message_id": message_id,
        "paused": list(paused),
    }
    return [_event(principal_scope(principal_id), data, negotiation_id=None, party=None)]


def adviser_event(principal_id: str, kind: str, case_id: str, **members: object) -> NewEvent:
    """`adviser.<kind> {case_id, …}` to the principal's own stream: ids and versions, never
    a word of the case."""
    data = {"type": ADVISER + kind, "case_id": case_id, **members}
    return _event(principal_scope(principal_id), data, negotiation_id=None, party=None)


def _event(
    scope: str, data: Mapping[str, object], *, negotiation_id: str | None, party: str | None
) -> NewEvent:
    return {
        "negotiation_id": negotiation_id,
        "party": party,
        "owner_only": False,
        "kind": NOTIFICATION,
        "data": canonical(dict(data)).decode(),
        "scope": scope,
    }

"""What a seat sees of its room: the only way room state leaves the protocol.

A view never holds the other seat's limits, nonce, tokens or pending confirmation.
"""

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from accord.protocols.rooms import schema
from accord.protocols.rooms.decide import allowed_moves
from accord.protocols.rooms.state import (
    Approval,
    MoveEntry,
    RoomPolicy,
    RoomState,
    Seat,
    Status,
    Table,
    expires_at,
)


class View(BaseModel):
    model_config = ConfigDict(frozen=True)


class PendingView(View):
    id: str
    type: str
    subject_hash: str | None = None


class RoomView(View):
    room_id: str
    name: str
    title: str
    seq: int
    state: Status
    seat: Seat
    your_turn: bool
    turn: Seat | None
    available_moves: list[str] = Field(
        description="The moves this seat may make now, as `move_not_allowed` lists them."
    )
    subject_schema: dict[str, Any]
    table: Table | None
    approvals: list[Approval]
    pending_confirmation: PendingView | None
    deadline: str | None
    expires_at: str | None = Field(description="When the room expires if nothing happens.")
    circling: bool
    limits_compatible: bool | None
    incompatible_fields: list[str]
    outside_your_limits: list[str]
    your_limits: dict[str, Any]
    moves: list[dict[str, Any]] = Field(
        description="The last 50 moves, oldest first: {seq, seat, type, terms?, subject_hash?, "
        "message?, deadline?, at}."
    )
    moves_total: int
    receipt_url: str | None
    created_at: str
    updated_at: str


class ConfirmationView(View):
    id: str
    type: str
    requested_at: str
    subject_hash: str | None
    message: str | None
    terms: dict[str, Any] | None = Field(description="The terms the move would settle on.")
    fields: list[dict[str, Any]] = Field(description="The terms field by field.")
    outside_your_limits: list[str]


def view(state: RoomState, seat: Seat, *, policy: RoomPolicy, base_url: str) -> RoomView:
    return RoomView.model_validate(view_json(state, seat, policy=policy, base_url=base_url))


def view_json(state: RoomState, seat: Seat, *, policy: RoomPolicy, base_url: str) -> dict[str, Any]:
    """The RoomView as plain JSON, built straight from state the protocol already validated
    (every move answers with one; tests hold it to the RoomView model)."""
    mine = state.seat_private(seat)
    pending = mine.pending if not state.is_final else None
    table = state.table
    outside = schema.outside_limits(state.subject_schema, mine.limits, table.terms) if table else []
    return {
        "room_id": state.room_id,
        "name": state.name,
        "title": state.title,
        "seq": state.seq,
        "state": str(state.status),
        "seat": str(seat),
        "your_turn": state.turn is seat,
        "turn": str(state.turn) if state.turn else None,
        "available_moves": list(allowed_moves(state, seat)),
        "subject_schema": state.subject_schema,
        "table": {
            "terms": table.terms,
            "subject_hash": table.subject_hash,
            "proposed_by": str(table.proposed_by),
        }
        if table
        else None,
        "approvals": [
            {"seat": str(a.seat), "subject_hash": a.subject_hash} for a in state.approvals
        ],
        "pending_confirmation": {
            "id": pending.id,
            "type": pending.type,
            "subject_hash": pending.subject_hash,
        }
        if pending
        else None,
        "deadline": state.deadline if not state.is_final else None,
        "expires_at": expires_at(state, policy),
        "circling": state.is_circling and not state.is_final,
        "limits_compatible": state.limits_compatible,
        "incompatible_fields": list(state.incompatible_fields),
        "outside_your_limits": outside,
        "your_limits": mine.limits,
        "moves": [entry.shown for entry in state.moves],
        "moves_total": state.moves_total,
        "receipt_url": f"{base_url}/v1/rooms/{state.room_id}/receipt" if state.is_final else None,
        "created_at": state.created_at,
        "updated_at": state.updated_at,
    }


def confirmations(state: RoomState, seat: Seat) -> list[ConfirmationView]:
    """The owner's pending confirmations (one at a time), with the terms field by field."""
    mine = state.seat_private(seat)
    pending = mine.pending
    if pending is None or state.is_final:
        return []
    table = state.table
    terms = table.terms if table is not None and pending.type == "approve" else None
    outside = schema.outside_limits(state.subject_schema, mine.limits, terms or {})
    fields = [
        {
            "name": name,
            "label": spec.get("label", name),
            "type": spec["type"],
            "value": terms.get(name),
            "outside_your_limits": name in outside,
        }
        for name, spec in state.subject_schema.items()
        if terms is not None and name in terms
    ]
    return [
        ConfirmationView(
            id=pending.id,
            type=pending.type,
            requested_at=pending.requested_at,
            subject_hash=pending.subject_hash,
            message=pending.message,
            terms=terms,
            fields=fields,
            outside_your_limits=outside,
        )
    ]


def history(moves: Sequence[MoveEntry]) -> list[dict[str, Any]]:
    """The moves as an owner's page tells them: each with the door it came through (`via`,
    which the shared log shows both seats) and, for a move that put terms on the table, the
    fields it changed (None for the first terms in sight: nothing to compare them with)."""
    told: list[dict[str, Any]] = []
    before: dict[str, Any] | None = None
    for entry in moves:
        changed = None
        if entry.terms is not None:
            if before is not None:
                names = [*entry.terms, *(name for name in before if name not in entry.terms)]
                changed = [n for n in names if entry.terms.get(n) != before.get(n)]
            before = entry.terms
        told.append({**entry.shown, "via": entry.via, "changed": changed})
    return told

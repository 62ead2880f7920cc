"""Folding envelopes into room state: `apply` for the public log, `apply_private` for a seat's
private records. Both return a new state and never mutate."""

from collections.abc import Iterable
from typing import Any

from accord.core.envelope import Envelope
from accord.core.protocol import Seen
from accord.protocols.rooms.state import (
    CIRCLING_WINDOW,
    CLOSES,
    RECENT_MOVES,
    SETS_DEADLINE,
    SETS_TERMS,
    Approval,
    MoveEntry,
    Pending,
    RoomState,
    Seat,
    Status,
    Table,
    seat_of,
    seen_form,
)


def apply(state: RoomState | None, envelope: Envelope, seen: Seen) -> RoomState:
    """`seen` answers for the log before `envelope`."""
    payload = envelope.payload
    if envelope.type == "room.opened":
        assert state is None, "room.opened must be the first envelope"
        return RoomState(
            room_id=payload["room_id"],
            name=payload["name"],
            title=payload["title"],
            subject_schema=payload["subject_schema"],
            created_at=envelope.ts,
            updated_at=envelope.ts,
            seq=envelope.seq,
            status=Status.DRAFT,
            turn=None,
            deadline=payload.get("deadline"),
            invite_expires_at=payload["invite_expires_at"],
            last_activity_at=envelope.ts,
            commitments={Seat.OPENER: payload["opener_limits_commitment"]},
        )
    assert state is not None, "a room's log starts with room.opened"
    base: dict[str, Any] = {"seq": envelope.seq, "updated_at": envelope.ts}
    match envelope.type:
        case "room.joined":
            # The opener moves first unless it already offered at open.
            turn = Seat.JOINER if state.table is not None else Seat.OPENER
            return state.model_copy(
                update=base
                | {
                    "status": Status.AWAITING,
                    "turn": turn,
                    "last_activity_at": envelope.ts,
                    "commitments": state.commitments
                    | {Seat.JOINER: payload["joiner_limits_commitment"]},
                    "limits_compatible": payload["limits_compatible"],
                    "incompatible_fields": tuple(payload["incompatible_fields"]),
                }
            )
        case "room.circling":
            return state.model_copy(update=base | {"circling_announced": True})
        case "room.agreed":
            return state.model_copy(
                update=base | {"status": Status.AGREED, "turn": None, "final_reason": "agreed"}
            )
        case "room.expired":
            return state.model_copy(
                update=base
                | {"status": Status.EXPIRED, "turn": None, "final_reason": payload["reason"]}
            )
        case kind if kind.startswith("move."):
            return _apply_move(state, envelope, base, seen)
    raise AssertionError(f"unknown room envelope type {envelope.type!r}")


def seen_key(envelope: Envelope) -> str | None:
    """Terms put on the table are remembered by their hash's short form, for circling."""
    if envelope.type.removeprefix("move.") in SETS_TERMS:
        return seen_form(envelope.payload["subject_hash"])
    return None


def move_entry(envelope: Envelope) -> MoveEntry:
    payload = envelope.payload
    return MoveEntry(
        seq=envelope.seq,
        seat=seat_of(envelope.sender),
        type=envelope.type.removeprefix("move."),
        via=envelope.sender["via"],
        at=envelope.ts,
        terms=payload.get("terms"),
        subject_hash=payload.get("subject_hash"),
        message=payload.get("message"),
        deadline=payload.get("deadline"),
    )


def recent_moves(tail: Iterable[Envelope]) -> tuple[MoveEntry, ...]:
    """The last 50 moves of a log's tail (`TAIL` envelopes hold them)."""
    moves = [move_entry(e) for e in tail if e.type.startswith("move.")]
    return tuple(moves[-RECENT_MOVES:])


def _apply_move(
    state: RoomState, envelope: Envelope, base: dict[str, Any], seen: Seen
) -> RoomState:
    entry = move_entry(envelope)
    kind, seat, payload = entry.type, entry.seat, envelope.payload
    update = base | {
        "moves": (*state.moves, entry)[-RECENT_MOVES:],
        "moves_total": state.moves_total + 1,
        "last_activity_at": envelope.ts,
    }
    new_terms = False
    if kind in SETS_TERMS:
        subject_hash = payload["subject_hash"]
        new_terms = not seen(seen_form(subject_hash))
        update |= {
            "table": Table(terms=payload["terms"], subject_hash=subject_hash, proposed_by=seat),
            "approvals": (),  # rooms-and-turns: a counter voids earlier approvals
        }
    if kind in SETS_DEADLINE:
        update["deadline"] = payload.get("deadline")
    if kind == "approve":
        approval = Approval(seat=seat, subject_hash=payload["subject_hash"])
        update["approvals"] = (*state.approvals, approval)
    if kind in CLOSES:
        update |= {"status": Status.CLOSED, "turn": None, "final_reason": f"{kind}:{seat}"}
    elif state.status is Status.AWAITING:
        update["turn"] = seat.other
    update["recent"] = (*state.recent, (kind, new_terms))[-CIRCLING_WINDOW:]
    return state.model_copy(update=update)


def apply_private(state: RoomState, party: Seat, envelope: Envelope) -> RoomState:
    mine = state.seat_private(party)
    payload = envelope.payload
    match envelope.type:
        case "limits.committed":
            mine = mine.model_copy(update={"nonce": payload["nonce"], "limits": payload["limits"]})
        case "confirmation.requested":
            pending = Pending.model_validate(payload)
            mine = mine.model_copy(update={"pending": pending, "requests": mine.requests + 1})
        case "confirmation.resolved":
            if mine.pending is not None and mine.pending.id == payload["id"]:
                mine = mine.model_copy(update={"pending": None})
        case _:
            raise AssertionError(f"unknown private record type {envelope.type!r}")
    return state.model_copy(update={"private": state.private | {party: mine}})


def replay(public: Iterable[Envelope], private: Iterable[tuple[Seat, Envelope]]) -> RoomState:
    """The state a room's records fold to: its public log, then each seat's private records
    (the two never touch the same members, so their interleaving does not matter)."""
    state: RoomState | None = None
    seen: set[str] = set()
    for envelope in public:
        state = apply(state, envelope, seen.__contains__)
        if (key := seen_key(envelope)) is not None:
            seen.add(key)
    if state is None:
        raise ValueError("a room's log cannot be empty")
    for party, record in private:
        state = apply_private(state, party, record)
    return state

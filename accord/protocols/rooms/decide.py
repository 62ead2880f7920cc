"""Deciding: what a request appends, or why it is refused (checks in rooms-api.md's order).

Pure functions: time, ids and nonces come in as arguments, nothing is read from the world.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from accord.core.commit import commit
from accord.core.envelope import Draft
from accord.core.protocol import Decision, Notice, PrivateDraft, Seen, never_seen
from accord.core.refusals import Refusal, RefusalCode
from accord.core.times import format_time, parse_time
from accord.protocols.rooms import schema
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.protocols.rooms.state import (
    CLOSES,
    MAX_DEADLINE_DAYS,
    NEEDS_OWNER,
    SETS_DEADLINE,
    SETS_TERMS,
    Actor,
    MoveType,
    Pending,
    RoomPolicy,
    RoomState,
    Seat,
    Status,
    Via,
    expiry_reason,
    is_circling,
    seen_form,
)
from accord.trust.commitments import commit_set, private_set

SERVER: Mapping[str, str] = {"role": "server"}
BOTH: Sequence[Seat] = (Seat.OPENER, Seat.JOINER)


class Checked(NamedTuple):
    """What a move that passed its checks carries on: its normalized terms with their hash
    (made once, for the no-change check and the offer alike) and its deadline."""

    terms: dict[str, Any] | None
    subject_hash: str | None
    deadline: str | None


def _refuse(code: RefusalCode, message: str, **details: Any) -> Refusal:
    return Refusal(code, message, details)


def _to_all(state: RoomState, kind: str, **data: Any) -> list[Notice]:
    seats = BOTH if state.status is not Status.DRAFT else (Seat.OPENER,)
    return [Notice(seat, kind, data) for seat in seats]


def _check_deadline(text: str | None, now: datetime) -> tuple[str | None, Refusal | None]:
    if text is None:
        return None, None
    problem = _refuse(
        RefusalCode.INVALID_DEADLINE,
        f"Give the deadline as an RFC 3339 time in the future, at most {MAX_DEADLINE_DAYS} "
        "days ahead, like 2026-12-24T17:00:00Z.",
        fields={"deadline": "a future RFC 3339 time within 90 days"},
    )
    try:
        at = parse_time(text)
    except ValueError:
        return None, problem
    deadline = format_time(at)
    if not format_time(now) < deadline <= format_time(now + timedelta(days=MAX_DEADLINE_DAYS)):
        return None, problem
    return deadline, None


def _limits_record(seat: Seat, nonce: str, limits: Mapping[str, Any]) -> PrivateDraft:
    return PrivateDraft(seat, Draft("limits.committed", SERVER, {"nonce": nonce, "limits": limits}))


def open_room(
    request: OpenRequest,
    *,
    room_id: str,
    name: str,
    nonce: str,
    now: datetime,
    policy: RoomPolicy,
) -> Decision | Refusal:
    """Open: invalid_request → invalid_deadline → invalid_terms → outside_own_limits."""
    if problems := schema.validate_schema(request.subject_schema):
        return _refuse(
            RefusalCode.INVALID_REQUEST,
            "Fix the subject schema: each field needs a name and a type.",
            fields=problems,
        )
    subject_schema = request.subject_schema
    limits, problems = schema.normalize_limits(subject_schema, request.limits)
    if problems:
        return _refuse(
            RefusalCode.INVALID_REQUEST,
            "Fix the limits to fit the subject schema.",
            fields=problems,
        )
    deadline, refusal = _check_deadline(request.deadline, now)
    if refusal:
        return refusal
    terms: dict[str, Any] | None = None
    if request.subject is not None:
        terms, problems = schema.normalize_terms(subject_schema, request.subject)
        if problems:
            return _refuse(
                RefusalCode.INVALID_TERMS,
                "Fix the terms to fit the subject schema.",
                fields=problems,
            )
        if outside := schema.outside_limits(subject_schema, limits, terms):
            return _refuse(
                RefusalCode.OUTSIDE_OWN_LIMITS,
                "Your own terms break your own limits; change those fields.",
                fields=outside,
            )
    opened: dict[str, Any] = {
        "room_id": room_id,
        "name": name,
        "title": request.title or "",
        "subject_schema": subject_schema,
        "opener_limits_commitment": commit_set(private_set({"limits": limits}, nonce=nonce)),
        "invite_expires_at": format_time(now + timedelta(seconds=policy.invite_ttl_seconds)),
    }
    public = [Draft("room.opened", SERVER, opened)]
    if terms is None:
        opened |= {k: v for k, v in (("deadline", deadline), ("message", request.message)) if v}
    else:
        public.append(
            Draft(
                "move.offer",
                {"role": Seat.OPENER, "via": "agent"},
                _offer_payload(terms, commit(terms), request.message, deadline),
            )
        )
    return Decision(public=public, private=[_limits_record(Seat.OPENER, nonce, limits)])


def _offer_payload(
    terms: Mapping[str, Any], subject_hash: str, message: str | None, deadline: str | None
) -> dict[str, Any]:
    payload: dict[str, Any] = {"terms": dict(terms), "subject_hash": subject_hash}
    if message is not None:
        payload["message"] = message
    if deadline is not None:
        payload["deadline"] = deadline
    return payload


def join_room(state: RoomState, request: JoinRequest, *, nonce: str) -> Decision | Refusal:
    """Join: invite_invalid → invalid_request. Both seats learn which fields' limits cannot
    meet, never the numbers."""
    if state.status is not Status.DRAFT:
        return _refuse(
            RefusalCode.INVITE_INVALID,
            "This invite was used or has expired; ask for a new room.",
        )
    limits, problems = schema.normalize_limits(state.subject_schema, request.limits)
    if problems:
        return _refuse(
            RefusalCode.INVALID_REQUEST,
            "Fix the limits to fit the subject schema.",
            fields=problems,
        )
    opener_limits = state.seat_private(Seat.OPENER).limits
    incompatible = schema.incompatible_fields(state.subject_schema, opener_limits, limits)
    turn = Seat.JOINER if state.table is not None else Seat.OPENER
    notices = [Notice(turn, "your_turn")]
    if incompatible:
        notices += [Notice(s, "limits_incompatible", {"fields": incompatible}) for s in BOTH]
    return Decision(
        public=[
            Draft(
                "room.joined",
                SERVER,
                {
                    "joiner_limits_commitment": commit_set(
                        private_set({"limits": limits}, nonce=nonce)
                    ),
                    "limits_compatible": not incompatible,
                    "incompatible_fields": incompatible,
                },
            )
        ],
        private=[_limits_record(Seat.JOINER, nonce, limits)],
        notices=notices,
    )


def allowed_moves(state: RoomState, seat: Seat) -> list[MoveType]:
    """The moves `seat` may make now: the turn grammar of rooms-and-turns."""
    if state.is_final:
        return []
    if state.status is Status.DRAFT or state.turn is not seat:
        return ["cancel"]
    if state.table is None:
        return ["offer", "cancel"]
    moves: list[MoveType] = ["counter", "need_more_detail"]
    subject_hash = state.table.subject_hash
    if not any(a.seat is seat and a.subject_hash == subject_hash for a in state.approvals):
        moves.append("approve")
    return [*moves, "reject", "cancel"]


def expire(state: RoomState, *, now: datetime, policy: RoomPolicy) -> Decision | None:
    """The expiry that is due at `now`, or None. Recorded on any access and by the sweeper."""
    reason = expiry_reason(state, policy, now)
    if reason is None:
        return None
    return Decision(
        public=[Draft("room.expired", SERVER, {"reason": reason})],
        notices=_to_all(state, "expired", reason=reason),
    )


def decide_move(
    state: RoomState, move: MoveRequest, actor: Actor, *, now: datetime, seen: Seen
) -> Decision | Refusal:
    """room_final → confirmation_pending → not_your_turn (cancel exempt) → raced →
    move_not_allowed → invalid_deadline → invalid_terms → outside_own_limits → no_change →
    stale_terms. Approve, reject and cancel asked by an agent wait for the owner."""
    if state.is_final:
        return _refuse(RefusalCode.ROOM_FINAL, f"The room is {state.status}; open a new one.")
    pending = state.seat_private(actor.seat).pending
    if pending is not None and not actor.is_owner:
        return _refuse(
            RefusalCode.CONFIRMATION_PENDING,
            "A move of yours waits for your owner's confirmation; wait for the decision.",
            confirmation_id=pending.id,
        )
    checked = _check_move(state, move, actor.seat, now=now)
    if isinstance(checked, Refusal):
        return checked
    if not actor.is_owner and move.type in NEEDS_OWNER:
        return _ask_owner(state, move, actor.seat, now=now)
    decision = _build_move(
        state,
        move,
        actor.seat,
        "owner" if actor.is_owner else "agent",
        checked,
        seen=seen,
    )
    if pending is not None:  # DESIGN, Confirmation: the owner's own move replaces the request
        resolved = _resolution(actor.seat, pending.id, "replaced")
        decision = Decision(decision.public, [*decision.private, resolved], decision.notices)
    return decision


def _check_move(
    state: RoomState, move: MoveRequest, seat: Seat, *, now: datetime, check_seq: bool = True
) -> Checked | Refusal:
    if move.type != "cancel":
        if state.status is Status.DRAFT:
            return _refuse(
                RefusalCode.NOT_YOUR_TURN,
                "The room waits for the other party to join; only cancel is possible now.",
            )
        if state.turn is not seat:
            return _refuse(
                RefusalCode.NOT_YOUR_TURN, "It is the other side's turn; wait for their move."
            )
    if check_seq and move.expected_seq is not None and move.expected_seq != state.seq:
        return _refuse(
            RefusalCode.RACED,
            "The room moved on since you read it; read it again and decide anew.",
            seq=state.seq,
        )
    allowed = allowed_moves(state, seat)
    if move.type not in allowed:
        return _refuse(
            RefusalCode.MOVE_NOT_ALLOWED,
            f"{move.type} is not possible now; you may {', '.join(allowed)}.",
            allowed=allowed,
        )
    deadline, refusal = _check_deadline(move.deadline, now)
    if refusal:
        return refusal
    terms: dict[str, Any] | None = None
    subject_hash: str | None = None
    if move.type in SETS_TERMS:
        terms, problems = schema.normalize_terms(state.subject_schema, move.terms)
        if problems:
            return _refuse(
                RefusalCode.INVALID_TERMS,
                "Fix the terms to fit the subject schema.",
                fields=problems,
            )
        limits = state.seat_private(seat).limits
        if outside := schema.outside_limits(state.subject_schema, limits, terms):
            return _refuse(
                RefusalCode.OUTSIDE_OWN_LIMITS,
                "Your own terms break your own limits; change those fields.",
                fields=outside,
            )
        subject_hash = commit(terms)
        if state.table is not None and subject_hash == state.table.subject_hash:
            return _refuse(
                RefusalCode.NO_CHANGE,
                "These are the terms on the table already; approve them or propose others.",
            )
    if move.type == "approve":
        assert state.table is not None  # allowed_moves offers approve only with a table
        if move.subject_hash != state.table.subject_hash:
            return _refuse(
                RefusalCode.STALE_TERMS,
                "The terms on the table changed; read the room and approve what is there.",
                subject_hash=state.table.subject_hash,
            )
    return Checked(terms, subject_hash, deadline)


def _ask_owner(state: RoomState, move: MoveRequest, seat: Seat, *, now: datetime) -> Decision:
    requests = state.seat_private(seat).requests
    pending = Pending(
        id=f"cnf_{seat}_{requests + 1}",
        type=move.type,
        requested_at=format_time(now),
        subject_hash=move.subject_hash,
        message=move.message,
    )
    record = Draft("confirmation.requested", SERVER, pending.model_dump(exclude_none=True))
    notice = Notice(
        seat,
        "confirmation_needed",
        {"confirmation_id": pending.id, "move": move.type},
        owner_only=True,
    )
    return Decision(private=[PrivateDraft(seat, record)], notices=[notice])


def _resolution(seat: Seat, confirmation_id: str, outcome: str) -> PrivateDraft:
    return PrivateDraft(
        seat, Draft("confirmation.resolved", SERVER, {"id": confirmation_id, "outcome": outcome})
    )


def _build_move(
    state: RoomState,
    move: MoveRequest,
    seat: Seat,
    via: Via,
    checked: Checked,
    *,
    seen: Seen = never_seen,
) -> Decision:
    sender = {"role": str(seat), "via": via}
    kind = move.type
    terms, deadline = checked.terms, checked.deadline
    notices: list[Notice] = []
    if kind in SETS_TERMS:
        assert terms is not None and checked.subject_hash is not None
        payload = _offer_payload(terms, checked.subject_hash, move.message, deadline)
    elif kind == "need_more_detail":
        payload = {"message": move.message}
        if deadline is not None:
            payload["deadline"] = deadline
    elif kind == "approve":
        payload = {"subject_hash": move.subject_hash}
    else:
        payload = {"message": move.message} if move.message is not None else {}
    public = [Draft(f"move.{kind}", sender, payload)]
    if kind in SETS_DEADLINE and deadline != state.deadline:
        notices += _to_all(state, "deadline_changed", deadline=deadline)
    if kind in CLOSES:
        return Decision(
            public=public, notices=notices + _to_all(state, "closed", by=seat, move=kind)
        )
    if (
        kind == "approve"
        and state.table is not None
        and any(
            a.seat is seat.other and a.subject_hash == state.table.subject_hash
            for a in state.approvals
        )
    ):
        table = state.table
        public.append(
            Draft("room.agreed", SERVER, {"terms": table.terms, "subject_hash": table.subject_hash})
        )
        return Decision(
            public=public,
            notices=notices + _to_all(state, "agreed", subject_hash=table.subject_hash),
        )
    if state.status is Status.AWAITING:
        notices.append(Notice(seat.other, "your_turn"))
    new_terms = bool(terms) and not seen(seen_form(payload["subject_hash"]))
    recent = (*state.recent, (kind, new_terms))
    if not state.circling_announced and is_circling(recent):
        public.append(Draft("room.circling", SERVER, {}))
        notices += _to_all(state, "circling")
    return Decision(public=public, notices=notices)


def confirm(
    state: RoomState,
    actor: Actor,
    confirmation_id: str,
    decision: str,
    *,
    now: datetime,
) -> Decision | Refusal:
    """The owner confirms (the move enters the log as `confirmed`) or declines (the turn
    stays where it was). Only the owner's credential may decide."""
    if not actor.is_owner:
        return _refuse(RefusalCode.FORBIDDEN, "Only the seat's owner can confirm or decline.")
    pending = state.seat_private(actor.seat).pending
    if pending is None or pending.id != confirmation_id:
        return _refuse(
            RefusalCode.CONFIRMATION_NOT_FOUND,
            "No such confirmation waits; list the pending confirmations.",
        )
    if state.is_final:
        return _refuse(RefusalCode.ROOM_FINAL, f"The room is {state.status}; open a new one.")
    if decision == "decline":
        return Decision(private=[_resolution(actor.seat, pending.id, "declined")])
    move = MoveRequest(
        type=pending.type, subject_hash=pending.subject_hash, message=pending.message
    )
    checked = _check_move(state, move, actor.seat, now=now, check_seq=False)
    if isinstance(checked, Refusal):
        return checked
    built = _build_move(state, move, actor.seat, "confirmed", checked)
    return Decision(built.public, [_resolution(actor.seat, pending.id, "confirmed")], built.notices)

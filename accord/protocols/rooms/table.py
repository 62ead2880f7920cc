"""Rooms as a table of the kernel (`accord.core.protocol.Table`): the moves a seat makes, in
the check order of rooms-api.md, over the pure rules of `decide`."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, assert_never

from accord.core.envelope import Envelope
from accord.core.protocol import Context, Decision, Mode, Seen
from accord.core.refusals import Refusal, RefusalCode
from accord.core.step import after_expiry
from accord.protocols.rooms import decide
from accord.protocols.rooms.apply import apply, apply_private, recent_moves, seen_key
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, shape_problems
from accord.protocols.rooms.receipt import build_receipt
from accord.protocols.rooms.state import (
    PROTOCOL,
    RECENT_MOVES,
    TAIL,
    Actor,
    RoomPolicy,
    RoomState,
    Seat,
    Status,
)
from accord.protocols.rooms.state import expires_at as room_expires_at
from accord.protocols.rooms.views import view_json
from accord.trust.commitments import nonce_of
from accord.trust.receipts import ReceiptBody


@dataclass(frozen=True)
class Confirmation:
    """The owner's answer to a move its agent asked for."""

    confirmation_id: str
    decision: Literal["confirm", "decline"]


@dataclass(frozen=True)
class Join:
    """The invite's holder takes the second seat."""

    request: JoinRequest


RoomMove = MoveRequest | Confirmation | Join


class RoomsTable:
    name = PROTOCOL
    state_type = RoomState
    tail_size = TAIL
    not_found = Refusal(RefusalCode.ROOM_NOT_FOUND, "No such room; check the room id.")

    def __init__(self, policy: RoomPolicy, *, base_url: str) -> None:
        self.policy = policy
        self.base_url = base_url

    def decide(
        self, state: RoomState, move: RoomMove, actor: Actor, context: Context
    ) -> Decision | Refusal:
        """The move's shape → an expiry due (recorded, then the move refused) → the rules."""
        now = context.now
        rule: Callable[[RoomState], Decision | Refusal]
        match move:
            case MoveRequest():
                if problems := shape_problems(move):
                    return Refusal(
                        RefusalCode.INVALID_REQUEST,
                        "Fix the move: see fields for what does not belong.",
                        {"fields": problems},
                    )

                def rule(s: RoomState) -> Decision | Refusal:
                    return decide.decide_move(s, move, actor, now=now, seen=context.seen)

            case Confirmation(confirmation_id, answer):

                def rule(s: RoomState) -> Decision | Refusal:
                    return decide.confirm(s, actor, confirmation_id, answer, now=now)

            case Join(request):
                nonce = nonce_of(context.entropy)

                def rule(s: RoomState) -> Decision | Refusal:
                    return decide.join_room(s, request, nonce=nonce)

            case _:
                assert_never(move)

        due = self.expire(state, now)
        return rule(state) if due is None else after_expiry(self, state, due, context, rule)

    def apply(self, state: RoomState | None, envelope: Envelope, seen: Seen) -> RoomState:
        return apply(state, envelope, seen)

    def seen_key(self, envelope: Envelope) -> str | None:
        return seen_key(envelope)

    def restore(self, stored: str, tail: Sequence[Envelope]) -> RoomState:
        state = RoomState.model_validate_json(stored)
        return state.model_copy(update={"moves": recent_moves(tail)})

    def restore_since(
        self, stored: str, earlier: RoomState, newer: Sequence[Envelope]
    ) -> RoomState:
        """As the fold keeps them: the earlier state's moves, then the newer ones."""
        moves = (*earlier.moves, *recent_moves(newer))[-RECENT_MOVES:]
        return RoomState.model_validate_json(stored).model_copy(update={"moves": moves})

    def dump(self, state: RoomState) -> str:
        return state.model_dump_json()

    def apply_private(self, state: RoomState, party: str, record: Envelope) -> RoomState:
        return apply_private(state, Seat(party), record)

    def expire(self, state: RoomState, now: datetime) -> Decision | None:
        return decide.expire(state, now=now, policy=self.policy)

    def is_final(self, state: RoomState) -> bool:
        return state.is_final

    def is_agreed(self, state: RoomState) -> bool:
        return state.status is Status.AGREED

    def expires_at(self, state: RoomState) -> str | None:
        return room_expires_at(state, self.policy)

    def view(self, state: RoomState, party: str) -> dict[str, Any]:
        return view_json(state, Seat(party), policy=self.policy, base_url=self.base_url)

    def notice_fields(self, negotiation_id: str, state: RoomState) -> Mapping[str, Any]:
        return {"room_id": negotiation_id, "name": state.name}

    def scope(self, state: RoomState) -> str | None:
        return None  # rooms have no accounts: only their two seats follow them

    def broken_invariants(
        self, before: RoomState | None, after: RoomState, appended: Sequence[Envelope]
    ) -> Sequence[str]:
        return ()

    def receipt(
        self, state: RoomState, log: Sequence[Envelope], *, arbiter_id: str, retention_days: int
    ) -> ReceiptBody:
        return build_receipt(log, arbiter_id=arbiter_id, retention_days=retention_days)

    def signing_mode(self, state: RoomState) -> Mode:
        return "live"  # rooms have no test mode

    def served_receipt(self, state: RoomState, receipt: dict[str, Any]) -> dict[str, Any]:
        return receipt

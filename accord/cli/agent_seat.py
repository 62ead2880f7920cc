"""A built-in agent at a live room seat, through the SDK: read the room, ask the agent, send
its move. With the owner's credential it also confirms what its agent asks (the simulated owner
of `accord demo`); without it, a move that needs the person stops the agent there."""

from dataclasses import dataclass
from typing import Any

from accord.agents.room_agent import RoomAgent, Step
from accord.sdk import AwaitingOwner, RoomSeat


@dataclass(frozen=True)
class Acted:
    step: Step
    room: dict[str, Any]
    """The room as the seat saw it after the move."""
    confirmation_id: str | None = None
    """Set when the move waits for a person who was not there to confirm it."""


def act(agent: RoomAgent, seat: RoomSeat, owner: RoomSeat | None) -> Acted:
    """One turn: the move the agent decides now, sent, and confirmed by `owner` if given."""
    room = seat.view()
    envelopes = [e.to_json() for e in seat.log().envelopes]
    step = agent.decide(room.to_json(), envelopes)
    if step.kind == "needs_owner":
        pending = room.pending_confirmation
        if owner is None or pending is None:
            return Acted(step, room.to_json(), pending.id if pending else None)
        return Acted(step, owner.confirm(pending.id).room.to_json())
    if step.kind in ("wait", "done", "out_of_rounds"):
        return Acted(step, room.to_json())
    answer = seat.move(step.body())
    if isinstance(answer, AwaitingOwner):
        if owner is None:
            return Acted(step, answer.room.to_json(), answer.confirmation.id)
        return Acted(step, owner.confirm(answer.confirmation.id).room.to_json())
    return Acted(step, answer.room.to_json())

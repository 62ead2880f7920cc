"""A built-in agent at a live room seat, through the SDK: read the room, ask the agent, send
its move. With the owner's credential it also confirms what its agent asks (the simulated owner
of `accord demo`); without it, a move that needs the person stops the agent there."""

from dataclasses import dataclass
from typing import Any

from accord.agents.guard import secrets_of_limits
from accord.agents.llm import Model, room_message
from accord.agents.room_agent import RoomAgent, Step
from accord.sdk import AwaitingOwner, RoomSeat


@dataclass(frozen=True)
class Acted:
    step: Step
    room: dict[str, Any]
    """The room as the seat saw it after the move."""
    confirmation_id: str | None = None
    """Set when the move waits for a person who was not there to confirm it."""


def act(
    agent: RoomAgent, seat: RoomSeat, owner: RoomSeat | None, model: Model | None = None
) -> Acted:
    """One turn: the move the agent decides now, sent, and confirmed by `owner` if given. With
    a `model`, the move carries the words it writes, when the guard lets them through."""
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
    body = step.body()
    if model is not None:
        theirs = [
            str(e["payload"]["message"])
            for e in envelopes
            if e["sender"].get("role") not in (None, room.seat) and e["payload"].get("message")
        ]
        secrets = secrets_of_limits(room.subject_schema, agent.brief.limits())
        words = room_message(step.kind, step.terms, model, secrets, their_messages=theirs[-5:])
        if words is not None:
            body["message"] = words
    answer = seat.move(body)
    if isinstance(answer, AwaitingOwner):
        if owner is None:
            return Acted(step, answer.room.to_json(), answer.confirmation.id)
        return Acted(step, owner.confirm(answer.confirmation.id).room.to_json())
    return Acted(step, answer.room.to_json())

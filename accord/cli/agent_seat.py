"""A built-in agent at a live room seat, through the SDK: read the room, ask the agent, send
its move. With the owner's credential it also confirms what its agent asks (the simulated owner
of `accord demo`); without it, a move that needs the person stops the agent there."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from accord.adviser.disclosure import reveals
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
    vetoed: str | None = None
    """Why the move was not sent: the person's own rule said no (a case's deal review)."""


Veto = Callable[[Step], str | None]


def no_veto(step: Step) -> str | None:
    return None


def act(
    agent: RoomAgent,
    seat: RoomSeat,
    owner: RoomSeat | None,
    model: Model | None = None,
    *,
    veto: Veto = no_veto,
    never_say: frozenset[str] = frozenset(),
) -> Acted:
    """One turn: the move the agent decides now, sent, and confirmed by `owner` if given,
    unless `veto` says why not. With a `model`, the move carries the words it writes, when the
    guard lets them through and they say nothing of `never_say` (a case's never-reveal
    values)."""
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
    if (reason := veto(step)) is not None:
        return Acted(step, room.to_json(), vetoed=reason)
    body = step.body()
    if model is not None:
        theirs = [
            str(e["payload"]["message"])
            for e in envelopes
            if e["sender"].get("role") not in (None, room.seat) and e["payload"].get("message")
        ]
        secrets = secrets_of_limits(room.subject_schema, agent.brief.limits())
        words = room_message(step.kind, step.terms, model, secrets, their_messages=theirs[-5:])
        if words is not None and not reveals(words, never_say):
            body["message"] = words
    answer = seat.move(body)
    if isinstance(answer, AwaitingOwner):
        if owner is None:
            return Acted(step, answer.room.to_json(), answer.confirmation.id)
        return Acted(step, owner.confirm(answer.confirmation.id).room.to_json())
    return Acted(step, answer.room.to_json())

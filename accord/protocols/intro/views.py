"""What a seat sees: the Negotiation, the other side's layers, its own questions (intro-api.md,
The negotiation and Disclosure). The only way negotiation state leaves the protocol.

The other seat's questions, answers, briefs and new-context marks never appear; a closed
layer shows only its name, never which value kept it closed.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from accord.protocols.intro.grammar import available_actions, blocked_reason
from accord.protocols.intro.state import MAX_TURNS_PER_ROUND, MESSAGE_LIMIT, IntroState, Seat

Layer = Literal["open", "closed"]
LAYERS: Final = ("statement", "constraints", "identity")


def negotiation_view(state: IntroState, seat: Seat, *, intents_active: bool) -> dict[str, Any]:
    """The Negotiation as `seat` sees it; `intents_active` is whether both intents of the pair
    are `active` (the service knows, the log does not)."""
    blocked = blocked_reason(state, seat, intents_active=intents_active)
    actions = available_actions(state, seat, intents_active=intents_active)
    return {
        "negotiation_id": state.negotiation_id,
        "opportunity_id": state.opportunity_id,
        "outcome": state.outcome,
        "round": state.round,
        "turn_count": state.turn_count,
        "turns_in_round": state.turns_in_round,
        "awaiting": state.awaiting,
        "turns": [turn.model_dump(mode="json") for turn in state.turns],
        "protocol": {
            "available_actions": [str(a) for a in actions],
            "blocked_reason": None if blocked is None else str(blocked),
            "max_turns_per_round": MAX_TURNS_PER_ROUND,
            "message_limit": MESSAGE_LIMIT,
        },
    }


def layers(
    state: IntroState, *, other_incognito: bool, opportunity_accepted: bool
) -> dict[str, Layer]:
    """Statement once the pair was mutual (and, where the other side is incognito, both seats
    also engaged); Constraints once `constraint_fit` held while Statement was open; Identity once
    both people accepted the introduction, whatever the checks."""
    ever = state.disclosure
    statement = ever.mutual_engaged if other_incognito else ever.mutual
    constraints = ever.fit_since_mutual_engaged if other_incognito else ever.fit_since_mutual
    opened = {"statement": statement, "constraints": constraints, "identity": opportunity_accepted}
    return {name: "open" if is_open else "closed" for name, is_open in opened.items()}


@dataclass(frozen=True)
class CounterpartyIntent:
    """The other side's intent as it stands now: the service reads it, the layers decide what
    of it is shown."""

    statement: str
    constraints: list[Mapping[str, Any]] = field(default_factory=list)
    identity: Mapping[str, Any] = field(default_factory=dict)


def counterparty(opened: Mapping[str, Layer], intent: CounterpartyIntent) -> dict[str, Any]:
    """`{layers, ...}` with the member of each open layer."""
    members: dict[str, Any] = {
        "statement": intent.statement,
        "constraints": [dict(c) for c in intent.constraints],
        "identity": dict(intent.identity),
    }
    shown = {name: members[name] for name in LAYERS if opened[name] == "open"}
    return {"layers": dict(opened), **shown}


def questions_view(state: IntroState, seat: Seat) -> list[dict[str, Any]]:
    """The seat's own questions, oldest first; the other seat's are never listed."""
    listed = []
    for question in state.seat_private(seat).questions.values():
        shown = question.model_dump(mode="json")
        if question.status == "open":
            del shown["answer"], shown["answered_in_chat"]
        listed.append(shown)
    return listed

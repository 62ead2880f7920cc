"""The turn grammar and what blocks a seat (spec/intro-api.md, The negotiation): read by the
decisions, the views and the invariants alike, so the three can never disagree."""

from accord.core.refusals import RefusalCode
from accord.protocols.intro.state import Action, IntroState, Seat


def grammar_allows(state: IntroState, seat: Seat) -> list[Action]:
    """The actions the grammar allows `seat` as the next turn, with *last* the latest turn of
    the whole log and *standing* the latest `propose` not followed by a `decline`."""
    last, standing = state.last, state.standing_turn
    theirs = last is not None and last.seat is seat.other
    resumed_first = state.round > 1 and state.turns_in_round == 0
    actions: list[Action] = []
    if not (standing is not None and standing.seat is seat.other) and (
        last is None or (theirs and last.action is Action.COUNTER) or resumed_first
    ):
        actions.append(Action.PROPOSE)
    if theirs:
        actions.append(Action.COUNTER)
    if theirs and last is not None and last.action is Action.PROPOSE:
        actions.append(Action.ACCEPT)
    return [*actions, Action.DECLINE]


def blocked_reason(state: IntroState, seat: Seat, *, intents_active: bool) -> RefusalCode | None:
    """The first that holds of settled, intent_inactive, round_over, needs_principal,
    not_your_turn; None when the seat may take a turn."""
    if state.is_settled:
        return RefusalCode.SETTLED
    if not intents_active:
        return RefusalCode.INTENT_INACTIVE
    if state.round_over:
        return RefusalCode.ROUND_OVER
    if state.seat_private(seat).open_questions:
        return RefusalCode.NEEDS_PRINCIPAL
    if state.awaiting is not seat:
        return RefusalCode.NOT_YOUR_TURN
    return None


def available_actions(state: IntroState, seat: Seat, *, intents_active: bool) -> list[Action]:
    if blocked_reason(state, seat, intents_active=intents_active) is not None:
        return []
    return grammar_allows(state, seat)

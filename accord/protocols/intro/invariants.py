"""The invariants of an intro negotiation (intro-api.md, Log and receipt): over a whole log for
the receipt, and step by step, from where the state before the step ends, for the server.

- bounded_rounds: no round holds more than 12 turns.
- grammar: every turn was the turn-holder's and legal by the grammar when it was taken,
  `negotiation.agreed` comes right after an `accept`, and nothing follows a settlement.
- hash_chain: every envelope links to the one before.
"""

from collections.abc import Sequence
from typing import Final

from accord.core.chain import ChainError, links_on, verify_chain
from accord.core.envelope import Envelope
from accord.protocols.intro.apply import apply
from accord.protocols.intro.grammar import grammar_allows
from accord.protocols.intro.state import MAX_TURNS_PER_ROUND, Action, IntroState, Seat

BOUNDED_ROUNDS: Final = "bounded_rounds"
GRAMMAR: Final = "grammar"
HASH_CHAIN: Final = "hash_chain"
NAMES: Final = (BOUNDED_ROUNDS, GRAMMAR, HASH_CHAIN)


def _broken_in_run(before: IntroState | None, run: Sequence[Envelope]) -> set[str]:
    broken: set[str] = set()
    state, previous = before, None
    for envelope in run:
        if state is not None and state.is_settled:
            broken.add(GRAMMAR)
        if envelope.type.startswith("turn.") and not _legal_turn(state, envelope):
            broken.add(GRAMMAR)
        if envelope.type == "negotiation.agreed" and (
            previous is None or previous.type != "turn.accept"
        ):
            broken.add(GRAMMAR)
        try:
            state = apply(state, envelope)
        except (AssertionError, KeyError, ValueError):
            broken.add(GRAMMAR)
            break
        if state.turns_in_round > MAX_TURNS_PER_ROUND:
            broken.add(BOUNDED_ROUNDS)
        previous = envelope
    return broken


def _legal_turn(state: IntroState | None, envelope: Envelope) -> bool:
    if state is None or state.round_over:
        return False
    try:
        seat = Seat(envelope.sender.get("role", ""))
        action = Action(envelope.type.removeprefix("turn."))
    except ValueError:
        return False
    return state.awaiting is seat and action in grammar_allows(state, seat)


def broken_invariants(
    before: IntroState | None, after: IntroState, appended: Sequence[Envelope]
) -> list[str]:
    """The invariants a step appending `appended` to `before`'s log would break: it reads only
    the step's own envelopes, from where `before` ends."""
    broken = _broken_in_run(before, appended)
    if not links_on(appended, seq=0 if before is None else before.seq + 1):
        broken.add(HASH_CHAIN)
    return [name for name in NAMES if name in broken]


def invariants(log: Sequence[Envelope]) -> dict[str, bool]:
    """Each invariant over the whole log, as a receipt reports it."""
    broken = _broken_in_run(None, log)
    try:
        verify_chain([e.to_json() for e in log])
    except ChainError:
        broken.add(HASH_CHAIN)
    return {name: name not in broken for name in NAMES}

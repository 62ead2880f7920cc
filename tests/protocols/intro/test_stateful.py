"""The intro grammar under random sequences: any key of either seat tries any call, legal or
not, with the service's facts in between; after every step the log must tell one consistent
story (DESIGN.md, Tests: the chain verifies, state equals the fold, nothing after a final
state, agreement only as the spec allows)."""

from typing import Final

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from accord.core.chain import verify_chain
from accord.core.envelope import Envelope
from accord.core.refusals import Refusal
from accord.core.step import replay
from accord.protocols.intro.invariants import broken_invariants, invariants
from accord.protocols.intro.moves import Close, IntentEdited, OwnerMessage, Recheck
from accord.protocols.intro.state import Actor, Checks, IntroState, Key, Seat
from tests.protocols.intro.conftest import Talk

SEATS: Final = st.sampled_from(list(Seat))
KEYS: Final = st.sampled_from([Key.SELECTED_AGENT] * 4 + [Key.OWNER, Key.OTHER_AGENT])
ACTIONS: Final = st.sampled_from(["propose", "counter", "accept", "decline", "wave"])
TALK: Final = st.sampled_from(["counter", "propose", "counter", "accept", "counter", "decline"])
"""What the agent with the turn tries: counters weigh more, so that talks last."""
MESSAGES: Final = st.sampled_from(["Coffee?", "Which city?", "Berlin.", "Remote works.", ""])


class IntroMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.talk = Talk()
        self.seen: list[Envelope] = list(self.talk.envelopes)
        self.before: IntroState = self.talk.state

    def _step(self, result: object, counted: bool = False) -> None:
        after = self.talk.state
        appended = self.talk.envelopes[len(self.seen) :]
        if isinstance(result, Refusal):
            assert appended == [] and after == self.before, "a refusal changed nothing"
        else:
            assert broken_invariants(self.before, after, appended) == []
        if self.before.is_settled:
            assert appended == [], "nothing after settlement"
        if not counted:
            assert after.turn_count == self.before.turn_count
        self.seen, self.before = list(self.talk.envelopes), after

    @rule(
        seat=st.one_of(st.none(), SEATS),
        key=KEYS,
        action=ACTIONS,
        message=MESSAGES,
        stale=st.integers(0, 5).map(lambda n: n == 0),
    )
    def turn(self, seat: Seat | None, key: Key, action: str, message: str, stale: bool) -> None:
        """`seat` None is whichever seat has the turn, so that talks get somewhere."""
        seat = seat or self.talk.state.awaiting or Seat.INITIATOR
        expected = self.talk.state.turn_count + (1 if stale else 0)
        result = self.talk.try_turn(Actor(seat, key), action, message or None, expected=expected)
        if not isinstance(result, Refusal):
            assert self.talk.state.turn_count == self.before.turn_count + 1
        self._step(result, counted=True)

    @rule(action=TALK)
    def the_awaited_agent_takes_a_turn(self, action: str) -> None:
        seat = self.talk.state.awaiting or Seat.INITIATOR
        result = self.talk.try_turn(Actor(seat, Key.SELECTED_AGENT), action)
        self._step(result, counted=True)

    @rule(seat=SEATS, key=KEYS)
    def resume(self, seat: Seat, key: Key) -> None:
        self._step(self.talk.try_resume(Actor(seat, key)))

    @rule(seat=SEATS, key=KEYS)
    def ask(self, seat: Seat, key: Key) -> None:
        self._step(self.talk.try_ask(Actor(seat, key)))

    @rule(seat=SEATS, key=KEYS, pick=st.integers(0, 5))
    def answer(self, seat: Seat, key: Key, pick: int) -> None:
        ids = sorted(self.talk.state.seat_private(seat).questions) or ["q_none"]
        self._step(self.talk.try_answer(Actor(seat, key), ids[pick % len(ids)]))

    @rule(seat=SEATS, edit=st.booleans())
    def owner_gives_context(self, seat: Seat, edit: bool) -> None:
        move = IntentEdited(seat) if edit else OwnerMessage(seat, "Something new.")
        self._step(self.talk.server(move))

    @rule(mutual=st.booleans(), fit=st.booleans())
    def recheck(self, mutual: bool, fit: bool) -> None:
        self._step(self.talk.server(Recheck(Checks(mutual=mutual, constraint_fit=fit))))

    @rule(chance=st.integers(0, 29))
    def close(self, chance: int) -> None:
        if chance == 0:
            self._step(self.talk.server(Close("decided")))

    @invariant()
    def the_log_is_the_truth(self) -> None:
        log = self.talk.envelopes
        assert log[: len(self.seen)] == self.seen, "the log is never rewritten"
        verify_chain([e.to_json() for e in log])
        assert replay(self.talk.log.table, log, self.talk.log.private) == self.talk.state
        assert invariants(log) == {"bounded_rounds": True, "grammar": True, "hash_chain": True}

    @invariant()
    def rounds_hold_at_most_twelve_turns(self) -> None:
        state = self.talk.state
        assert state.turns_in_round <= 12
        assert all(sum(t.round == r for t in state.turns) <= 12 for r in range(1, state.round + 1))

    @invariant()
    def agreement_only_by_accepting_the_other_seats_proposal(self) -> None:
        log = self.talk.envelopes
        for index, envelope in enumerate(log):
            if envelope.type != "negotiation.agreed":
                continue
            assert index == len(log) - 1, "the chain ends at the agreement"
            accept = log[index - 1]
            assert accept.type == "turn.accept"
            proposal = next(e for e in reversed(log[: index - 1]) if e.type.startswith("turn."))
            assert proposal.type == "turn.propose"
            assert proposal.sender["role"] != accept.sender["role"]
        finals = [e for e in log if e.type in ("negotiation.agreed", "negotiation.closed")]
        assert len(finals) <= 1 and (not finals or finals[0] is log[-1])


IntroMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=60)
test_intro_grammar = IntroMachine.TestCase

"""The intro agent under random talks: the other seat plays any legal turn with hostile text,
the service records checks and owner context, the owner answers with anything; whenever the
agent moves, the protocol takes the move (it is legal and never `repeated_message`), and
nothing it says holds its owner's private text or the other side's text."""

from typing import Final

from hypothesis import event, given, settings
from hypothesis import strategies as st

from accord.agents import intro_messages as say
from accord.agents.intro import OwnIntent, TakeTurn, Wait, decide
from accord.core.refusals import Refusal
from accord.protocols.intro.grammar import grammar_allows
from accord.protocols.intro.moves import IntentEdited, OwnerMessage, Recheck
from accord.protocols.intro.state import Checks, Seat
from tests.agents.conftest import apply_move, counterparty, situation_of
from tests.protocols.intro.conftest import Talk, agent

MARK: Final = "⟪"
"""Every private and every counterparty text holds it; no template or own statement does."""

WORDS: Final = st.text(alphabet="abcdefghij klmnop", min_size=1, max_size=40).filter(
    lambda s: s.strip() != ""
)
MARKED: Final = st.builds(lambda w: f"{MARK}{w} accept now", WORDS)
KEYS: Final = st.sampled_from(["city", "day", "rate", "remote"])
VALUES: Final = st.one_of(MARKED, st.integers(0, 100), st.booleans())
CONSTRAINT: Final = st.one_of(
    st.fixed_dictionaries({"key": KEYS, "op": st.just("eq"), "value": VALUES}),
    st.fixed_dictionaries(
        {"key": KEYS, "op": st.just("in"), "value": st.lists(VALUES, min_size=1, max_size=3)}
    ),
    st.fixed_dictionaries({"key": KEYS, "op": st.sampled_from(["gte", "lte"]), "value": VALUES}),
)
MOSTLY: Final = st.sampled_from([True, True, True, False])
"""Checks that mostly hold, so that talks get as far as accepting."""
STEPS: Final = st.sampled_from(
    ["agent"] * 3 + ["other"] * 3 + ["answer"] * 2 + ["chat", "edit", "recheck", "resume"]
)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_agent_moves_legally_and_says_nothing_private(data: st.DataObject) -> None:
    talk = Talk(mutual=data.draw(MOSTLY), constraint_fit=data.draw(MOSTLY))
    me = data.draw(st.sampled_from(list(Seat)))
    intent = OwnIntent(
        data.draw(WORDS),
        data.draw(st.lists(CONSTRAINT, max_size=2)),
        data.draw(st.sampled_from(["public", "network", "incognito"])),
    )
    other = counterparty(
        statement=data.draw(st.one_of(st.none(), MARKED)),
        constraints=data.draw(st.one_of(st.none(), st.lists(CONSTRAINT, max_size=2))),
    )
    private: list[str] = []
    for _ in range(data.draw(st.integers(1, 30))):
        step = data.draw(STEPS)
        state = talk.state
        if step == "agent":
            move = decide(situation_of(talk, me, intent=intent, other=other, private=private))
            view = situation_of(talk, me, intent=intent, other=other)
            if view.negotiation["protocol"]["blocked_reason"] is None:
                assert not isinstance(move, Wait), "a seat that may move moves"
            if isinstance(move, TakeTurn):
                assert MARK not in move.message
                assert not say.leaks(move.message, private)
            event(f"{type(move).__name__} {getattr(move, 'action', '')}".strip())
            result = apply_move(talk, me, move)
            assert not isinstance(result, Refusal), f"{move}: {result.code} {result.details}"
        elif step == "other" and state.awaiting is me.other and not state.round_over:
            action = data.draw(st.sampled_from(grammar_allows(state, me.other)))
            talk.try_turn(agent(me.other), str(action), data.draw(MARKED))
        elif step == "answer":
            open_ids = [
                q for q, v in state.seat_private(me).questions.items() if v.status == "open"
            ]
            if open_ids:
                answer = data.draw(st.one_of(st.sampled_from([say.YES, say.NO]), MARKED))
                private.append(answer)
                talk.try_answer(me, open_ids[0], answer)
        elif step == "chat":
            text = data.draw(MARKED)
            private.append(text)
            talk.server(OwnerMessage(me, text))
        elif step == "edit":
            talk.server(IntentEdited(me))
        elif step == "recheck":
            checks = Checks(
                mutual=data.draw(st.booleans()), constraint_fit=data.draw(st.booleans())
            )
            talk.server(Recheck(checks))
        elif step == "resume":
            talk.try_resume(me.other)

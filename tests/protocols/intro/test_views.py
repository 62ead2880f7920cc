"""What a seat sees (intro-api.md, The negotiation and Disclosure): blocked_reason in its order,
the layers that open and stay open, and nothing of the other seat's private records."""

import json
from collections.abc import Callable
from typing import Any

import pytest

from accord.protocols.intro.moves import OwnerMessage, Recheck
from accord.protocols.intro.state import Checks
from accord.protocols.intro.views import (
    CounterpartyIntent,
    Layer,
    counterparty,
    layers,
    negotiation_view,
    questions_view,
)
from tests.protocols.intro.conftest import INITIATOR, RESPONDER, Talk, paused


def _protocol(talk: Talk, seat: Any, *, active: bool = True) -> dict[str, Any]:
    protocol: dict[str, Any] = negotiation_view(talk.state, seat, intents_active=active)["protocol"]
    return protocol


BLOCKED: list[Any] = [
    pytest.param(lambda t: t.play((INITIATOR, "propose"), (RESPONDER, "accept")), True, "settled"),
    pytest.param(lambda t: None, False, "intent_inactive"),
    pytest.param(paused, True, "round_over"),
    pytest.param(lambda t: t.ask(RESPONDER), True, "needs_principal"),
    pytest.param(lambda t: None, True, "not_your_turn"),
]


@pytest.mark.parametrize(("setup", "active", "reason"), BLOCKED, ids=[p.values[2] for p in BLOCKED])
def test_blocked_reason_is_the_first_that_holds(
    talk: Talk, setup: Callable[[Talk], Any], active: bool, reason: str
) -> None:
    setup(talk)
    assert _protocol(talk, RESPONDER, active=active) == {
        "available_actions": [],
        "blocked_reason": reason,
        "max_turns_per_round": 12,
        "message_limit": 4000,
    }


def test_the_seat_with_the_turn_sees_its_legal_actions(talk: Talk) -> None:
    assert _protocol(talk, INITIATOR)["available_actions"] == ["propose", "decline"]
    talk.turn(INITIATOR, "propose", "Coffee?")
    view = negotiation_view(talk.state, RESPONDER, intents_active=True)
    assert view["protocol"]["available_actions"] == ["counter", "accept", "decline"]
    assert (view["turn_count"], view["turns_in_round"], view["awaiting"]) == (1, 1, "responder")
    assert view["turns"][0]["message"] == "Coffee?"
    assert view["turns"][0]["created_at"] == talk.envelopes[-1].ts


def _layers(talk: Talk, *, incognito: bool = False, accepted: bool = False) -> dict[str, Layer]:
    return layers(talk.state, other_incognito=incognito, opportunity_accepted=accepted)


def test_layers_open_with_the_checks_and_stay_open() -> None:
    talk = Talk(mutual=False, constraint_fit=True)
    assert _layers(talk) == {"statement": "closed", "constraints": "closed", "identity": "closed"}
    talk.server(Recheck(Checks(mutual=True, constraint_fit=False)))
    assert _layers(talk) == {"statement": "open", "constraints": "closed", "identity": "closed"}
    talk.server(Recheck(Checks(mutual=True, constraint_fit=True)))
    talk.server(Recheck(Checks(mutual=False, constraint_fit=False)))
    assert _layers(talk) == {"statement": "open", "constraints": "open", "identity": "closed"}
    assert _layers(talk, accepted=True)["identity"] == "open"


def test_an_incognito_statement_opens_once_both_seats_engaged(talk: Talk) -> None:
    assert _layers(talk, incognito=True)["statement"] == "closed"
    talk.turn(INITIATOR, "propose")
    talk.turn(RESPONDER, "decline")  # a decline is not engaging
    assert _layers(talk, incognito=True)["statement"] == "closed"
    talk.server(OwnerMessage(RESPONDER, "Try again."))
    talk.resume(RESPONDER)
    talk.turn(RESPONDER, "propose")
    assert _layers(talk, incognito=True) == {
        "statement": "open",
        "constraints": "open",
        "identity": "closed",
    }
    assert _layers(talk)["statement"] == "open"


def test_a_closed_layer_shows_only_its_name() -> None:
    talk = Talk(mutual=True, constraint_fit=False)
    intent = CounterpartyIntent(
        statement="Looking for a cofounder",
        constraints=[{"key": "city", "op": "eq", "value": "Berlin"}],
        identity={"display_name": "Ada"},
    )
    assert counterparty(_layers(talk), intent) == {
        "layers": {"statement": "open", "constraints": "closed", "identity": "closed"},
        "statement": "Looking for a cofounder",
    }


def test_the_other_seat_never_sees_questions_briefs_or_answers(talk: Talk) -> None:
    talk.try_ask(INITIATOR)
    talk.server(OwnerMessage(INITIATOR, "Secret: my budget is 90k."))
    paused(talk)
    talk.server(OwnerMessage(INITIATOR, "Secret brief context."))
    talk.resume(INITIATOR, "Secret brief: she relocates.")
    assert questions_view(talk.state, RESPONDER) == []
    (mine,) = questions_view(talk.state, INITIATOR)
    assert mine["answer"] == "Secret: my budget is 90k." and mine["answered_in_chat"] is True
    seen = json.dumps(
        [
            negotiation_view(talk.state, RESPONDER, intents_active=True),
            [e.to_json() for e in talk.envelopes],
            [n.data for n in talk.log.notices if n.party == "responder"],
        ]
    )
    assert "Secret" not in seen and "question" not in seen

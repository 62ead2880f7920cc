"""The engine: the deadline and relative time of the spec, the same negotiation for the same
seed, and the room its moves make, move by move or afterwards, through the real rooms rules."""

import itertools

import pytest
from hypothesis import given, settings

from accord.agents.domain import Domain, Issue
from accord.agents.engine import (
    Move,
    Played,
    RoomRecorder,
    field_names,
    play,
    room_log,
    subject_schema,
    terms_of,
)
from accord.agents.preferences import Preferences
from accord.agents.scenarios import Scenario
from accord.agents.strategies import STRATEGIES
from accord.core.chain import verify_chain
from accord.protocols.rooms.schema import validate_schema
from accord.protocols.rooms.state import Status
from tests.agents.play_support import Scripted, data_scenarios, preferences_pairs, scripted

SCENARIOS = data_scenarios()
PAIRS = list(itertools.product(STRATEGIES, repeat=2))


def test_a_round_is_one_move_by_each_seat_and_t_is_k_plus_1_over_r_plus_1() -> None:
    first, second = SCENARIOS[0].profiles
    a, b = Scripted([0, 1]), Scripted([2, 3])
    played = play([first, second], [scripted(a), scripted(b)], rounds=3, seed=0)
    assert played.end == "deadline" and played.rounds == 3 and played.agreement is None
    assert a.seen == [(0, 1 / 4, 0), (1, 2 / 4, 1), (1, 2 / 4, 1), (2, 3 / 4, 2), (2, 3 / 4, 2)]
    assert b.seen[:2] == [(0, 1 / 4, 1), (0, 1 / 4, 1)]  # respond, then propose
    assert [m.mover for m in played.moves] == [0, 1, 0, 1, 0, 1]
    assert [m.round for m in played.moves] == [0, 0, 1, 1, 2, 2]


def test_offering_the_terms_on_the_table_accepts_them() -> None:
    first, second = SCENARIOS[0].profiles
    played = play(
        [first, second], [scripted(Scripted([4])), scripted(Scripted([4]))], rounds=5, seed=0
    )
    assert played == Played((4,), "agreement", 1, closer=1)
    assert played.moves[-1] == Move(1, "accept", 4, 0)


def test_a_negotiation_needs_a_round() -> None:
    first, second = SCENARIOS[0].profiles
    with pytest.raises(ValueError, match="at least one round"):
        play([first, second], [STRATEGIES["linear"]] * 2, rounds=0, seed=0)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_the_room_made_move_by_move_is_the_room_made_afterwards(
    scenario: Scenario, a: str, b: str
) -> None:
    """Every pair of strategies on every test scenario: the eager room and the lazy one hold
    the same envelopes, the chain verifies, and the room ends as the negotiation did."""
    factories = [STRATEGIES[a], STRATEGIES[b]]
    recorder = RoomRecorder(scenario.domain, rounds=30, seed=7)
    eager = play(scenario.profiles, factories, rounds=30, seed=7, record=recorder)
    lazy = play(scenario.profiles, factories, rounds=30, seed=7)
    assert eager == lazy
    log = recorder.finish(eager)
    rebuilt = room_log(scenario.domain, lazy, rounds=30, seed=7)
    assert [e.to_json() for e in log.envelopes] == [e.to_json() for e in rebuilt.envelopes]
    assert verify_chain([e.to_json() for e in log.envelopes]) == log.head.head
    state = log.current
    if eager.end == "agreement":
        assert eager.agreement is not None
        assert state.status is Status.AGREED
        assert state.table is not None
        assert state.table.terms == terms_of(scenario.domain, eager.agreement)
    elif eager.end == "deadline":
        assert state.status is Status.EXPIRED and state.final_reason == "deadline"
    else:
        assert state.status is Status.CLOSED


@settings(max_examples=40, deadline=None)
@given(preferences_pairs())
def test_the_same_seed_plays_the_same_negotiation(pair: tuple[Preferences, Preferences]) -> None:
    for name in STRATEGIES:
        factories = [STRATEGIES[name], STRATEGIES["micro"]]
        assert play(pair, factories, rounds=20, seed=3) == play(pair, factories, rounds=20, seed=3)


def test_issues_become_room_fields_the_rules_accept() -> None:
    many = tuple(str(n) for n in range(150))
    domain = Domain(
        (
            Issue("Delivery Time!", ("1 week", "2 weeks")),
            Issue("delivery time", ("a", "b")),
            Issue("Quantity", many, kind="integer"),
        )
    )
    assert field_names(domain) == ["delivery_time", "delivery_time_2", "quantity"]
    schema = subject_schema(domain)
    assert validate_schema(schema) == {}
    assert schema["quantity"]["type"] == "int"  # past an enum's 100 values
    assert terms_of(domain, domain.number_of((1, 0, 149))) == {
        "delivery_time": "2 weeks",
        "delivery_time_2": "a",
        "quantity": 149,
    }


def test_a_domain_past_a_rooms_fields_is_refused() -> None:
    domain = Domain(tuple(Issue(f"i{n}", ("a", "b")) for n in range(33)))
    with pytest.raises(ValueError, match="at most 32 fields"):
        subject_schema(domain)

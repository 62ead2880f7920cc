"""The built-in strategies' rules (spec/agents.md, Strategies), read off the moves they make
in the engine, and the invariants every one keeps: no agreement below a side's reservation."""

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings

from accord.agents.domain import Domain, Issue
from accord.agents.engine import Move, play
from accord.agents.preferences import Preferences
from accord.agents.strategies import STRATEGIES
from accord.agents.strategies.time_based import BOULWARE, CONCEDER, LINEAR, target
from tests.agents.play_support import Scripted, data_scenarios, preferences_pairs, scripted

SCENARIOS = {s.name: s for s in data_scenarios()}
HOLIDAY = SCENARIOS["genius/holiday"].profiles
ROUNDS = 12


def brute_lowest_at_or_above(preferences: Preferences, level: float) -> int:
    """The outcome of lowest utility at or above `level`, the first in outcome order among
    equals; the best when none reaches it."""
    utilities = list(preferences.utility_list)
    above = [n for n, u in enumerate(utilities) if u >= level - 1e-12]
    if not above:
        return utilities.index(max(utilities))
    return min(above, key=lambda n: (utilities[n], n))


@pytest.mark.parametrize(
    ("name", "exponent"), [("boulware", BOULWARE), ("linear", LINEAR), ("conceder", CONCEDER)]
)
@settings(max_examples=30, deadline=None)
@given(pair=preferences_pairs())
def test_time_based_offers_the_lowest_outcome_at_its_target(
    name: str, exponent: float, pair: tuple[Preferences, Preferences]
) -> None:
    mine, theirs = pair
    opponent = Scripted([theirs.ladder_list[-1]])  # its own best: never on our target late on
    played = play([mine, theirs], [STRATEGIES[name], scripted(opponent)], rounds=ROUNDS, seed=0)
    offers = [m for m in played.moves if m.mover == 0 and m.kind == "offer"]
    for move in offers:
        t = (move.round + 1) / (ROUNDS + 1)
        assert move.outcome == brute_lowest_at_or_above(mine, target(mine, exponent, t))
    if played.end == "agreement" and played.moves[-1].mover == 0:
        k = played.moves[-1].round
        offered = mine.utility_list[theirs.ladder_list[-1]]
        assert offered >= target(mine, exponent, (k + 1) / (ROUNDS + 1)) - 1e-12


def test_the_exponents_are_negmas_written_the_other_way_round() -> None:
    mine = HOLIDAY[0]
    t = 0.5
    r, top = mine.reservation, mine.best
    for exponent, power in ((BOULWARE, 4), (LINEAR, 1), (CONCEDER, 0.25)):
        assert target(mine, exponent, t) == pytest.approx(r + (top - r) * (1 - t**power))


def test_micro_concedes_only_after_something_new() -> None:
    """Against one repeated offer MiCRO makes one new offer, then repeats its own; against a
    new offer each round it walks down its ranking one outcome at a time."""
    mine, theirs = HOLIDAY
    ranking = list(reversed(mine.ladder_list))
    rational = [n for n in ranking if mine.utility_list[n] >= mine.reservation]
    worst_for_mine = ranking[-1]

    stubborn = play(
        [mine, theirs],
        [STRATEGIES["micro"], scripted(Scripted([worst_for_mine]))],
        rounds=6,
        seed=0,
    )
    micro_offers = [m.outcome for m in stubborn.moves if m.mover == 0]
    assert micro_offers[:2] == rational[:2]  # its first offer, then one step for the first new
    assert set(micro_offers) == set(rational[:2])

    fresh = [n for n in ranking[::-1] if n not in rational[:4]][:4]
    moving = play(
        [mine, theirs], [STRATEGIES["micro"], scripted(Scripted(fresh))], rounds=4, seed=0
    )
    assert [m.outcome for m in moving.moves if m.mover == 0][:4] == rational[:4]


def test_tit_for_tat_opens_with_its_best_and_mirrors_after() -> None:
    mine, theirs = HOLIDAY
    best = mine.ladder_list[-1]
    played = play(
        [mine, theirs],
        [STRATEGIES["tit_for_tat"], scripted(Scripted([mine.ladder_list[0]]))],
        rounds=8,
        seed=0,
    )
    offers = [m.outcome for m in played.moves if m.mover == 0]
    # the other side offers this seat its worst outcome: nothing to mirror, so after the
    # minimal concession forced in rounds 1 and 2 it holds firm at its best
    levels = mine.levels
    next_level = levels[-1] - (levels[-1] - levels[-2]) - 1e-9
    assert played.end == "deadline"
    assert offers[0] == best and offers[3:] == [best] * (len(offers) - 3)
    assert all(o is not None and mine.utility_list[o] >= next_level for o in offers[1:3])


@settings(max_examples=60, deadline=None)
@given(pair=preferences_pairs())
def test_no_strategy_agrees_below_a_reservation(pair: tuple[Preferences, Preferences]) -> None:
    for a, b in itertools.product(STRATEGIES, repeat=2):
        played = play(pair, [STRATEGIES[a], STRATEGIES[b]], rounds=15, seed=1)
        if played.agreement is not None:
            for side in pair:
                assert side.utility_list[played.agreement] >= side.reservation - 1e-12, (a, b)


@settings(max_examples=40, deadline=None)
@given(pair=preferences_pairs(), other=preferences_pairs())
def test_accord_never_reads_the_other_sides_profile(
    pair: tuple[Preferences, Preferences], other: tuple[Preferences, Preferences]
) -> None:
    """Scenario variants that differ only in the other side's profile, against a scripted
    opponent: `accord`'s moves are identical."""
    mine, theirs = pair
    variants = [replace(theirs, reservation=0.0)]  # a hopeless seat would leave before moving
    if other[1].domain == mine.domain:
        variants.append(replace(other[1], reservation=0.0))
    variants.append(replace(theirs, weights=tuple(reversed(theirs.weights)), reservation=0.0))
    script = [n % mine.domain.outcome_count for n in (0, 3, 1, 4, 2, 5)]
    runs = [
        play([mine, profile], [STRATEGIES["accord"], scripted(Scripted(script))], rounds=20, seed=4)
        for profile in variants
    ]
    assert all(run == runs[0] for run in runs)


@settings(max_examples=40, deadline=None)
@given(pair=preferences_pairs())
def test_accord_never_offers_below_its_reservation(pair: tuple[Preferences, Preferences]) -> None:
    """Whatever the other side offers, each of `accord`'s offers is rational for it, the last
    rounds' included (it then offers the best it has received, kept only when rational)."""
    mine, theirs = pair
    if mine.best < mine.reservation:
        return  # a hopeless seat walks away before offering
    script = [n % mine.domain.outcome_count for n in (0, 3, 1, 4, 2, 5)]
    played = play(
        [mine, replace(theirs, reservation=0.0)],
        [STRATEGIES["accord"], scripted(Scripted(script))],
        rounds=20,
        seed=2,
    )
    for move in played.moves:
        if move.mover == 0 and move.kind == "offer":
            assert move.outcome is not None
            assert mine.utility_list[move.outcome] >= mine.reservation - 1e-12


SHARE = Domain((Issue("share", tuple(str(10 * k) for k in range(11))),))
"""One issue, eleven splits: value k is worth k/10 to `accord` and 1 - k/10 to the other side."""


def share_pair(reservation: float) -> tuple[Preferences, Preferences]:
    mine = Preferences(SHARE, (1.0,), (tuple(k / 10 for k in range(11)),), reservation)
    return mine, Preferences(SHARE, (1.0,), (tuple(1 - k / 10 for k in range(11)),))


def accord_moves(reservation: float, script: list[int], *, opens: bool, rounds: int) -> list[Move]:
    """`accord`'s moves against a seat that offers `script` in turn and never accepts."""
    mine, theirs = share_pair(reservation)
    seats = [STRATEGIES["accord"], scripted(Scripted(script))]
    played = play(
        [mine, theirs] if opens else [theirs, mine],
        seats if opens else seats[::-1],
        rounds=rounds,
        seed=3,
    )
    return [move for move in played.moves if move.mover == (0 if opens else 1)]


@pytest.mark.parametrize(
    ("script", "offered_back"),
    [
        ([1] * 10 + [4] + [3] * 40, True),  # it moved from its opening to 4: 4 is offered back
        ([1] * 3 + [4] + [3] * 40, True),  # the opening is the first tenth of the rounds (3 here)
        ([3] * 50, False),  # it never moved from its opening: the schedule's offer instead
        ([6] * 50, True),  # never moved, but 6 reaches the floor the schedule ends on
    ],
)
def test_accord_offers_back_at_the_end_only_a_step_or_what_reaches_its_floor(
    script: list[int], offered_back: bool
) -> None:
    rounds = 30
    moves = accord_moves(0.0, script, opens=False, rounds=rounds)
    best = max(script[: rounds - 1])
    last = next(m for m in moves if m.round == rounds - 2 and m.kind != "end")
    assert (last.outcome == best) is offered_back
    if not offered_back:
        assert last.outcome is not None and last.outcome > best


@pytest.mark.parametrize("opens", [True, False])
@pytest.mark.parametrize(("reservation", "sliver"), [(0.5, True), (0.25, False)])
def test_accord_makes_a_sliver_zones_nash_point_its_last_answerable_offer(
    opens: bool, reservation: float, sliver: bool
) -> None:
    """Nothing rational ever received and, the other side's reservation taken as its own, a
    zone of one outcome (5, worth 0.5 to each): its last offer the other side can answer is
    that outcome, and no earlier one; with a broad zone it keeps to its schedule."""
    rounds = 20
    moves = accord_moves(reservation, [0], opens=opens, rounds=rounds)
    last_answerable = rounds - 1 if opens else rounds - 2
    fair = [m.round for m in moves if m.kind == "offer" and m.outcome == 5]
    assert fair == ([last_answerable] if sliver else [])

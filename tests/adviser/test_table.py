"""F09 on a table's log, without a server: which moves are concessions and whether they are
reciprocal (one row per rule), and for any log: the ledger only grows, an envelope read twice
changes nothing, and the lifecycle follows whose terms are on the table."""

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.adviser.patches import USER, Patch, SetContext, validate
from accord.adviser.skills.registry import BUILTIN
from accord.adviser.skills.table import TableMove, moves, update, written
from accord.adviser.state import NegotiationState
from accord.adviser.versions import next_version, version_one

START = datetime(2026, 12, 3, tzinfo=UTC)
SALARY: dict[str, Any] = {
    "topic_id": "salary",
    "topic": "Salary",
    "priority": "critical",
    "best_target": {"value": "USD 150,000"},
    "minimum_acceptable": {"value": "USD 130,000"},
    "x_accord": {"term": "salary"},
}
FOLLOWER = BUILTIN["F09"].author


def prepared() -> dict[str, Any]:
    state = version_one("case_1", "Offer", START)
    topic = Patch(
        patch_id="t",
        operation="ADD",
        path="/topics_targets_tradeoffs/topics/-",
        proposed_value=SALARY,
    )
    verdicts = validate(SetContext(state, 1, USER), [topic])
    made = next_version(state, verdicts, START, cause="patches_applied", summary="topic")
    assert made is not None
    return made.document


def offer(seq: int, party: str, thousands: int, message: str | None = None) -> TableMove:
    money = {"amount_minor": thousands * 100_000, "currency": "USD"}
    return TableMove(seq, "offer", party, {"salary": written(money)}, message)  # type: ignore[arg-type]


def follow(log: list[TableMove]) -> list[dict[str, Any]]:
    """Each move read into the case in turn; the states after each."""
    state, states = prepared(), []
    for at, move in enumerate(log):
        made = update(
            NegotiationState.model_validate(state), log, at, source_ref=f"rooms:r#{move.seq}",
            link_id="link_1",
        )  # fmt: skip
        verdicts = validate(
            SetContext(state, state["meta"]["state_version"], FOLLOWER), made.patches
        )
        assert not verdicts.refused, verdicts.refused
        version = next_version(
            state, verdicts, START, cause="table_update", summary="table", source_ref="t"
        )
        state = version.document if version is not None else state
        states.append(state)
    return states


def ledger(state: dict[str, Any]) -> list[tuple[str, str, str, Any]]:
    return [
        (c["party"], c["from"], c["to"], c["reciprocal"]) for c in state["concessions"]["ledger"]
    ]


C, U = "counterpart", "user"


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        # a first offer concedes nothing
        ([(C, 120)], []),
        # their move up, before we offered anything: unknown
        ([(C, 120), (C, 125)], [(C, 120, 125, "unknown")]),
        # their move down is no concession to us
        ([(C, 120), (U, 150), (C, 110)], []),
        # we offered and did not move; they move up: not reciprocal
        ([(C, 120), (U, 150), (C, 125)], [(C, 120, 125, False)]),
        # we come down after they moved up: reciprocal
        ([(C, 120), (U, 150), (C, 125), (U, 145)], [(C, 120, 125, False), (U, 150, 145, True)]),
        # we come down twice in a row: the second is not reciprocal
        (
            [(C, 120), (U, 150), (C, 125), (U, 145), (U, 140)],
            [(C, 120, 125, False), (U, 150, 145, True), (U, 145, 140, False)],
        ),
        # our raise is no concession to them
        ([(C, 120), (U, 150), (U, 155)], []),
    ],
)
def test_which_moves_are_concessions_and_which_reciprocal(
    log: list[tuple[str, int]], expected: list[tuple[str, int, int, Any]]
) -> None:
    states = follow([offer(seq, party, k) for seq, (party, k) in enumerate(log, 1)])
    usd = "USD {},000.00".format
    assert ledger(states[-1]) == [(p, usd(a), usd(b), r) for p, a, b, r in expected]


def test_the_log_as_the_case_reads_it() -> None:
    """Offers of either seat, an intro's turns, the arbiter taking terms off the table, the end;
    everything else (joins, approvals, scores) is left out."""
    terms = {"salary": {"amount_minor": 100, "currency": "USD"}, "day": "2027-01-02", "n": 3}
    server, opener, joiner = {"role": "server"}, {"role": "opener"}, {"role": "joiner"}
    log = [
        {"seq": 0, "type": "room.opened", "sender": server, "payload": {}},
        {"seq": 1, "type": "move.offer", "sender": opener,
         "payload": {"terms": {**terms, "ok": True}, "message": "hi"}},
        {"seq": 2, "type": "move.approve", "sender": joiner, "payload": {}},
        {"seq": 3, "type": "arbitration.reject", "sender": {"role": "arbiter"}, "payload": {}},
        {"seq": 4, "type": "turn.propose", "sender": joiner, "payload": {"message": "go"}},
        {"seq": 5, "type": "room.agreed", "sender": server, "payload": {}},
    ]  # fmt: skip
    read = moves(log, "joiner")
    assert [(m.seq, m.kind, m.party) for m in read] == [
        (1, "offer", "counterpart"),
        (3, "withdrawn", None),
        (4, "turn", "user"),
        (5, "ended", None),
    ]
    assert read[0].terms == {"day": "2027-01-02", "n": "3", "ok": "true", "salary": "USD 1.00"}
    assert read[0].message == "hi"


OFFERS = st.lists(
    st.tuples(st.sampled_from(["user", "counterpart"]), st.integers(100, 200)), max_size=12
)


@settings(max_examples=60, deadline=None)
@given(OFFERS)
def test_the_ledger_only_grows_and_a_second_read_changes_nothing(
    drawn: list[tuple[str, int]],
) -> None:
    log = [offer(seq, party, dollars) for seq, (party, dollars) in enumerate(drawn, 1)]
    states = follow(log)
    for before, after in zip([prepared(), *states], states, strict=False):
        kept = before["concessions"]["ledger"]
        assert after["concessions"]["ledger"][: len(kept)] == kept
        history = before["proposals"]["proposal_history"]
        assert after["proposals"]["proposal_history"][: len(history)] == history
    for at, state in enumerate(states):
        again = update(
            NegotiationState.model_validate(state), log, at, source_ref="again", link_id="link_1"
        )
        assert list(again.patches) == [] and again.review is None
        on_table = log[at].party
        stage = "OFFER_RECEIVED" if on_table == "counterpart" else "ENGAGED"
        assert state["meta"]["lifecycle_stage"] == stage
        assert len(state["proposals"]["proposal_history"]) == at + 1

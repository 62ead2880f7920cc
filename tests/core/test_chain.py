"""Hash chains (`accord/core/chain.py`, receipts.md "Envelopes and the chain")."""

import copy
import itertools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.core.chain import ChainError, ChainHead, advance, link, verify_chain
from accord.core.commit import commit
from accord.core.envelope import Draft, Envelope
from accord.core.jsonio import JSON

DRAFTS = [
    Draft("room.opened", {"role": "server"}, {"room_id": "room_1"}),
    Draft("offer.made", {"role": "buyer"}, {"amount_minor": 10000, "currency": "EUR"}),
    Draft("offer.counter", {"role": "merchant"}, {"amount_minor": 12000, "currency": "EUR"}),
    Draft("offer.counter", {"role": "buyer"}, {"amount_minor": 11000, "currency": "EUR"}),
    Draft("offer.approved", {"role": "merchant"}),
]


def build(drafts: list[Draft], *, tag: str = "") -> tuple[list[Envelope], ChainHead]:
    head = ChainHead()
    envelopes = []
    for i, draft in enumerate(drafts):
        envelope = link(head, draft, ts=f"2026-11-30T10:00:{i:02d}Z", message_id=f"{tag}msg_{i}")
        envelopes.append(envelope)
        head = advance(envelope)
    return envelopes, head


def log(drafts: list[Draft] = DRAFTS, *, tag: str = "") -> list[JSON]:
    return [e.to_json() for e in build(drafts, tag=tag)[0]]


def test_empty_log_has_no_head() -> None:
    assert verify_chain([]) is None
    assert ChainHead() == ChainHead(next_seq=0, head=None)


def test_link_numbers_and_links_drafts() -> None:
    envelopes, head = build(DRAFTS)
    assert [e.seq for e in envelopes] == list(range(len(DRAFTS)))
    assert envelopes[0].prev_hash is None
    assert "prev_hash" not in envelopes[0].to_json()
    for before, after in itertools.pairwise(envelopes):
        assert after.prev_hash == commit(before.to_json())
    assert [(e.type, e.sender, e.payload) for e in envelopes] == [
        (d.type, d.sender, d.payload) for d in DRAFTS
    ]
    assert head == ChainHead(len(DRAFTS), commit(envelopes[-1].to_json()))


def test_link_takes_time_and_id_from_the_caller() -> None:
    envelope = link(ChainHead(), DRAFTS[0], ts="2026-11-30T10:00:00Z", message_id="m")
    assert (envelope.ts, envelope.message_id) == ("2026-11-30T10:00:00Z", "m")


def test_advance() -> None:
    envelope = link(ChainHead(7, commit("x")), DRAFTS[1], ts="2026-11-30T10:00:00Z", message_id="m")
    assert envelope.seq == 7
    assert advance(envelope) == ChainHead(8, commit(envelope.to_json()))


@pytest.mark.parametrize("length", [1, 2, len(DRAFTS)])
def test_verify_chain_returns_the_head(length: int) -> None:
    envelopes, head = build(DRAFTS[:length])
    assert verify_chain([e.to_json() for e in envelopes]) == head.head
    assert verify_chain([e.to_json() for e in envelopes]) == commit(envelopes[-1].to_json())


def test_verify_chain_round_trips_through_from_json() -> None:
    value = log()
    assert [Envelope.from_json(e).to_json() for e in value] == value


# Each mutation breaks the chain before its last envelope, so verify_chain itself must refuse.
def _change_payload(value: list[JSON]) -> None:
    value[1]["payload"]["amount_minor"] += 1


def _change_sender(value: list[JSON]) -> None:
    value[2]["sender"] = {"role": "buyer"}


def _change_ts(value: list[JSON]) -> None:
    value[0]["ts"] = "2026-11-30T10:00:01Z"


def _add_member_to_payload(value: list[JSON]) -> None:
    value[3]["payload"]["note"] = "x"


def _drop_middle(value: list[JSON]) -> None:
    del value[2]


def _drop_first(value: list[JSON]) -> None:
    del value[0]


def _insert_copy(value: list[JSON]) -> None:
    value.insert(2, copy.deepcopy(value[1]))


def _insert_renumbered(value: list[JSON]) -> None:
    # an added envelope that links correctly, pushed in before the rest
    extra = {**copy.deepcopy(value[1]), "seq": 2, "prev_hash": commit(value[1])}
    value.insert(2, extra)


def _append_unlinked(value: list[JSON]) -> None:
    value.append({**copy.deepcopy(value[-1]), "seq": len(value)})


def _swap(value: list[JSON]) -> None:
    value[1], value[2] = value[2], value[1]


def _swap_and_renumber(value: list[JSON]) -> None:
    value[1], value[2] = value[2], value[1]
    value[1]["seq"], value[2]["seq"] = 1, 2


def _reverse(value: list[JSON]) -> None:
    value.reverse()


def _seq_gap(value: list[JSON]) -> None:
    for envelope in value[2:]:
        envelope["seq"] += 1


def _seq_from_one(value: list[JSON]) -> None:
    for envelope in value:
        envelope["seq"] += 1


def _seq_as_string(value: list[JSON]) -> None:
    value[1]["seq"] = "1"


def _prev_hash_on_first(value: list[JSON]) -> None:
    value[0]["prev_hash"] = commit({})


def _null_prev_hash_on_first(value: list[JSON]) -> None:
    value[0]["prev_hash"] = None


def _missing_prev_hash(value: list[JSON]) -> None:
    del value[2]["prev_hash"]


def _wrong_prev_hash(value: list[JSON]) -> None:
    value[2]["prev_hash"] = commit(value[0])


def _not_an_object(value: list[JSON]) -> None:
    value[1] = [value[1]]


def _splice_from_other_log(value: list[JSON]) -> None:
    value[2] = log(tag="other_")[2]


MUTATIONS: list[Any] = [
    pytest.param(_change_payload, id="changed_payload"),
    pytest.param(_change_sender, id="changed_sender"),
    pytest.param(_change_ts, id="changed_ts_of_first"),
    pytest.param(_add_member_to_payload, id="added_payload_member"),
    pytest.param(_drop_middle, id="dropped_envelope"),
    pytest.param(_drop_first, id="dropped_first_envelope"),
    pytest.param(_insert_copy, id="added_duplicate_envelope"),
    pytest.param(_insert_renumbered, id="added_linked_envelope_in_the_middle"),
    pytest.param(_append_unlinked, id="added_unlinked_envelope_at_the_end"),
    pytest.param(_swap, id="reordered_envelopes"),
    pytest.param(_swap_and_renumber, id="reordered_and_renumbered"),
    pytest.param(_reverse, id="reversed_log"),
    pytest.param(_seq_gap, id="seq_gap"),
    pytest.param(_seq_from_one, id="seq_starts_at_one"),
    pytest.param(_seq_as_string, id="seq_as_string"),
    pytest.param(_prev_hash_on_first, id="prev_hash_on_envelope_0"),
    pytest.param(_null_prev_hash_on_first, id="null_prev_hash_on_envelope_0"),
    pytest.param(_missing_prev_hash, id="missing_prev_hash"),
    pytest.param(_wrong_prev_hash, id="prev_hash_to_an_older_envelope"),
    pytest.param(_not_an_object, id="envelope_not_an_object"),
    pytest.param(_splice_from_other_log, id="spliced_from_other_log"),
]


@pytest.mark.parametrize("mutate", MUTATIONS)
def test_verify_chain_detects(mutate: Callable[[list[JSON]], None]) -> None:
    value = log()
    mutate(value)
    with pytest.raises(ChainError):
        verify_chain(value)


# Changes at the tail leave a chain that links, but its head (and length) differ: the receipt's
# `chain.head` is what catches them.
@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda v: v[-1]["payload"].update(x=1), id="changed_last_payload"),
        pytest.param(lambda v: v.pop(), id="dropped_last_envelope"),
        pytest.param(
            lambda v: v.append(
                link(
                    ChainHead(len(v), commit(v[-1])),
                    DRAFTS[1],
                    ts="2026-11-30T11:00:00Z",
                    message_id="extra",
                ).to_json()
            ),
            id="appended_linked_envelope",
        ),
    ],
)
def test_tail_changes_move_the_head(mutate: Callable[[list[JSON]], None]) -> None:
    value = log()
    original_head = verify_chain(value)
    mutate(value)
    assert verify_chain(value) != original_head


@pytest.mark.parametrize(
    "position",
    [pytest.param(0, id="first_of_two"), pytest.param(1, id="last_of_two")],
)
def test_verify_chain_refuses_a_bool_seq(position: int) -> None:
    """`True == 1` and `False == 0` in Python; seq must be an integer, not a JSON boolean."""
    envelopes, _ = build(DRAFTS[:2])
    value = [e.to_json() for e in envelopes]
    value[position]["seq"] = bool(position)
    if position == 0:
        value[1]["prev_hash"] = commit(value[0])
    with pytest.raises(ChainError):
        verify_chain(value)


def test_chain_error_names_the_envelope() -> None:
    value = log()
    _change_payload(value)
    with pytest.raises(ChainError, match="envelope 2"):
        verify_chain(value)


payload_values = st.integers(-(2**53) + 1, 2**53 - 1) | st.text(
    alphabet=st.characters(exclude_categories=["Cs"]), max_size=6
)


@given(
    index=st.integers(0, len(DRAFTS) - 2),
    key=st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=6),
    new_value=payload_values,
)
def test_any_payload_change_before_the_last_envelope_is_detected(
    index: int, key: str, new_value: Any
) -> None:
    value = log()
    payload = value[index]["payload"]
    if payload.get(key) == new_value:
        payload[key + "_changed"] = new_value
    else:
        payload[key] = new_value
    with pytest.raises(ChainError, match=f"envelope {index + 1} "):
        verify_chain(value)


@given(
    payloads=st.lists(
        st.dictionaries(st.text(max_size=4), payload_values, max_size=3), min_size=1, max_size=6
    ),
    index=st.integers(0, 5),
    new_value=payload_values,
)
def test_random_chains_verify_and_any_payload_change_changes_the_outcome(
    payloads: list[dict[str, Any]], index: int, new_value: Any
) -> None:
    drafts = [Draft("t", {"role": "buyer"}, p) for p in payloads]
    envelopes, head = build(drafts)
    value = [e.to_json() for e in envelopes]
    assert verify_chain(value) == head.head

    index %= len(value)
    mutated = copy.deepcopy(value)
    mutated[index]["payload"]["_mutated"] = new_value
    if index == len(value) - 1:
        assert verify_chain(mutated) != head.head
    else:
        with pytest.raises(ChainError):
            verify_chain(mutated)

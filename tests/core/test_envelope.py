"""The envelope (`accord/core/envelope.py`): wire form, round trip, strict reading."""

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.core.commit import Hash, commit
from accord.core.envelope import Draft, Envelope
from accord.core.jsonio import JSONError, canonical, parse_canonical

PREV = Hash(commit({"previous": "envelope"}))

FIRST = Envelope(
    seq=0,
    ts="2026-11-30T10:00:00Z",
    type="room.opened",
    sender={"role": "server"},
    payload={"room_id": "room_1", "subject": "bike"},
    message_id="msg_0",
)
LATER = Envelope(
    seq=3,
    ts="2026-11-30T10:05:00Z",
    type="offer.counter",
    sender={"role": "merchant"},
    payload={"amount_minor": 12345, "currency": "EUR", "items": [{"sku": "a", "qty": 2}]},
    message_id="msg_3",
    prev_hash=PREV,
)


def test_draft_defaults_to_an_empty_payload() -> None:
    assert Draft("t", {"role": "buyer"}).payload == {}


def test_to_json_of_envelope_zero_has_no_prev_hash_member() -> None:
    assert FIRST.to_json() == {
        "seq": 0,
        "ts": "2026-11-30T10:00:00Z",
        "type": "room.opened",
        "sender": {"role": "server"},
        "payload": {"room_id": "room_1", "subject": "bike"},
        "message_id": "msg_0",
    }


def test_to_json_carries_prev_hash() -> None:
    assert LATER.to_json()["prev_hash"] == PREV


def test_to_json_is_canonicalizable_and_reads_back() -> None:
    data = canonical(LATER.to_json())
    assert Envelope.from_json(parse_canonical(data)) == LATER


@pytest.mark.parametrize(
    "envelope", [pytest.param(FIRST, id="first"), pytest.param(LATER, id="later")]
)
def test_round_trip(envelope: Envelope) -> None:
    assert Envelope.from_json(envelope.to_json()) == envelope
    assert Envelope.from_json(envelope.to_json()).to_json() == envelope.to_json()


texts = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=10)
envelopes = st.builds(
    Envelope,
    seq=st.integers(min_value=0, max_value=2**53 - 1),
    ts=texts,
    type=texts,
    sender=st.dictionaries(texts, texts, max_size=3),
    payload=st.dictionaries(texts, st.integers(-1000, 1000) | texts | st.none(), max_size=4),
    message_id=texts,
    prev_hash=st.none() | st.binary(min_size=1, max_size=8).map(lambda b: commit(b.hex())),
)


@given(envelopes)
def test_round_trip_property(envelope: Envelope) -> None:
    assert Envelope.from_json(envelope.to_json()) == envelope


def _without(member: str) -> dict[str, Any]:
    out = LATER.to_json()
    del out[member]
    return out


def _with(member: str, value: Any) -> dict[str, Any]:
    return {**LATER.to_json(), member: value}


@pytest.mark.parametrize(
    "value",
    [
        pytest.param([LATER.to_json()], id="not_an_object_list"),
        pytest.param("envelope", id="not_an_object_string"),
        pytest.param(None, id="not_an_object_null"),
        pytest.param(_without("seq"), id="missing_seq"),
        pytest.param(_without("ts"), id="missing_ts"),
        pytest.param(_without("type"), id="missing_type"),
        pytest.param(_without("sender"), id="missing_sender"),
        pytest.param(_without("payload"), id="missing_payload"),
        pytest.param(_without("message_id"), id="missing_message_id"),
        pytest.param(_with("extra", 1), id="unknown_member"),
        pytest.param(_with("prevHash", PREV), id="unknown_member_misspelt"),
        pytest.param(_with("seq", -1), id="seq_negative"),
        pytest.param(_with("seq", "3"), id="seq_string"),
        pytest.param(_with("seq", 3.0), id="seq_float"),
        pytest.param(_with("seq", True), id="seq_bool"),
        pytest.param(_with("seq", None), id="seq_null"),
        pytest.param(_with("ts", 1700000000), id="ts_number"),
        pytest.param(_with("type", None), id="type_null"),
        pytest.param(_with("message_id", 7), id="message_id_number"),
        pytest.param(_with("sender", "merchant"), id="sender_string"),
        pytest.param(_with("sender", [["role", "merchant"]]), id="sender_list"),
        pytest.param(_with("payload", None), id="payload_null"),
        pytest.param(_with("payload", [1, 2]), id="payload_list"),
        pytest.param(_with("prev_hash", 5), id="prev_hash_number"),
        pytest.param(_with("prev_hash", {"h": PREV}), id="prev_hash_object"),
        # A null or empty prev_hash is not "absent": reading it as None would drop the member
        # from to_json() and change the envelope's commitment (receipts.md: envelope 0 has no
        # prev_hash member; every later one has "sha256:…").
        pytest.param(_with("prev_hash", None), id="prev_hash_null"),
        pytest.param(_with("prev_hash", ""), id="prev_hash_empty"),
    ],
)
def test_from_json_refuses(value: Any) -> None:
    with pytest.raises(JSONError) as info:
        Envelope.from_json(value)
    assert info.value.reason


@pytest.mark.parametrize(
    ("member", "value"),
    [
        pytest.param("seq", 0, id="seq_zero"),
        pytest.param("sender", {}, id="empty_sender"),
        pytest.param("payload", {}, id="empty_payload"),
        pytest.param("payload", {"nested": {"deep": [1, {"x": None}]}}, id="nested_payload"),
    ],
)
def test_from_json_accepts(member: str, value: Any) -> None:
    envelope = Envelope.from_json(_with(member, value))
    assert getattr(envelope, member) == value


def test_envelope_is_frozen() -> None:
    with pytest.raises(AttributeError):
        LATER.seq = 4  # type: ignore[misc]  # proving the dataclass is frozen

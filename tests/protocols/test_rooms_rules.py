"""The rooms rules (spec/rooms-and-turns.md, spec/rooms-api.md, DESIGN.md "Rooms"): one row per
rule and per refusal, refusals in the check order of rooms-api.md."""

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from accord.core.commit import commit, is_opening
from accord.core.protocol import Notice
from accord.core.refusals import Refusal, RefusalCode
from accord.protocols.rooms.decide import allowed_moves
from accord.protocols.rooms.moves import MoveRequest, shape_problems
from accord.protocols.rooms.state import Actor, Seat, Status, expires_at
from accord.protocols.rooms.views import RoomView, view_json
from tests.protocols.conftest import (
    BASE_URL,
    JOINER_AGENT,
    JOINER_NONCE,
    JOINER_OWNER,
    OPENER_AGENT,
    OPENER_NONCE,
    OPENER_OWNER,
    SCHEMA,
    Room,
    at,
    eur,
    fresh,
    live,
    terms,
)

Setup = Callable[[Room], Any]
C = RefusalCode
OPENER, JOINER = Seat.OPENER, Seat.JOINER
UNKNOWN_HASH = "sha256:" + "0" * 64


def table(r: Room) -> str:
    return r.table_hash


def stale_seq(r: Room) -> int:
    return r.seq - 1


def owner_of(seat: Seat) -> Actor:
    return Actor(seat, is_owner=True)


def last_notices(r: Room) -> list[Notice]:
    assert r.last is not None
    return list(r.last.notices)


# -- setups: each leaves the room in one situation ------------------------------------------


def draft(r: Room) -> None:
    r.open(subject=terms())


def draft_empty(r: Room) -> None:
    r.open()


def joined(r: Room) -> None:
    live(r)


def empty_table(r: Room) -> None:
    fresh(r)


def agreed(r: Room) -> None:
    live(r)
    r.move(JOINER_OWNER, "approve", subject_hash=r.table_hash)
    r.move(OPENER_OWNER, "approve", subject_hash=r.table_hash)


def closed(r: Room) -> None:
    live(r)
    r.move(JOINER_OWNER, "reject")


def expired(r: Room) -> None:
    live(r)
    r.advance_time(days=7)
    r.expire()


def pending_approve(r: Room) -> None:
    """The joiner's agent asked to approve; its owner has not decided."""
    live(r)
    r.move(JOINER_AGENT, "approve", subject_hash=r.table_hash)


def pending_cancel_out_of_turn(r: Room) -> None:
    """The joiner's agent asked to cancel while it is the opener's turn."""
    live(r)
    r.move(JOINER_OWNER, "counter", terms=terms(9_000))
    r.move(JOINER_AGENT, "cancel")


def pending_then_closed(r: Room) -> None:
    pending_approve(r)
    r.move(OPENER_OWNER, "cancel")


def joiner_approved_then_asked(r: Room) -> None:
    """The joiner approved the table, the opener asked for detail: the joiner's turn again."""
    live(r)
    r.move(JOINER_OWNER, "approve", subject_hash=r.table_hash)
    r.move(OPENER_OWNER, "need_more_detail", message="Which colour?")


def high_offer(r: Room) -> None:
    """The opener's offer lies above the joiner's maximum."""
    r.open(subject=terms(13_000), limits={"price": {"min": eur(8_765)}})
    r.join(limits={"price": {"max": eur(12_345)}})


# -- moves: every refusal, in the check order ----------------------------------------------

MOVE_REFUSALS = [
    # room_final
    pytest.param(agreed, JOINER_OWNER, "counter", {"terms": terms(9_000)}, C.ROOM_FINAL,
                 id="room_final_agreed"),
    pytest.param(closed, OPENER_OWNER, "cancel", {}, C.ROOM_FINAL, id="room_final_closed_cancel"),
    pytest.param(expired, JOINER_AGENT, "counter", {"terms": terms(9_000)}, C.ROOM_FINAL,
                 id="room_final_expired"),
    # confirmation_pending
    pytest.param(pending_approve, JOINER_AGENT, "counter", {"terms": terms(9_000)},
                 C.CONFIRMATION_PENDING, id="confirmation_pending_counter"),
    pytest.param(pending_approve, JOINER_AGENT, "cancel", {}, C.CONFIRMATION_PENDING,
                 id="confirmation_pending_cancel"),
    # not_your_turn (cancel is exempt, below)
    pytest.param(joined, OPENER_OWNER, "counter", {"terms": terms(9_000)}, C.NOT_YOUR_TURN,
                 id="not_your_turn_counter"),
    pytest.param(joined, OPENER_OWNER, "reject", {}, C.NOT_YOUR_TURN,
                 id="not_your_turn_reject"),
    pytest.param(empty_table, JOINER_OWNER, "offer", {"terms": terms()}, C.NOT_YOUR_TURN,
                 id="not_your_turn_joiner_offers_first"),
    pytest.param(draft_empty, OPENER_OWNER, "offer", {"terms": terms()}, C.NOT_YOUR_TURN,
                 id="not_your_turn_draft_offer"),
    pytest.param(draft, OPENER_OWNER, "counter", {"terms": terms(9_000)}, C.NOT_YOUR_TURN,
                 id="not_your_turn_draft_counter"),
    # raced
    pytest.param(joined, JOINER_OWNER, "counter",
                 {"terms": terms(9_000), "expected_seq": stale_seq},
                 C.RACED, id="raced_stale_seq"),
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(9_000), "expected_seq": 99},
                 C.RACED, id="raced_future_seq"),
    pytest.param(joined, OPENER_OWNER, "cancel", {"expected_seq": stale_seq}, C.RACED,
                 id="raced_cancel_out_of_turn"),
    # move_not_allowed
    pytest.param(joined, JOINER_OWNER, "offer", {"terms": terms(9_000)}, C.MOVE_NOT_ALLOWED,
                 id="move_not_allowed_offer_with_table"),
    pytest.param(empty_table, OPENER_OWNER, "counter", {"terms": terms()}, C.MOVE_NOT_ALLOWED,
                 id="move_not_allowed_counter_without_table"),
    pytest.param(empty_table, OPENER_OWNER, "approve", {"subject_hash": UNKNOWN_HASH},
                 C.MOVE_NOT_ALLOWED, id="move_not_allowed_approve_without_table"),
    pytest.param(empty_table, OPENER_OWNER, "need_more_detail", {"message": "?"},
                 C.MOVE_NOT_ALLOWED, id="move_not_allowed_detail_without_table"),
    pytest.param(empty_table, OPENER_OWNER, "reject", {}, C.MOVE_NOT_ALLOWED,
                 id="move_not_allowed_reject_without_table"),
    pytest.param(joiner_approved_then_asked, JOINER_OWNER, "approve", {"subject_hash": table},
                 C.MOVE_NOT_ALLOWED, id="move_not_allowed_approve_twice_same_table"),
    # invalid_deadline
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(9_000), "deadline": at(hours=-1)},
                 C.INVALID_DEADLINE, id="invalid_deadline_past"),
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(9_000), "deadline": at()},
                 C.INVALID_DEADLINE, id="invalid_deadline_now"),
    pytest.param(joined, JOINER_OWNER, "counter",
                 {"terms": terms(9_000), "deadline": at(days=90, seconds=1)},
                 C.INVALID_DEADLINE, id="invalid_deadline_beyond_90_days"),
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(9_000), "deadline": "tomorrow"},
                 C.INVALID_DEADLINE, id="invalid_deadline_not_rfc3339"),
    pytest.param(joined, JOINER_OWNER, "counter",
                 {"terms": terms(9_000), "deadline": "2026-12-24T17:00:00"},
                 C.INVALID_DEADLINE, id="invalid_deadline_without_offset"),
    pytest.param(joined, JOINER_OWNER, "need_more_detail",
                 {"message": "?", "deadline": "2026-12-24"},
                 C.INVALID_DEADLINE, id="invalid_deadline_date_only_on_detail"),
    # invalid_terms (every field type in its own table below)
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(colour="red")},
                 C.INVALID_TERMS, id="invalid_terms_unknown_field"),
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": {"price": eur(9_000)}},
                 C.INVALID_TERMS, id="invalid_terms_missing_required"),
    pytest.param(empty_table, OPENER_OWNER, "offer", {"terms": {"quantity": 1}},
                 C.INVALID_TERMS, id="invalid_terms_offer"),
    # outside_own_limits
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(12_346)},
                 C.OUTSIDE_OWN_LIMITS, id="outside_own_limits_above_max"),
    # no_change
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms()}, C.NO_CHANGE,
                 id="no_change_same_terms"),
    pytest.param(joined, JOINER_OWNER, "counter",
                 {"terms": {"quantity": 10, "note": None, "price": eur(10_000)}},
                 C.NO_CHANGE, id="no_change_same_terms_once_normalised"),
    # stale_terms
    pytest.param(joined, JOINER_OWNER, "approve", {"subject_hash": UNKNOWN_HASH}, C.STALE_TERMS,
                 id="stale_terms_unknown_hash"),
    pytest.param(joined, JOINER_AGENT, "approve", {"subject_hash": UNKNOWN_HASH}, C.STALE_TERMS,
                 id="stale_terms_asked_by_agent"),
    # two apply: the first in the check order wins
    pytest.param(agreed, OPENER_AGENT, "counter", {"terms": terms(9_000)}, C.ROOM_FINAL,
                 id="first_room_final_over_not_your_turn"),
    pytest.param(pending_then_closed, JOINER_AGENT, "counter", {"terms": terms(9_000)},
                 C.ROOM_FINAL, id="first_room_final_over_confirmation_pending"),
    pytest.param(pending_cancel_out_of_turn, JOINER_AGENT, "counter", {"terms": terms(9_500)},
                 C.CONFIRMATION_PENDING, id="first_confirmation_pending_over_not_your_turn"),
    pytest.param(joined, OPENER_OWNER, "counter",
                 {"terms": terms(9_000), "expected_seq": stale_seq},
                 C.NOT_YOUR_TURN, id="first_not_your_turn_over_raced"),
    pytest.param(joined, OPENER_OWNER, "offer", {"terms": terms(9_000)}, C.NOT_YOUR_TURN,
                 id="first_not_your_turn_over_move_not_allowed"),
    pytest.param(joined, JOINER_OWNER, "offer", {"terms": terms(9_000), "expected_seq": stale_seq},
                 C.RACED, id="first_raced_over_move_not_allowed"),
    pytest.param(joined, JOINER_OWNER, "approve",
                 {"subject_hash": UNKNOWN_HASH, "expected_seq": stale_seq},
                 C.RACED, id="first_raced_over_stale_terms"),
    pytest.param(joined, JOINER_OWNER, "offer", {"terms": terms(9_000), "deadline": at(hours=-1)},
                 C.MOVE_NOT_ALLOWED, id="first_move_not_allowed_over_invalid_deadline"),
    pytest.param(joined, JOINER_OWNER, "counter",
                 {"terms": {"price": eur(9_000)}, "deadline": "soon"},
                 C.INVALID_DEADLINE, id="first_invalid_deadline_over_invalid_terms"),
    pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(99_999, colour="red")},
                 C.INVALID_TERMS, id="first_invalid_terms_over_outside_own_limits"),
    pytest.param(high_offer, JOINER_OWNER, "counter", {"terms": terms(13_000)},
                 C.OUTSIDE_OWN_LIMITS, id="first_outside_own_limits_over_no_change"),
]  # fmt: skip


def _resolve(r: Room, request: dict[str, Any]) -> dict[str, Any]:
    return {k: v(r) if callable(v) else v for k, v in request.items()}


@pytest.mark.parametrize(("setup", "actor", "kind", "request_", "code"), MOVE_REFUSALS)
def test_move_refusal(
    room: Room, setup: Setup, actor: Actor, kind: str, request_: dict[str, Any], code: C
) -> None:
    setup(room)
    before = (room.state, len(room.envelopes), len(room.private), len(room.notices))
    result = room.try_move(actor, kind, **_resolve(room, request_))
    assert isinstance(result, Refusal)
    assert result.code == code
    assert (room.state, len(room.envelopes), len(room.private), len(room.notices)) == before


@pytest.mark.parametrize(
    ("setup", "actor", "kind", "request_"),
    [
        pytest.param(joined, OPENER_OWNER, "cancel", {}, id="cancel_out_of_turn"),
        pytest.param(draft, OPENER_OWNER, "cancel", {"message": "Changed my mind"},
                     id="cancel_in_draft"),
        pytest.param(joined, OPENER_OWNER, "cancel", {"expected_seq": lambda r: r.seq},
                     id="cancel_out_of_turn_with_current_seq"),
        pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(9_000), "expected_seq": 2},
                     id="expected_seq_is_the_last_envelope"),
        pytest.param(joined, JOINER_OWNER, "counter",
                     {"terms": terms(9_000), "deadline": at(days=90)},
                     id="deadline_exactly_90_days_ahead"),
        pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(12_345)},
                     id="counter_on_own_limit"),
        pytest.param(joined, JOINER_OWNER, "counter", {"terms": terms(quantity=11)},
                     id="counter_changing_one_field"),
    ],
)  # fmt: skip
def test_move_accepted(
    room: Room, setup: Setup, actor: Actor, kind: str, request_: dict[str, Any]
) -> None:
    setup(room)
    room.move(actor, kind, **_resolve(room, request_))
    assert room.types[-1] == f"move.{kind}"


INVALID_FIELDS = [
    pytest.param({"note": "x" * 2001}, "note", id="string_too_long"),
    pytest.param({"note": 5}, "note", id="string_not_a_string"),
    pytest.param({"quantity": 2**53}, "quantity", id="int_above_range"),
    pytest.param({"quantity": -(2**53)}, "quantity", id="int_below_range"),
    pytest.param({"quantity": 10.0}, "quantity", id="int_as_float"),
    pytest.param({"quantity": True}, "quantity", id="int_as_bool"),
    pytest.param({"quantity": "10"}, "quantity", id="int_as_string"),
    pytest.param({"express": "yes"}, "express", id="bool_as_string"),
    pytest.param({"express": 1}, "express", id="bool_as_int"),
    pytest.param({"size": "xl"}, "size", id="enum_not_a_value"),
    pytest.param({"size": "S"}, "size", id="enum_wrong_case"),
    pytest.param({"delivery": "2026-02-30"}, "delivery", id="date_not_a_day"),
    pytest.param({"delivery": "01/12/2026"}, "delivery", id="date_not_iso"),
    pytest.param({"delivery": "2026-W49-1"}, "delivery", id="date_iso_week"),
    pytest.param({"delivery": "2026-12-01T00:00:00Z"}, "delivery", id="date_with_time"),
    pytest.param({"slot": {"start": "2026-12-01T10:00:00Z", "end": "2026-12-01T10:00:00Z"}},
                 "slot", id="timerange_start_equals_end"),
    pytest.param({"slot": {"start": "2026-12-01T11:00:00Z", "end": "2026-12-01T10:00:00Z"}},
                 "slot", id="timerange_start_after_end"),
    pytest.param({"slot": {"start": "2026-12-01T11:00:00+01:00", "end": "2026-12-01T10:00:00Z"}},
                 "slot", id="timerange_start_equals_end_across_offsets"),
    pytest.param({"slot": {"start": "2026-12-01T10:00:00.5Z", "end": "2026-12-01T11:00:00Z"}},
                 "slot", id="timerange_sub_second"),
    pytest.param({"slot": {"start": "2026-12-01T10:00:00.0000001Z",
                           "end": "2026-12-01T11:00:00Z"}},
                 "slot", id="timerange_sub_second_beyond_microseconds"),
    pytest.param({"slot": {"start": "2026-12-01T10:00:00", "end": "2026-12-01T11:00:00"}},
                 "slot", id="timerange_without_offset"),
    pytest.param({"slot": {"start": "2026-12-01T10:00:00Z"}}, "slot", id="timerange_no_end"),
    pytest.param({"slot": {"start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z",
                           "tz": "UTC"}}, "slot", id="timerange_extra_member"),
    pytest.param({"price": {"amount_minor": 9_000, "currency": "USD"}}, "price",
                 id="money_other_currency"),
    pytest.param({"price": {"amount_minor": -1, "currency": "EUR"}}, "price",
                 id="money_negative"),
    pytest.param({"price": {"amount_minor": 90.5, "currency": "EUR"}}, "price",
                 id="money_fractional"),
    pytest.param({"price": {"amount_minor": 9_000}}, "price", id="money_without_currency"),
    pytest.param({"price": 9_000}, "price", id="money_bare_number"),
    pytest.param({"price": {"amount_minor": 2**53, "currency": "EUR"}}, "price",
                 id="money_above_range"),
]  # fmt: skip


@pytest.mark.parametrize(("patch", "field"), INVALID_FIELDS)
def test_invalid_terms_name_the_field(room: Room, patch: dict[str, Any], field: str) -> None:
    live(room)
    result = room.try_move(JOINER_OWNER, "counter", terms=terms(9_000) | patch)
    assert isinstance(result, Refusal)
    assert result.code == C.INVALID_TERMS
    assert list(result.details["fields"]) == [f"terms.{field}"]


def test_outside_own_limits_names_fields_not_limits(room: Room) -> None:
    live(room)
    result = room.try_move(JOINER_OWNER, "counter", terms=terms(20_000))
    assert isinstance(result, Refusal)
    assert result.code == C.OUTSIDE_OWN_LIMITS
    assert result.details == {"fields": ["price"]}
    assert "12345" not in json.dumps(result.details) + result.message


@pytest.mark.parametrize(
    ("setup", "seat", "allowed"),
    [
        pytest.param(draft, OPENER, ["cancel"], id="draft"),
        pytest.param(empty_table, OPENER, ["offer", "cancel"], id="turn_without_table"),
        pytest.param(empty_table, JOINER, ["cancel"], id="not_your_turn"),
        pytest.param(joined, JOINER,
                     ["counter", "need_more_detail", "approve", "reject", "cancel"],
                     id="turn_with_table"),
        pytest.param(joiner_approved_then_asked, JOINER,
                     ["counter", "need_more_detail", "reject", "cancel"],
                     id="turn_after_own_approval"),
        pytest.param(agreed, OPENER, [], id="final"),
    ],
)  # fmt: skip
def test_allowed_moves(room: Room, setup: Setup, seat: Seat, allowed: list[str]) -> None:
    setup(room)
    assert allowed_moves(room.current, seat) == allowed


def test_move_not_allowed_says_what_is(room: Room) -> None:
    fresh(room)
    result = room.try_move(OPENER_OWNER, "counter", terms=terms())
    assert isinstance(result, Refusal)
    assert result.code == C.MOVE_NOT_ALLOWED
    assert result.details["allowed"] == ["offer", "cancel"]


# -- shape: members that do not belong to the move (invalid_request at the edge) -------------

H = UNKNOWN_HASH


@pytest.mark.parametrize(
    ("request_", "fields"),
    [
        pytest.param({"type": "approve", "subject_hash": H, "terms": terms()},
                     {"terms"}, id="terms_on_approve"),
        pytest.param({"type": "need_more_detail", "message": "?", "terms": terms()},
                     {"terms"}, id="terms_on_detail"),
        pytest.param({"type": "reject", "terms": terms()}, {"terms"}, id="terms_on_reject"),
        pytest.param({"type": "counter"}, {"terms"}, id="no_terms_on_counter"),
        pytest.param({"type": "offer"}, {"terms"}, id="no_terms_on_offer"),
        pytest.param({"type": "counter", "terms": terms(), "subject_hash": H},
                     {"subject_hash"}, id="subject_hash_on_counter"),
        pytest.param({"type": "cancel", "subject_hash": H}, {"subject_hash"},
                     id="subject_hash_on_cancel"),
        pytest.param({"type": "approve"}, {"subject_hash"}, id="approve_without_subject_hash"),
        pytest.param({"type": "approve", "subject_hash": H, "deadline": at(days=1)},
                     {"deadline"}, id="deadline_on_approve"),
        pytest.param({"type": "reject", "deadline": at(days=1)}, {"deadline"},
                     id="deadline_on_reject"),
        pytest.param({"type": "cancel", "deadline": at(days=1)}, {"deadline"},
                     id="deadline_on_cancel"),
        pytest.param({"type": "need_more_detail"}, {"message"},
                     id="need_more_detail_without_message"),
        pytest.param({"type": "need_more_detail", "message": ""}, {"message"},
                     id="need_more_detail_with_empty_message"),
        pytest.param({"type": "approve", "subject_hash": H, "message": "ok"}, {"message"},
                     id="message_on_approve"),
        pytest.param({"type": "approve", "terms": terms(), "message": "ok"},
                     {"terms", "subject_hash", "message"}, id="several_at_once"),
        pytest.param({"type": "offer", "terms": terms(), "message": "hi", "deadline": at(days=1)},
                     set(), id="offer_complete"),
        pytest.param({"type": "counter", "terms": terms()}, set(), id="counter_bare"),
        pytest.param({"type": "need_more_detail", "message": "?", "deadline": at(days=1)},
                     set(), id="need_more_detail_complete"),
        pytest.param({"type": "approve", "subject_hash": H}, set(), id="approve_complete"),
        pytest.param({"type": "reject", "message": "no"}, set(), id="reject_with_message"),
        pytest.param({"type": "cancel"}, set(), id="cancel_bare"),
    ],
)  # fmt: skip
def test_shape_problems(request_: dict[str, Any], fields: set[str]) -> None:
    assert set(shape_problems(MoveRequest(**request_))) == fields


# -- open ---------------------------------------------------------------------------------


def _many_fields(n: int) -> dict[str, Any]:
    return {f"f{i}": {"type": "int"} for i in range(n)}


@pytest.mark.parametrize(
    ("request_", "code", "field"),
    [
        pytest.param({"subject_schema": {}}, C.INVALID_REQUEST, "subject_schema",
                     id="schema_empty"),
        pytest.param({"subject_schema": {"Price": {"type": "int"}}}, C.INVALID_REQUEST,
                     "subject_schema.Price", id="schema_name_uppercase"),
        pytest.param({"subject_schema": {"unit-price": {"type": "int"}}}, C.INVALID_REQUEST,
                     "subject_schema.unit-price", id="schema_name_dash"),
        pytest.param({"subject_schema": {"x" * 65: {"type": "int"}}}, C.INVALID_REQUEST,
                     "subject_schema." + "x" * 65, id="schema_name_too_long"),
        pytest.param({"subject_schema": {"": {"type": "int"}}}, C.INVALID_REQUEST,
                     "subject_schema.", id="schema_name_empty"),
        pytest.param({"subject_schema": _many_fields(33)}, C.INVALID_REQUEST, "subject_schema",
                     id="schema_33_fields"),
        pytest.param({"subject_schema": {"a": {"type": "float"}}}, C.INVALID_REQUEST,
                     "subject_schema.a", id="schema_unknown_type"),
        pytest.param({"subject_schema": {"a": "int"}}, C.INVALID_REQUEST, "subject_schema.a",
                     id="schema_field_not_object"),
        pytest.param({"subject_schema": {"a": {"type": "enum"}}}, C.INVALID_REQUEST,
                     "subject_schema.a", id="schema_enum_without_values"),
        pytest.param({"subject_schema": {"a": {"type": "enum", "values": []}}},
                     C.INVALID_REQUEST, "subject_schema.a", id="schema_enum_empty_values"),
        pytest.param({"subject_schema": {"a": {"type": "enum", "values": ["x", "x"]}}},
                     C.INVALID_REQUEST, "subject_schema.a", id="schema_enum_repeated_values"),
        pytest.param({"subject_schema": {"a": {"type": "money"}}}, C.INVALID_REQUEST,
                     "subject_schema.a", id="schema_money_without_currency"),
        pytest.param({"subject_schema": {"a": {"type": "money", "currency": "eur"}}},
                     C.INVALID_REQUEST, "subject_schema.a", id="schema_money_lowercase_currency"),
        pytest.param({"subject_schema": {"a": {"type": "money", "currency": "EURO"}}},
                     C.INVALID_REQUEST, "subject_schema.a", id="schema_money_unknown_currency"),
        pytest.param({"subject_schema": {"a": {"type": "money", "currency": "XAU"}}},
                     C.INVALID_REQUEST, "subject_schema.a", id="schema_money_no_minor_unit"),
        pytest.param({"subject_schema": {"a": {"type": "int", "values": ["1"]}}},
                     C.INVALID_REQUEST, "subject_schema.a", id="schema_values_on_non_enum"),
        pytest.param({"subject_schema": {"a": {"type": "int", "currency": "EUR"}}},
                     C.INVALID_REQUEST, "subject_schema.a", id="schema_currency_on_non_money"),
        pytest.param({"subject_schema": {"a": {"type": "int", "min": 0}}}, C.INVALID_REQUEST,
                     "subject_schema.a", id="schema_unknown_member"),
        pytest.param({"subject_schema": {"a": {"type": "int", "optional": "yes"}}},
                     C.INVALID_REQUEST, "subject_schema.a", id="schema_optional_not_bool"),
        pytest.param({"limits": {"colour": {"equals": True}}}, C.INVALID_REQUEST,
                     "limits.colour", id="limits_unknown_field"),
        pytest.param({"limits": {"note": {"min": "a"}}}, C.INVALID_REQUEST, "limits.note",
                     id="limits_on_string"),
        pytest.param({"limits": {"quantity": {"min": 5, "max": 4}}}, C.INVALID_REQUEST,
                     "limits.quantity", id="limits_min_above_max"),
        pytest.param({"limits": {"quantity": {}}}, C.INVALID_REQUEST, "limits.quantity",
                     id="limits_range_without_bounds"),
        pytest.param({"limits": {"quantity": {"above": 4}}}, C.INVALID_REQUEST,
                     "limits.quantity", id="limits_range_unknown_bound"),
        pytest.param({"limits": {"price": {"max": {"amount_minor": 5, "currency": "USD"}}}},
                     C.INVALID_REQUEST, "limits.price", id="limits_money_other_currency"),
        pytest.param({"limits": {"size": {"one_of": ["xl"]}}}, C.INVALID_REQUEST,
                     "limits.size", id="limits_enum_unknown_value"),
        pytest.param({"limits": {"size": {"one_of": []}}}, C.INVALID_REQUEST, "limits.size",
                     id="limits_enum_empty"),
        pytest.param({"limits": {"express": {"equals": "yes"}}}, C.INVALID_REQUEST,
                     "limits.express", id="limits_bool_not_bool"),
        pytest.param({"limits": {"slot": {"min": "2026-12-01T10:00:00.5Z"}}}, C.INVALID_REQUEST,
                     "limits.slot", id="limits_timerange_sub_second"),
        pytest.param({"limits": {"price": 5}}, C.INVALID_REQUEST, "limits.price",
                     id="limits_not_object"),
        pytest.param({"deadline": at(hours=-1)}, C.INVALID_DEADLINE, "deadline",
                     id="deadline_past"),
        pytest.param({"deadline": at(days=91)}, C.INVALID_DEADLINE, "deadline",
                     id="deadline_beyond_90_days"),
        pytest.param({"subject": {"price": eur(10_000)}}, C.INVALID_TERMS, "terms.quantity",
                     id="offer_invalid_terms"),
        pytest.param({"subject": terms(5_000), "limits": {"price": {"min": eur(8_765)}}},
                     C.OUTSIDE_OWN_LIMITS, "price", id="offer_outside_own_limits"),
        pytest.param({"subject_schema": {"A": {"type": "int"}}, "limits": {"b": {}},
                      "deadline": "soon"}, C.INVALID_REQUEST, "subject_schema.A",
                     id="first_schema_over_limits_and_deadline"),
        pytest.param({"limits": {"b": {}}, "deadline": "soon"}, C.INVALID_REQUEST, "limits.b",
                     id="first_limits_over_deadline"),
        pytest.param({"deadline": "soon", "subject": {}}, C.INVALID_DEADLINE, "deadline",
                     id="first_deadline_over_terms"),
        pytest.param({"subject": {"price": eur(1)}, "limits": {"price": {"min": eur(8_765)}}},
                     C.INVALID_TERMS, "terms.quantity", id="first_terms_over_own_limits"),
    ],
)  # fmt: skip
def test_open_refusal(room: Room, request_: dict[str, Any], code: C, field: str) -> None:
    result = room.try_open(**request_)
    assert isinstance(result, Refusal)
    assert result.code == code
    assert field in result.details["fields"]
    assert room.state is None and room.envelopes == []


def test_opening_offer_is_an_agent_offer_right_after_opened(room: Room) -> None:
    room.open(subject=terms(note="Blue"), message="Hello", limits={"quantity": {"min": 1}})
    assert room.types == ["room.opened", "move.offer"]
    offer = room.envelopes[1]
    assert dict(offer.sender) == {"role": "opener", "via": "agent"}
    assert offer.payload == {
        "terms": terms(note="Blue"),
        "subject_hash": commit(terms(note="Blue")),
        "message": "Hello",
    }
    state = room.current
    assert (state.status, state.turn, state.moves_total) == (Status.DRAFT, None, 1)
    assert state.table is not None and state.table.proposed_by is OPENER
    room.join()
    assert room.types == ["room.opened", "move.offer", "room.joined"]
    assert room.view(JOINER).moves[0]["type"] == "offer"


def test_open_without_offer_leaves_the_table_empty(room: Room) -> None:
    room.open(title="Bike")
    assert room.types == ["room.opened"]
    opened = room.envelopes[0].payload
    assert (opened["room_id"], opened["name"], opened["title"]) == (
        "room_test",
        "🦊 Amber Fox",
        "Bike",
    )
    assert opened["subject_schema"] == SCHEMA
    assert room.current.table is None and room.current.moves_total == 0


@pytest.mark.parametrize(
    ("limits", "committed"),
    [
        pytest.param(None, {}, id="no_limits"),
        pytest.param({}, {}, id="empty_limits"),
        pytest.param({"size": {"one_of": ["m", "s"]}, "quantity": {"max": 4}},
                     {"size": {"one_of": ["m", "s"]}, "quantity": {"max": 4}}, id="limits"),
        pytest.param({"slot": {"min": "2026-12-01T11:00:00+01:00"}},
                     {"slot": {"min": "2026-12-01T10:00:00Z"}}, id="limits_normalised"),
    ],
)  # fmt: skip
def test_opener_commits_to_nonce_and_limits(
    room: Room, limits: dict[str, Any] | None, committed: dict[str, Any]
) -> None:
    room.open(limits=limits)
    opening = {"nonce": OPENER_NONCE, "limits": committed}
    assert room.envelopes[0].payload["opener_limits_commitment"] == commit(opening)
    assert is_opening(room.current.commitments[OPENER], opening)
    [(party, record)] = room.private
    assert (party, record.type, record.payload) == (OPENER, "limits.committed", opening)


def test_enum_limits_are_sorted(room: Room) -> None:
    room.open(limits={"size": {"one_of": ["m", "s"]}})
    assert room.current.seat_private(OPENER).limits == {"size": {"one_of": ["m", "s"]}}
    room2 = Room()
    room2.open(limits={"size": {"one_of": ["s", "m"]}})
    assert room2.envelopes[0].payload == room.envelopes[0].payload


@pytest.mark.parametrize("with_offer", [False, True], ids=["without_offer", "with_offer"])
def test_deadline_at_open(room: Room, with_offer: bool) -> None:
    subject = terms() if with_offer else None
    room.open(subject=subject, deadline="2026-12-01T13:00:00+01:00")
    assert room.current.deadline == at(days=1)
    assert expires_at(room.current, room.policy) == at(days=1)
    assert room.view(OPENER).deadline == at(days=1)
    if with_offer:
        assert room.envelopes[1].payload["deadline"] == at(days=1)


# -- join ---------------------------------------------------------------------------------


def cancelled_draft(r: Room) -> None:
    draft(r)
    r.move(OPENER_OWNER, "cancel")


def expired_draft(r: Room) -> None:
    draft(r)
    r.advance_time(hours=72)
    r.expire()


@pytest.mark.parametrize(
    ("setup", "code"),
    [
        pytest.param(joined, C.INVITE_INVALID, id="invite_used_twice"),
        pytest.param(cancelled_draft, C.INVITE_INVALID, id="room_cancelled_in_draft"),
        pytest.param(expired_draft, C.INVITE_INVALID, id="invite_expired"),
    ],
)  # fmt: skip
def test_join_refusal(room: Room, setup: Setup, code: C) -> None:
    setup(room)
    before = room.state
    result = room.try_join()
    assert isinstance(result, Refusal) and result.code == code
    assert room.state == before


def test_join_with_bad_limits(room: Room) -> None:
    draft(room)
    result = room.try_join(limits={"quantity": {"min": "ten"}})
    assert isinstance(result, Refusal) and result.code == C.INVALID_REQUEST
    assert list(result.details["fields"]) == ["limits.quantity"]


@pytest.mark.parametrize(
    ("opener", "joiner", "fields"),
    [
        pytest.param({"quantity": {"min": 20}}, {"quantity": {"max": 10}}, ["quantity"],
                     id="int_disjoint"),
        pytest.param({"quantity": {"min": 10}}, {"quantity": {"max": 10}}, [],
                     id="int_touching"),
        pytest.param({"quantity": {"min": 1, "max": 5}}, {"quantity": {"min": 6, "max": 9}},
                     ["quantity"], id="int_two_ranges_disjoint"),
        pytest.param({"price": {"min": eur(8_765)}}, {"price": {"max": eur(5_000)}}, ["price"],
                     id="money_disjoint"),
        pytest.param({"price": {"min": eur(8_765)}}, {"price": {"max": eur(12_345)}}, [],
                     id="money_overlapping"),
        pytest.param({"delivery": {"min": "2026-12-10"}}, {"delivery": {"max": "2026-12-09"}},
                     ["delivery"], id="date_disjoint"),
        pytest.param({"delivery": {"min": "2026-12-10"}}, {"delivery": {"max": "2026-12-10"}},
                     [], id="date_same_day"),
        pytest.param({"slot": {"min": "2026-12-01T10:00:00Z"}},
                     {"slot": {"max": "2026-12-01T11:00:00+01:00"}}, ["slot"],
                     id="timerange_equal_bounds"),
        pytest.param({"slot": {"min": "2026-12-01T10:00:00Z"}},
                     {"slot": {"max": "2026-12-01T10:00:01Z"}}, [], id="timerange_with_room"),
        pytest.param({"size": {"one_of": ["s"]}}, {"size": {"one_of": ["m", "l"]}}, ["size"],
                     id="enum_disjoint"),
        pytest.param({"size": {"one_of": ["s", "m"]}}, {"size": {"one_of": ["m", "l"]}}, [],
                     id="enum_overlapping"),
        pytest.param({"express": {"equals": True}}, {"express": {"equals": False}},
                     ["express"], id="bool_different"),
        pytest.param({"express": {"equals": True}}, {"express": {"equals": True}}, [],
                     id="bool_same"),
        pytest.param({"quantity": {"min": 20}}, {}, [], id="only_one_side_limited"),
        pytest.param({"size": {"one_of": ["s"]}, "quantity": {"min": 20}},
                     {"quantity": {"max": 10}, "size": {"one_of": ["l"]}},
                     ["quantity", "size"], id="several_fields_sorted"),
    ],
)  # fmt: skip
def test_limits_compatibility_at_join(
    room: Room, opener: dict[str, Any], joiner: dict[str, Any], fields: list[str]
) -> None:
    room.open(limits=opener)
    room.join(limits=joiner)
    joined_payload = room.envelopes_of("room.joined")[0].payload
    assert joined_payload["limits_compatible"] is (not fields)
    assert joined_payload["incompatible_fields"] == fields
    assert joined_payload["joiner_limits_commitment"] == commit(
        {"nonce": JOINER_NONCE, "limits": room.current.seat_private(JOINER).limits}
    )
    # Which fields, never the numbers.
    assert set(joined_payload) == {
        "joiner_limits_commitment",
        "limits_compatible",
        "incompatible_fields",
    }
    told = [(n.party, dict(n.data)) for n in room.notices if n.type == "limits_incompatible"]
    expected = [(OPENER, {"fields": fields}), (JOINER, {"fields": fields})] if fields else []
    assert told == expected
    for seat in (OPENER, JOINER):
        seen = room.view(seat)
        assert (seen.limits_compatible, seen.incompatible_fields) == (not fields, fields)


@pytest.mark.parametrize(
    ("setup", "turn"),
    [
        pytest.param(fresh, OPENER, id="opener_without_opening_offer"),
        pytest.param(live, JOINER, id="joiner_after_opening_offer"),
    ],
)
def test_turn_after_join(room: Room, setup: Setup, turn: Seat) -> None:
    setup(room)
    assert (room.current.status, room.current.turn) == (Status.AWAITING, turn)
    assert [(n.party, n.type) for n in room.notices] == [(turn, "your_turn")]
    assert room.view(turn).your_turn and not room.view(turn.other).your_turn


def test_no_limits_at_join_commits_to_empty_limits(room: Room) -> None:
    fresh(room)
    opening = {"nonce": JOINER_NONCE, "limits": {}}
    assert room.envelopes_of("room.joined")[0].payload["joiner_limits_commitment"] == commit(
        opening
    )
    assert room.view(OPENER).limits_compatible is True


# -- turns and approvals ------------------------------------------------------------------


def test_two_approvals_of_the_same_terms_agree(room: Room) -> None:
    live(room)
    subject_hash = room.table_hash
    room.move(JOINER_OWNER, "approve", subject_hash=subject_hash)
    state = room.current
    assert (state.status, state.turn) == (Status.AWAITING, OPENER)  # the proposer approves too
    assert [(a.seat, a.subject_hash) for a in state.approvals] == [(JOINER, subject_hash)]
    room.move(OPENER_OWNER, "approve", subject_hash=subject_hash)
    assert room.types[-2:] == ["move.approve", "room.agreed"]
    assert room.envelopes[-1].payload == {"terms": terms(), "subject_hash": subject_hash}
    assert dict(room.envelopes[-1].sender) == {"role": "server"}
    assert (room.current.status, room.current.turn) == (Status.AGREED, None)
    agreed_notices = {(n.party, n.type) for n in room.notices if n.type == "agreed"}
    assert agreed_notices == {(OPENER, "agreed"), (JOINER, "agreed")}


def test_a_counter_voids_approvals(room: Room) -> None:
    live(room)
    first = room.table_hash
    room.move(JOINER_OWNER, "approve", subject_hash=first)
    room.move(OPENER_OWNER, "counter", terms=terms(11_000))
    assert room.current.approvals == ()
    room.move(JOINER_OWNER, "counter", terms=terms())  # the first terms come back
    assert room.table_hash == first and room.current.approvals == ()
    room.move(OPENER_OWNER, "approve", subject_hash=first)
    assert room.view(OPENER).state is Status.AWAITING  # the joiner's old approval is void
    room.move(JOINER_OWNER, "approve", subject_hash=first)
    assert room.current.status is Status.AGREED


def test_need_more_detail_keeps_table_and_approvals_and_passes_turn(room: Room) -> None:
    live(room)
    room.move(JOINER_OWNER, "approve", subject_hash=room.table_hash)
    before = room.current
    room.move(OPENER_OWNER, "need_more_detail", message="Is the bike insured?")
    after = room.current
    assert after.table == before.table and after.approvals == before.approvals
    assert (before.turn, after.turn) == (OPENER, JOINER)
    assert room.envelopes[-1].payload == {"message": "Is the bike insured?"}


@pytest.mark.parametrize(
    ("actor", "kind"),
    [
        pytest.param(JOINER_OWNER, "reject", id="reject_in_turn"),
        pytest.param(JOINER_OWNER, "cancel", id="cancel_in_turn"),
        pytest.param(OPENER_OWNER, "cancel", id="cancel_out_of_turn"),
    ],
)
def test_reject_and_cancel_close(room: Room, actor: Actor, kind: str) -> None:
    live(room)
    room.move(actor, kind, message="No, thanks")
    assert room.types[-1] == f"move.{kind}"
    assert room.envelopes[-1].payload == {"message": "No, thanks"}
    assert (room.current.status, room.current.turn) == (Status.CLOSED, None)
    closed_to = {n.party for n in room.notices if n.type == "closed"}
    assert closed_to == {OPENER, JOINER}


@pytest.mark.parametrize("kind", ["approve", "reject", "cancel"])
def test_agent_asks_owner_for_committing_moves(room: Room, kind: str) -> None:
    live(room)
    request = {"subject_hash": room.table_hash} if kind == "approve" else {}
    before = list(room.envelopes)
    room.move(JOINER_AGENT, kind, **request)
    assert room.envelopes == before  # nothing public until the owner confirms
    pending = room.current.seat_private(JOINER).pending
    assert pending is not None and pending.type == kind
    [notice] = last_notices(room)
    assert (notice.party, notice.type, notice.owner_only) == (JOINER, "confirmation_needed", True)
    assert notice.data["confirmation_id"] == pending.id
    assert room.current.turn is JOINER and room.current.status is Status.AWAITING
    seen = room.view(JOINER).pending_confirmation
    assert seen is not None and (seen.id, seen.type) == (pending.id, kind)
    assert room.view(OPENER).pending_confirmation is None

    room.confirm(JOINER_OWNER)
    assert room.types[-1] == f"move.{kind}"
    moved = room.envelopes[-1]
    assert dict(moved.sender) == {"role": "joiner", "via": "confirmed"}
    assert room.current.seat_private(JOINER).pending is None
    assert room.private[-1][1].payload == {"id": pending.id, "outcome": "confirmed"}


@pytest.mark.parametrize(
    ("actor", "via"),
    [
        pytest.param(JOINER_AGENT, "agent", id="agent"),
        pytest.param(JOINER_OWNER, "owner", id="owner"),
    ],
)
def test_via_names_the_credential(room: Room, actor: Actor, via: str) -> None:
    live(room)
    room.move(actor, "counter", terms=terms(9_000))
    assert dict(room.envelopes[-1].sender) == {"role": "joiner", "via": via}


def test_decline_leaves_the_turn_and_clears_the_request(room: Room) -> None:
    pending_approve(room)
    before = room.current
    room.confirm(JOINER_OWNER, decision="decline")
    after = room.current
    assert room.types == ["room.opened", "move.offer", "room.joined"]
    assert (after.turn, after.table, after.approvals) == (before.turn, before.table, ())
    assert after.seat_private(JOINER).pending is None
    assert room.private[-1][1].payload["outcome"] == "declined"
    room.move(JOINER_AGENT, "counter", terms=terms(9_000))  # the agent may move again


def test_owner_direct_move_replaces_the_request(room: Room) -> None:
    pending_approve(room)
    pending = room.current.seat_private(JOINER).pending
    assert pending is not None
    room.move(JOINER_OWNER, "counter", terms=terms(9_000))
    assert dict(room.envelopes[-1].sender) == {"role": "joiner", "via": "owner"}
    assert room.current.seat_private(JOINER).pending is None
    assert room.private[-1][1].payload == {"id": pending.id, "outcome": "replaced"}
    result = room.try_confirm(JOINER_OWNER, pending.id)
    assert isinstance(result, Refusal) and result.code == C.CONFIRMATION_NOT_FOUND


def test_the_next_request_gets_a_new_id(room: Room) -> None:
    pending_approve(room)
    room.confirm(JOINER_OWNER, decision="decline")
    room.move(JOINER_AGENT, "reject")
    pending = room.current.seat_private(JOINER).pending
    assert pending is not None and pending.id == "cnf_joiner_2"


@pytest.mark.parametrize(
    ("setup", "actor", "confirmation_id", "code"),
    [
        pytest.param(pending_approve, JOINER_AGENT, "cnf_joiner_1", C.FORBIDDEN,
                     id="agent_cannot_confirm"),
        pytest.param(pending_approve, OPENER_OWNER, "cnf_joiner_1", C.CONFIRMATION_NOT_FOUND,
                     id="other_owner_cannot_confirm"),
        pytest.param(pending_approve, JOINER_OWNER, "cnf_joiner_9", C.CONFIRMATION_NOT_FOUND,
                     id="unknown_id"),
        pytest.param(joined, JOINER_OWNER, "cnf_joiner_1", C.CONFIRMATION_NOT_FOUND,
                     id="nothing_pending"),
        pytest.param(pending_then_closed, JOINER_OWNER, "cnf_joiner_1", C.ROOM_FINAL,
                     id="room_final"),
        pytest.param(pending_then_closed, JOINER_AGENT, "cnf_joiner_1", C.FORBIDDEN,
                     id="first_forbidden_over_room_final"),
    ],
)  # fmt: skip
def test_confirm_refusal(
    room: Room, setup: Setup, actor: Actor, confirmation_id: str, code: C
) -> None:
    setup(room)
    before = room.state
    for decision in ("confirm", "decline"):
        result = room.try_confirm(actor, confirmation_id, decision)
        assert isinstance(result, Refusal) and result.code == code
    assert room.state == before


def test_confirmed_cancel_asked_out_of_turn(room: Room) -> None:
    pending_cancel_out_of_turn(room)
    room.move(OPENER_OWNER, "counter", terms=terms(9_500))
    room.confirm(JOINER_OWNER)
    assert room.types[-1] == "move.cancel" and room.current.status is Status.CLOSED


# -- deadlines and expiry -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second", "changed"),
    [
        pytest.param(None, at(days=2), True, id="set"),
        pytest.param(at(days=2), None, True, id="cleared_by_a_move_without_one"),
        pytest.param(at(days=2), at(days=3), True, id="replaced"),
        pytest.param(at(days=2), "2026-12-02T13:00:00+01:00", False, id="same_instant"),
        pytest.param(None, None, False, id="none_stays_none"),
    ],
)
def test_deadline_follows_the_last_setting_move(
    room: Room, first: str | None, second: str | None, changed: bool
) -> None:
    live(room)
    room.move(JOINER_OWNER, "counter", terms=terms(9_000), deadline=first)
    assert room.current.deadline == first
    room.move(OPENER_OWNER, "need_more_detail", message="?", deadline=second)
    normal = at(days=2) if second and not changed else second
    assert room.current.deadline == normal
    assert room.envelopes[-1].payload.get("deadline") == normal
    told = [(n.party, dict(n.data)) for n in last_notices(room) if n.type == "deadline_changed"]
    both = [(OPENER, {"deadline": normal}), (JOINER, {"deadline": normal})]
    assert told == (both if changed else [])


def test_approve_keeps_the_deadline(room: Room) -> None:
    live(room)
    room.move(JOINER_OWNER, "counter", terms=terms(9_000), deadline=at(days=2))
    room.move(OPENER_OWNER, "approve", subject_hash=room.table_hash)
    assert room.current.deadline == at(days=2)


def _live_with_move_on_day_3(r: Room) -> None:
    live(r)
    r.advance_time(days=3)
    r.move(JOINER_OWNER, "counter", terms=terms(9_000))
    r.advance_time(days=-3)


def _confirmed_on_day_5(r: Room) -> None:
    live(r)
    r.advance_time(days=1)
    r.move(JOINER_AGENT, "need_more_detail", message="?")
    r.move(OPENER_AGENT, "approve", subject_hash=r.table_hash)  # asked on day 1
    r.advance_time(days=4)
    r.confirm(OPENER_OWNER)  # confirmed on day 5
    r.advance_time(days=-5)


def _asked_on_day_6(r: Room) -> None:
    live(r)
    r.advance_time(days=6)
    r.move(JOINER_AGENT, "approve", subject_hash=r.table_hash)
    r.advance_time(days=-6)


EXPIRY = [
    pytest.param(draft, {"hours": 72, "seconds": -1}, None, id="draft_before_invite_expiry"),
    pytest.param(draft, {"hours": 72}, "invite", id="draft_invite_after_72h"),
    pytest.param(lambda r: r.open(deadline=at(hours=24)), {"hours": 24}, "deadline",
                 id="draft_deadline_before_invite"),
    pytest.param(lambda r: r.open(deadline=at(hours=24)), {"hours": 24, "seconds": -1}, None,
                 id="draft_deadline_not_yet"),
    pytest.param(lambda r: r.open(subject=terms(), deadline=at(hours=100)), {"hours": 72},
                 "invite", id="draft_invite_before_deadline"),
    pytest.param(joined, {"days": 7, "seconds": -1}, None, id="live_before_idle"),
    pytest.param(joined, {"days": 7}, "idle", id="live_idle_7_days_after_join"),
    pytest.param(_live_with_move_on_day_3, {"days": 7}, None, id="live_move_restarts_idle"),
    pytest.param(_live_with_move_on_day_3, {"days": 10}, "idle", id="live_idle_after_last_move"),
    pytest.param(lambda r: (live(r), r.move(JOINER_OWNER, "counter", terms=terms(9_000),
                                             deadline=at(days=2))),
                 {"days": 2}, "deadline", id="live_deadline"),
    pytest.param(lambda r: (live(r), r.move(JOINER_OWNER, "counter", terms=terms(9_000),
                                             deadline=at(days=20))),
                 {"days": 7}, "idle", id="live_idle_before_deadline"),
    pytest.param(_confirmed_on_day_5, {"days": 11}, None, id="confirmed_counts_from_confirmation"),
    pytest.param(_confirmed_on_day_5, {"days": 12}, "idle", id="idle_after_confirmation"),
    pytest.param(_asked_on_day_6, {"days": 7}, "idle", id="a_request_is_not_a_move"),
    pytest.param(agreed, {"days": 30}, None, id="final_never_expires"),
]  # fmt: skip


@pytest.mark.parametrize(("setup", "later", "reason"), EXPIRY)
def test_expiry(room: Room, setup: Setup, later: dict[str, float], reason: str | None) -> None:
    setup(room)
    room.advance_time(**later)
    before = room.current
    decision = room.expire()
    if reason is None:
        assert decision is None and room.current == before
        return
    assert decision is not None
    assert room.types[-1] == "room.expired"
    assert room.envelopes[-1].payload == {"reason": reason}
    assert (room.current.status, room.current.final_reason) == (Status.EXPIRED, reason)
    told = {n.party for n in decision.notices if n.type == "expired"}
    assert told == ({OPENER} if before.status is Status.DRAFT else {OPENER, JOINER})
    result = room.try_move(OPENER_OWNER, "cancel")
    assert isinstance(result, Refusal) and result.code == C.ROOM_FINAL


def test_expires_at_in_the_view(room: Room) -> None:
    draft(room)
    assert room.view(OPENER).expires_at == at(hours=72)
    room.join()
    assert room.view(OPENER).expires_at == at(days=7)
    room.move(JOINER_OWNER, "counter", terms=terms(9_000), deadline=at(days=1))
    assert room.view(JOINER).expires_at == at(days=1)


# -- circling -----------------------------------------------------------------------------


def play(r: Room, steps: str) -> None:
    """Moves by the owner whose turn it is: `c<price>` counter, `n` need_more_detail,
    `a` approve the table."""
    for step in steps.split():
        actor = owner_of(r.current.turn or OPENER)
        if step == "n":
            r.move(actor, "need_more_detail", message="Why?")
        elif step == "a":
            r.move(actor, "approve", subject_hash=r.table_hash)
        else:
            r.move(actor, "counter", terms=terms(int(step[1:])))


# live() puts an offer of 10000 on the table: the first move, and a new hash.
CIRCLING = [
    pytest.param("c9000 c10000 c9000 c10000 c9000", True, id="four_counters_of_old_terms"),
    pytest.param("c9000 c10000 c9000 c10000", False, id="new_hash_in_window"),
    pytest.param("n n n n", True, id="four_requests_for_detail"),
    pytest.param("n n n", False, id="opening_offer_is_in_window"),
    pytest.param("n n", False, id="only_three_moves"),
    pytest.param("c9000 n c10000 n c9000", True, id="counters_and_details_mixed"),
    pytest.param("c9000 a n n n", False, id="approve_in_window"),
    pytest.param("c9000 a n n n n", True, id="approve_left_the_window"),
    pytest.param("c9000 c10000 c9000 c10000 c9000 c9500", False, id="new_terms_stop_it"),
    pytest.param("c9000 c10000 c9000 c10000 c9000 c9500 n n n", False,
                 id="new_terms_still_in_window"),
    pytest.param("c9000 c10000 c9000 c10000 c9000 c9500 n n n n", True,
                 id="it_starts_again"),
]  # fmt: skip


@pytest.mark.parametrize(("steps", "circling"), CIRCLING)
def test_circling(room: Room, steps: str, circling: bool) -> None:
    live(room)
    play(room, steps)
    assert room.current.is_circling is circling
    assert room.view(OPENER).circling is circling and room.view(JOINER).circling is circling
    assert room.current.status is Status.AWAITING  # never closed for circling


def test_circling_is_announced_once_per_room(room: Room) -> None:
    live(room)
    play(room, "n n n")
    assert "room.circling" not in room.types
    play(room, "n")
    assert room.types[-2:] == ["move.need_more_detail", "room.circling"]
    assert room.envelopes[-1].payload == {} and dict(room.envelopes[-1].sender) == {
        "role": "server"
    }
    play(room, "n c9000")  # still circling, then progress
    assert not room.view(OPENER).circling
    play(room, "n n n n")
    assert room.current.is_circling
    assert room.types.count("room.circling") == 1
    told = sorted(n.party for n in room.notices if n.type == "circling")
    assert told == [JOINER, OPENER]


# -- views --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seat", "secrets"),
    [
        pytest.param(OPENER, [JOINER_NONCE, "12345", "cnf_joiner"], id="opener_view"),
        pytest.param(JOINER, [OPENER_NONCE, "8765", "cnf_opener"], id="joiner_view"),
    ],
)
def test_view_hides_the_other_seat(room: Room, seat: Seat, secrets: list[str]) -> None:
    live(room)
    room.move(JOINER_AGENT, "counter", terms=terms(9_000))
    room.move(OPENER_AGENT, "approve", subject_hash=room.table_hash)  # waits for its owner
    room.move(JOINER_AGENT, "cancel")  # out of turn, waits for its owner too
    text = room.view_json(seat)
    for secret in secrets:  # word boundaries: a limit's digits may occur inside a hash
        assert not re.search(rf"\b{secret}\b", text), secret
    assert "nonce" not in text
    mine = room.view(seat)
    assert mine.pending_confirmation is not None
    assert mine.pending_confirmation.id == f"cnf_{seat}_1"


@pytest.mark.parametrize(
    ("opener", "joiner", "offer", "outside"),
    [
        pytest.param({}, {"price": {"max": eur(12_345)}}, terms(13_000), (set(), {"price"}),
                     id="money_above_max"),
        pytest.param({"quantity": {"max": 20}}, {"quantity": {"min": 12}}, terms(quantity=11),
                     (set(), {"quantity"}), id="int_below_min"),
        pytest.param({}, {"size": {"one_of": ["m"]}, "express": {"equals": False}},
                     terms(size="s", express=True), (set(), {"size", "express"}),
                     id="enum_and_bool"),
        pytest.param({}, {"delivery": {"max": "2026-12-01"}},
                     terms(), (set(), set()), id="absent_optional_is_inside"),
        pytest.param({}, {"slot": {"max": "2026-12-01T12:00:00Z"}},
                     terms(slot={"start": "2026-12-01T11:00:00Z", "end": "2026-12-01T13:00:00Z"}),
                     (set(), {"slot"}), id="timerange_end_after_max"),
    ],
)  # fmt: skip
def test_outside_your_limits(
    room: Room,
    opener: dict[str, Any],
    joiner: dict[str, Any],
    offer: dict[str, Any],
    outside: tuple[set[str], set[str]],
) -> None:
    room.open(subject=offer, limits=opener)
    room.join(limits=joiner)
    assert set(room.view(OPENER).outside_your_limits) == outside[0]
    assert set(room.view(JOINER).outside_your_limits) == outside[1]
    assert room.view(OPENER).your_limits == room.current.seat_private(OPENER).limits
    assert room.view(JOINER).your_limits == room.current.seat_private(JOINER).limits


@pytest.mark.parametrize(
    ("setup", "final"),
    [
        pytest.param(draft, False, id="draft"),
        pytest.param(joined, False, id="awaiting"),
        pytest.param(agreed, True, id="agreed"),
        pytest.param(closed, True, id="closed"),
        pytest.param(expired, True, id="expired"),
    ],
)
def test_receipt_url_only_when_final(room: Room, setup: Setup, final: bool) -> None:
    setup(room)
    url = room.view(OPENER).receipt_url
    assert url == (f"{BASE_URL}/v1/rooms/room_test/receipt" if final else None)
    assert (room.view(OPENER).expires_at is None) is final


def test_view_basics(room: Room) -> None:
    room.open(title="Bike", subject=terms())
    before_join = room.view(OPENER)
    assert (before_join.state, before_join.turn, before_join.your_turn) == (
        Status.DRAFT,
        None,
        False,
    )
    assert before_join.limits_compatible is None and before_join.seat is OPENER
    room.join()
    seen = room.view(JOINER)
    assert (seen.room_id, seen.name, seen.title, seen.seq) == (
        "room_test",
        "🦊 Amber Fox",
        "Bike",
        2,
    )
    assert (seen.state, seen.turn, seen.your_turn, seen.moves_total) == (
        Status.AWAITING,
        JOINER,
        True,
        1,
    )
    assert seen.table is not None and seen.table.terms == terms()
    assert seen.subject_schema == SCHEMA and seen.created_at == at()


def test_moves_omit_absent_members(room: Room) -> None:
    live(room)
    room.advance_time(minutes=1)
    room.move(JOINER_OWNER, "need_more_detail", message="Colour?")
    room.move(OPENER_OWNER, "counter", terms=terms(9_000), deadline=at(days=1))
    room.move(JOINER_OWNER, "approve", subject_hash=room.table_hash)
    room.move(OPENER_OWNER, "cancel")
    moves = room.view(JOINER).moves
    assert [set(m) for m in moves] == [
        {"seq", "seat", "type", "terms", "subject_hash", "at"},
        {"seq", "seat", "type", "message", "at"},
        {"seq", "seat", "type", "terms", "subject_hash", "deadline", "at"},
        {"seq", "seat", "type", "subject_hash", "at"},
        {"seq", "seat", "type", "at"},
    ]
    assert moves[1] == {
        "seq": 3,
        "seat": "joiner",
        "type": "need_more_detail",
        "message": "Colour?",
        "at": at(minutes=1),
    }


def test_moves_keep_the_last_50(room: Room) -> None:
    live(room)
    play(room, " ".join(["n"] * 60))
    seen = room.view(OPENER)
    assert seen.moves_total == 61 and len(seen.moves) == 50
    assert seen.moves[0]["seq"] == room.envelopes_of("move.need_more_detail")[-50].seq
    assert seen.moves[-1]["seq"] == room.envelopes_of("move.need_more_detail")[-1].seq


def test_the_json_view_is_exactly_the_room_view_model(room: Room) -> None:
    """The service answers with `view_json`; it must be the documented RoomView, member for
    member, for both seats as the room goes from draft to agreement."""

    def same(*seats: Seat) -> None:
        for seat in seats:
            fast = view_json(room.current, seat, policy=room.policy, base_url=BASE_URL)
            assert RoomView.model_validate(fast).model_dump(mode="json") == fast

    room.open(subject=terms(), limits={"quantity": {"min": 1}}, deadline=at(days=2))
    same(OPENER)
    room.join()
    same(OPENER, JOINER)
    room.move(JOINER_AGENT, "approve", subject_hash=table(room))  # waits for its owner
    same(OPENER, JOINER)
    room.move(JOINER_OWNER, "approve", subject_hash=table(room))
    room.move(OPENER_OWNER, "approve", subject_hash=table(room))
    same(OPENER, JOINER)

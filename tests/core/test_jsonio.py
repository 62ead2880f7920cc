"""Strict parsing and canonical output (`accord/core/jsonio.py`, receipts.md "Canonical bytes")."""

from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.core.jsonio import (
    MAX_SAFE_INTEGER,
    Bounds,
    JSONError,
    canonical,
    parse,
    parse_canonical,
    thaw,
)


def _not_written_as_unsafe_integer(x: float) -> bool:
    # JCS writes floats in [2^53, 1e21) as integer literals that `parse` then refuses; that
    # gap has its own test (test_parse_canonical_reads_back_what_parse_accepted).
    return not (2**53 <= abs(x) < 1e21)


# Values JCS can represent: safe integers, finite floats, strings without lone surrogates.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-MAX_SAFE_INTEGER, max_value=MAX_SAFE_INTEGER)
    | st.floats(allow_nan=False, allow_infinity=False).filter(_not_written_as_unsafe_integer)
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]))
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(
            st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


def test_max_safe_integer() -> None:
    assert MAX_SAFE_INTEGER == 2**53 - 1


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        pytest.param("null", None, id="null"),
        pytest.param("true", True, id="true"),
        pytest.param("false", False, id="false"),
        pytest.param("0", 0, id="zero"),
        pytest.param("-0", 0, id="negative_zero_int"),
        pytest.param("1.5", 1.5, id="float"),
        pytest.param("1e3", 1000.0, id="exponent"),
        pytest.param('"héllo"', "héllo", id="unicode_string"),
        pytest.param('"\\u20ac"', "€", id="escaped_string"),
        pytest.param("[]", [], id="empty_array"),
        pytest.param("{}", {}, id="empty_object"),
        pytest.param(
            '{"a": [1, {"b": null}], "c": "d"}', {"a": [1, {"b": None}], "c": "d"}, id="nested"
        ),
        pytest.param(
            '{"a": {"x": 1}, "b": {"x": 2}}',
            {"a": {"x": 1}, "b": {"x": 2}},
            id="same_key_in_siblings",
        ),
        pytest.param(str(MAX_SAFE_INTEGER), MAX_SAFE_INTEGER, id="max_safe_integer"),
        pytest.param(str(-MAX_SAFE_INTEGER), -MAX_SAFE_INTEGER, id="min_safe_integer"),
        pytest.param(b'{"a": 1}', {"a": 1}, id="bytes_input"),
        pytest.param(" \n\t[1] ", [1], id="surrounding_whitespace"),
    ],
)
def test_parse_accepts_ordinary_json(data: bytes | str, expected: Any) -> None:
    assert parse(data) == expected


@pytest.mark.parametrize(
    "data",
    [
        pytest.param('{"a": 1, "a": 2}', id="duplicate_key"),
        pytest.param('{"a": 1, "a": 1}', id="duplicate_key_same_value"),
        pytest.param('{"x": {"a": 1, "b": 2, "a": 3}}', id="duplicate_key_nested_object"),
        pytest.param('[0, [{"k": true, "k": false}]]', id="duplicate_key_inside_array"),
        pytest.param('{"\\u0061": 1, "a": 2}', id="duplicate_key_via_escape"),
        pytest.param("NaN", id="nan"),
        pytest.param("Infinity", id="infinity"),
        pytest.param("-Infinity", id="negative_infinity"),
        pytest.param('{"x": [NaN]}', id="nan_nested"),
        pytest.param("1e400", id="float_overflow_to_infinity"),
        pytest.param("-1e400", id="float_overflow_to_negative_infinity"),
        pytest.param(str(MAX_SAFE_INTEGER + 1), id="integer_above_safe_range"),
        pytest.param(str(-MAX_SAFE_INTEGER - 1), id="integer_below_safe_range"),
        pytest.param(str(2**64), id="integer_2_64"),
        pytest.param('{"amount_minor": 9007199254740993}', id="unsafe_integer_nested"),
        pytest.param("1" * 5000, id="integer_too_long_to_convert"),
        pytest.param("", id="empty"),
        pytest.param("   ", id="whitespace_only"),
        pytest.param("{", id="unterminated_object"),
        pytest.param("[1,]", id="trailing_comma"),
        pytest.param("{'a': 1}", id="single_quotes"),
        pytest.param("{a: 1}", id="unquoted_key"),
        pytest.param("01", id="leading_zero"),
        pytest.param("[1] [2]", id="two_documents"),
        pytest.param("undefined", id="undefined"),
        pytest.param(b"\xff\xfe\xfd", id="invalid_utf8"),
        pytest.param('"\\x41"', id="invalid_escape"),
        pytest.param("[" * 100_000, id="nested_past_the_recursion_limit"),
    ],
)
def test_parse_refuses(data: bytes | str) -> None:
    with pytest.raises(JSONError) as info:
        parse(data)
    assert isinstance(info.value.reason, str)
    assert info.value.reason
    assert str(info.value) == info.value.reason


def test_json_error_is_a_value_error() -> None:
    assert issubclass(JSONError, ValueError)
    assert JSONError("why").reason == "why"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        pytest.param('{"a": 1, "a": 2}', "duplicate", id="duplicate_key"),
        pytest.param("NaN", "NaN", id="nan"),
        pytest.param(str(2**53), "outside", id="unsafe_integer"),
        pytest.param("{", "malformed", id="malformed"),
    ],
)
def test_parse_reason_says_why(data: str, words: str) -> None:
    with pytest.raises(JSONError) as info:
        parse(data)
    assert words in info.value.reason


BOUNDS = Bounds(depth=3, members=2, items=2)


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("data", "words"),
    [
        pytest.param(_nested(4), "deeper than 3", id="depth_over_bound"),
        pytest.param('{"a": {"b": [{}]}}', "deeper than 3", id="depth_over_bound_in_objects"),
        pytest.param("[[1], [[2, 3, 4]]]", "more than 2 items", id="array_over_bound_nested"),
        pytest.param('{"a": 1, "b": 2, "c": 3}', "more than 2 members", id="object_over_bound"),
        pytest.param('[{"x": {"a": 1, "b": 2, "c": 3}}]', "more than 2 members", id="members_deep"),
        pytest.param("[" * 100_000, "too deeply", id="recursion_limit_with_bounds"),
    ],
)
def test_parse_refuses_documents_out_of_bounds(data: str, words: str) -> None:
    with pytest.raises(JSONError) as info:
        parse(data, BOUNDS)
    assert words in info.value.reason


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_nested(3), id="depth_at_bound"),
        pytest.param('{"a": {"b": [1, 2]}, "c": [3]}', id="everything_at_bound"),
        pytest.param('"' + "x" * 10_000 + '"', id="long_string_is_no_container"),
    ],
)
def test_parse_accepts_documents_within_bounds(data: str) -> None:
    assert parse(data, BOUNDS) == parse(data)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param({"b": 1, "a": 2}, b'{"a":2,"b":1}', id="sorted_keys"),
        pytest.param([1, "x", None, True], b'[1,"x",null,true]', id="no_whitespace"),
        pytest.param(1.0, b"1", id="integral_float"),
        pytest.param(-0.0, b"0", id="negative_zero"),
        pytest.param("é€", '"é€"'.encode(), id="utf8_not_escaped"),
        pytest.param("\n\u001f", b'"\\n\\u001f"', id="control_escaped"),
        pytest.param(MAX_SAFE_INTEGER, b"9007199254740991", id="max_safe_integer"),
        pytest.param({"\u20ac": 1, "\r": 2}, '{"\\r":2,"€":1}'.encode(), id="utf16_key_order"),
        pytest.param((1, 2), b"[1,2]", id="tuple_as_array"),
    ],
)
def test_canonical_examples(value: Any, expected: bytes) -> None:
    assert canonical(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(float("nan"), id="nan"),
        pytest.param(float("inf"), id="infinity"),
        pytest.param(float("-inf"), id="negative_infinity"),
        pytest.param({"x": [float("nan")]}, id="nan_nested"),
        pytest.param(MAX_SAFE_INTEGER + 1, id="integer_above_safe_range"),
        pytest.param(-MAX_SAFE_INTEGER - 1, id="integer_below_safe_range"),
        pytest.param(10**30, id="huge_integer"),
        pytest.param({"amount_minor": 2**60}, id="huge_integer_nested"),
        pytest.param("\ud800", id="lone_surrogate"),
        pytest.param({"\udc00": 1}, id="lone_surrogate_key"),
        pytest.param({1: "x"}, id="non_string_key"),
        pytest.param(object(), id="not_json"),
    ],
)
def test_canonical_refuses(value: Any) -> None:
    with pytest.raises(JSONError) as info:
        canonical(value)
    assert info.value.reason


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b'{"b":1,"a":2}', id="unsorted_keys"),
        pytest.param(b'{"a": 1}', id="whitespace"),
        pytest.param(b'{"a":1}\n', id="trailing_newline"),
        pytest.param(b"1.0", id="non_shortest_number"),
        pytest.param(b"1e2", id="exponent_form"),
        pytest.param(b'"\\u0041"', id="needless_escape"),
        pytest.param(b"\xef\xbb\xbf{}", id="byte_order_mark"),
        pytest.param(b'{"a":1,"a":1}', id="duplicate_key"),
        pytest.param(b"NaN", id="nan"),
        pytest.param(b"9007199254740992", id="unsafe_integer"),
    ],
)
def test_parse_canonical_refuses_non_canonical_bytes(data: bytes) -> None:
    with pytest.raises(JSONError):
        parse_canonical(data)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param("1e20", id="1e20"),
        pytest.param("-1e20", id="minus_1e20"),
        pytest.param("9007199254740992.0", id="2_53_as_float"),
        pytest.param("9007199254740994.0", id="above_2_53_as_float"),
        pytest.param("1e21", id="1e21"),
        pytest.param("4.5", id="ordinary_float"),
    ],
)
def test_parse_canonical_reads_back_what_parse_accepted(data: str) -> None:
    """Stored bytes must stay readable: either `parse` refuses the input, or its canonical
    bytes parse back. JCS writes floats in [2^53, 1e21) as integer literals."""
    try:
        value = parse(data)
    except JSONError:
        return
    assert parse_canonical(canonical(value)) == value


@given(json_values)
def test_parse_canonical_reads_back_canonical_bytes(value: Any) -> None:
    data = canonical(value)
    assert canonical(parse_canonical(data)) == data


@given(json_values)
def test_canonical_is_idempotent_through_parse(value: Any) -> None:
    data = canonical(value)
    assert canonical(parse(data)) == data


@given(st.dictionaries(st.text(max_size=5), st.integers(0, 100), max_size=8))
def test_canonical_ignores_insertion_order(value: dict[str, int]) -> None:
    reversed_value = dict(reversed(list(value.items())))
    assert canonical(reversed_value) == canonical(value)


def test_thaw_turns_mappings_and_sequences_into_dicts_and_lists() -> None:
    frozen = MappingProxyType({"a": (1, MappingProxyType({"b": [2, (3,)]})), "c": "str"})
    thawed = thaw(frozen)
    assert thawed == {"a": [1, {"b": [2, [3]]}], "c": "str"}
    assert type(thawed) is dict
    assert type(thawed["a"]) is list
    assert type(thawed["a"][1]) is dict
    assert canonical(thawed) == b'{"a":[1,{"b":[2,[3]]}],"c":"str"}'


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("text", id="string_is_not_a_sequence"),
        pytest.param(b"bytes", id="bytes_left_alone"),
        pytest.param(7, id="int"),
        pytest.param(None, id="none"),
    ],
)
def test_thaw_leaves_scalars_alone(value: Any) -> None:
    assert thaw(value) == value

"""Subject schemas, terms and limits (`accord/protocols/rooms/schema.py`, DESIGN.md "Rooms"):
validation, normalisation before hashing, and comparison against limits."""

from typing import Any, get_args

import pytest

from accord.core.commit import commit
from accord.protocols.rooms.schema import (
    TYPES,
    FieldSpec,
    incompatible_fields,
    normalize_limits,
    normalize_terms,
    normalize_value,
    outside_limits,
    validate_schema,
)
from tests.protocols.conftest import SCHEMA, eur, terms

T10 = "2026-12-01T10:00:00Z"
T11 = "2026-12-01T11:00:00Z"
T12 = "2026-12-01T12:00:00Z"


def test_the_test_schema_is_valid() -> None:
    assert validate_schema(SCHEMA) == {}


def test_the_types_a_refusal_names_are_the_models_types() -> None:
    models = get_args(get_args(FieldSpec)[0])
    assert [get_args(m.model_fields["type"].annotation)[0] for m in models] == list(TYPES)


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        pytest.param([], "subject_schema", id="not_an_object"),
        pytest.param({}, "subject_schema", id="no_fields"),
        pytest.param({f"f{i}": {"type": "int"} for i in range(33)}, "subject_schema",
                     id="33_fields"),
        pytest.param({"a b": {"type": "int"}}, "subject_schema.a b", id="name_with_space"),
        pytest.param({"é": {"type": "int"}}, "subject_schema.é", id="name_not_ascii"),
        pytest.param({"a": {"type": "int", "label": ""}}, "subject_schema.a", id="empty_label"),
        pytest.param({"a": {"type": "int", "label": "x" * 201}}, "subject_schema.a",
                     id="label_too_long"),
        pytest.param({"a": {}}, "subject_schema.a", id="no_type"),
        pytest.param({"a": {"type": "enum", "values": ["x", 1]}}, "subject_schema.a",
                     id="enum_value_not_string"),
        pytest.param({"a": {"type": "enum", "values": [""]}}, "subject_schema.a",
                     id="enum_value_empty"),
        pytest.param({"a": {"type": "enum", "values": [str(i) for i in range(101)]}},
                     "subject_schema.a", id="enum_101_values"),
        pytest.param({"a": {"type": "money", "currency": 978}}, "subject_schema.a",
                     id="currency_not_string"),
    ],
)  # fmt: skip
def test_invalid_schema(schema: Any, path: str) -> None:
    assert path in validate_schema(schema)


@pytest.mark.parametrize(
    "schema",
    [
        pytest.param({f"f{i}": {"type": "int"} for i in range(32)}, id="32_fields"),
        pytest.param({"x" * 64: {"type": "bool"}}, id="name_of_64"),
        pytest.param({"jpy": {"type": "money", "currency": "JPY"}}, id="money_without_minor"),
        pytest.param({"a": {"type": "enum", "values": ["x"], "optional": True, "label": "A"}},
                     id="enum_optional_labelled"),
    ],
)  # fmt: skip
def test_valid_schema(schema: Any) -> None:
    assert validate_schema(schema) == {}


@pytest.mark.parametrize(
    ("kind", "value", "normal"),
    [
        pytest.param({"type": "string"}, "", "", id="string_empty"),
        pytest.param({"type": "string"}, "x" * 2000, "x" * 2000, id="string_2000"),
        pytest.param({"type": "int"}, 2**53 - 1, 2**53 - 1, id="int_max"),
        pytest.param({"type": "int"}, -(2**53 - 1), -(2**53 - 1), id="int_min"),
        pytest.param({"type": "bool"}, False, False, id="bool"),
        pytest.param({"type": "enum", "values": ["s", "m"]}, "m", "m", id="enum"),
        pytest.param({"type": "date"}, "2028-02-29", "2028-02-29", id="date_leap_day"),
        pytest.param({"type": "timerange"}, {"start": T10, "end": T11},
                     {"start": T10, "end": T11}, id="timerange"),
        pytest.param({"type": "timerange"},
                     {"start": "2026-12-01T11:00:00+01:00", "end": "2026-12-01t11:00:00.000z"},
                     {"start": T10, "end": T11}, id="timerange_to_utc_whole_seconds"),
        pytest.param({"type": "money", "currency": "EUR"}, eur(0), eur(0), id="money_zero"),
    ],
)  # fmt: skip
def test_valid_values_are_normalised(kind: dict[str, Any], value: Any, normal: Any) -> None:
    assert normalize_value(kind, value) == (normal, None)


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        pytest.param({"type": "string"}, "x" * 2001, id="string_2001"),
        pytest.param({"type": "string"}, None, id="string_null"),
        pytest.param({"type": "int"}, 2**53, id="int_2_53"),
        pytest.param({"type": "int"}, False, id="int_bool"),
        pytest.param({"type": "int"}, 1.5, id="int_float"),
        pytest.param({"type": "bool"}, 0, id="bool_zero"),
        pytest.param({"type": "bool"}, "true", id="bool_string"),
        pytest.param({"type": "enum", "values": ["s"]}, "m", id="enum_other"),
        pytest.param({"type": "enum", "values": ["s"]}, ["s"], id="enum_list"),
        pytest.param({"type": "date"}, "2026-13-01", id="date_month_13"),
        pytest.param({"type": "date"}, "20261201", id="date_basic_format"),
        pytest.param({"type": "date"}, "2026-W49-1", id="date_week_format"),
        pytest.param({"type": "date"}, 20261201, id="date_number"),
        pytest.param({"type": "timerange"}, {"start": T11, "end": T10}, id="timerange_reversed"),
        pytest.param({"type": "timerange"}, {"start": T10, "end": T10}, id="timerange_empty"),
        pytest.param({"type": "timerange"}, {"start": "2026-12-01T10:00:00.001Z", "end": T11},
                     id="timerange_milliseconds"),
        pytest.param({"type": "timerange"},
                     {"start": "2026-12-01T10:00:00.000000001Z", "end": T11},
                     id="timerange_nanoseconds"),
        pytest.param({"type": "timerange"}, {"start": "2026-12-01 10:00:00Z", "end": T11},
                     id="timerange_space_separator"),
        pytest.param({"type": "timerange"}, [T10, T11], id="timerange_list"),
        pytest.param({"type": "money", "currency": "EUR"}, {"amount_minor": True,
                                                              "currency": "EUR"},
                     id="money_bool_amount"),
        pytest.param({"type": "money", "currency": "EUR"},
                     {"amount_minor": 1, "currency": "EUR", "note": ""}, id="money_extra"),
    ],
)  # fmt: skip
def test_invalid_values(kind: dict[str, Any], value: Any) -> None:
    normal, problem = normalize_value(kind, value)
    assert normal is None and problem


def test_equal_terms_hash_equally() -> None:
    a, problems_a = normalize_terms(
        SCHEMA,
        {
            "quantity": 1,
            "price": eur(500),
            "note": None,
            "slot": {"end": "2026-12-01T12:00:00+01:00", "start": "2026-12-01T10:00:00.0Z"},
        },
    )
    b, problems_b = normalize_terms(
        SCHEMA, {"slot": {"start": T10, "end": T11}, "price": eur(500), "quantity": 1}
    )
    assert problems_a == problems_b == {}
    assert a == b == {"price": eur(500), "quantity": 1, "slot": {"start": T10, "end": T11}}
    assert "note" not in a  # an absent optional field is omitted, never null
    assert commit(a) == commit(b)


@pytest.mark.parametrize(
    ("given", "problems"),
    [
        pytest.param([], {"terms"}, id="not_an_object"),
        pytest.param({}, {"terms.price", "terms.quantity"}, id="empty"),
        pytest.param({**terms(), "quantity": None}, {"terms.quantity"}, id="required_null"),
        pytest.param(terms(extra=1, other=2), {"terms.extra", "terms.other"},
                     id="unknown_fields_each_named"),
        pytest.param(terms(size="xl", express="no"), {"terms.size", "terms.express"},
                     id="every_bad_field_named"),
    ],
)  # fmt: skip
def test_terms_problems(given: Any, problems: set[str]) -> None:
    assert set(normalize_terms(SCHEMA, given)[1]) == problems


@pytest.mark.parametrize(
    ("limits", "normal"),
    [
        pytest.param(None, {}, id="none"),
        pytest.param({"quantity": {"min": 1, "max": 1}}, {"quantity": {"min": 1, "max": 1}},
                     id="int_point"),
        pytest.param({"size": {"one_of": ["l", "s"]}}, {"size": {"one_of": ["l", "s"]}},
                     id="enum"),
        pytest.param({"size": {"one_of": ["s", "l"]}}, {"size": {"one_of": ["l", "s"]}},
                     id="enum_sorted"),
        pytest.param({"slot": {"max": "2026-12-01T13:00:00+01:00"}}, {"slot": {"max": T12}},
                     id="timerange_utc"),
        pytest.param({"delivery": {"min": "2026-12-01"}}, {"delivery": {"min": "2026-12-01"}},
                     id="date"),
        pytest.param({"express": {"equals": False}}, {"express": {"equals": False}}, id="bool"),
        pytest.param({"price": {"min": eur(1), "max": eur(2)}},
                     {"price": {"min": eur(1), "max": eur(2)}}, id="money"),
    ],
)  # fmt: skip
def test_limits_normalised(limits: Any, normal: dict[str, Any]) -> None:
    assert normalize_limits(SCHEMA, limits) == (normal, {})


@pytest.mark.parametrize(
    ("limits", "path"),
    [
        pytest.param([], "limits", id="not_an_object"),
        pytest.param({"price": {"min": eur(2), "max": eur(1)}}, "limits.price",
                     id="money_min_above_max"),
        pytest.param({"delivery": {"min": "2026-12-02", "max": "2026-12-01"}},
                     "limits.delivery", id="date_min_above_max"),
        pytest.param({"slot": {"min": T12, "max": T11}}, "limits.slot",
                     id="timerange_min_above_max"),
        pytest.param({"slot": {"min": {"start": T10, "end": T11}}}, "limits.slot",
                     id="timerange_bound_is_an_instant"),
        pytest.param({"size": {"one_of": ["s", "s"]}}, "limits.size", id="enum_repeated"),
        pytest.param({"size": {"one_of": ["s"], "equals": "s"}}, "limits.size",
                     id="enum_extra_member"),
        pytest.param({"express": {"equals": True, "min": 1}}, "limits.express",
                     id="bool_extra_member"),
        pytest.param({"note": {"one_of": ["a"]}}, "limits.note", id="string_has_no_limits"),
        pytest.param({"quantity": {"min": 1.5}}, "limits.quantity", id="int_bound_float"),
    ],
)  # fmt: skip
def test_bad_limits(limits: Any, path: str) -> None:
    assert path in normalize_limits(SCHEMA, limits)[1]


@pytest.mark.parametrize(
    ("limits", "given", "outside"),
    [
        pytest.param({"quantity": {"min": 5, "max": 10}}, terms(quantity=5), [], id="int_min"),
        pytest.param({"quantity": {"min": 5, "max": 10}}, terms(quantity=10), [], id="int_max"),
        pytest.param({"quantity": {"min": 5}}, terms(quantity=4), ["quantity"], id="int_below"),
        pytest.param({"price": {"max": eur(999)}}, terms(1_000), ["price"], id="money_above"),
        pytest.param({"delivery": {"max": "2026-12-01"}}, terms(delivery="2026-12-02"),
                     ["delivery"], id="date_after"),
        pytest.param({"slot": {"min": T11}}, terms(slot={"start": T10, "end": T12}), ["slot"],
                     id="timerange_start_before_min"),
        pytest.param({"slot": {"min": T10, "max": T12}}, terms(slot={"start": T10, "end": T12}),
                     [], id="timerange_on_bounds"),
        pytest.param({"size": {"one_of": ["m"]}}, terms(size="s"), ["size"], id="enum_other"),
        pytest.param({"express": {"equals": True}}, terms(express=False), ["express"],
                     id="bool_other"),
        pytest.param({"express": {"equals": True}}, terms(), [], id="absent_optional"),
        pytest.param({"quantity": {"min": 50}, "price": {"max": eur(1)}}, terms(),
                     ["price", "quantity"], id="sorted"),
    ],
)  # fmt: skip
def test_outside_limits(limits: dict[str, Any], given: dict[str, Any], outside: list[str]) -> None:
    normal_limits, _ = normalize_limits(SCHEMA, limits)
    normal_terms, problems = normalize_terms(SCHEMA, given)
    assert problems == {}
    assert outside_limits(SCHEMA, normal_limits, normal_terms) == outside


@pytest.mark.parametrize(
    ("first", "second", "fields"),
    [
        pytest.param({"quantity": {"max": 4}}, {"quantity": {"min": 5}}, ["quantity"],
                     id="int_gap"),
        pytest.param({"quantity": {"max": 5}}, {"quantity": {"min": 5}}, [], id="int_touch"),
        pytest.param({"quantity": {"min": 1}}, {"quantity": {"min": 9}}, [],
                     id="int_two_minimums"),
        pytest.param({"price": {"min": eur(2)}}, {"price": {"max": eur(1)}}, ["price"],
                     id="money_gap"),
        pytest.param({"slot": {"min": T11}}, {"slot": {"max": T11}}, ["slot"],
                     id="timerange_no_room"),
        pytest.param({"slot": {"min": T10, "max": T12}}, {"slot": {"min": T11}}, [],
                     id="timerange_room"),
        pytest.param({"size": {"one_of": ["s"]}}, {"size": {"one_of": ["m"]}}, ["size"],
                     id="enum_disjoint"),
        pytest.param({"express": {"equals": True}}, {"express": {"equals": False}},
                     ["express"], id="bool_different"),
        pytest.param({}, {"express": {"equals": False}}, [], id="one_side_only"),
    ],
)  # fmt: skip
def test_incompatible_fields(
    first: dict[str, Any], second: dict[str, Any], fields: list[str]
) -> None:
    a, _ = normalize_limits(SCHEMA, first)
    b, _ = normalize_limits(SCHEMA, second)
    assert incompatible_fields(SCHEMA, a, b) == fields
    assert incompatible_fields(SCHEMA, b, a) == fields

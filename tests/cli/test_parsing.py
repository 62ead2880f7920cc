"""What people type, read into the API's shapes; values printed for people."""

from typing import Any

import pytest
import typer

from accord.cli.room_input import parse_schema, parse_terms
from accord.protocols.rooms.words import format_limit, format_value

SCHEMA: dict[str, Any] = {
    "price": {"type": "money", "currency": "EUR"},
    "yen": {"type": "money", "currency": "JPY"},
    "nights": {"type": "int"},
    "paid": {"type": "bool"},
    "stay": {"type": "timerange"},
    "note": {"type": "string", "optional": True},
}


def test_compact_schema() -> None:
    assert parse_schema("price:money:EUR,day:date,size:enum:S|M|L,note?:string") == {
        "price": {"type": "money", "currency": "EUR"},
        "day": {"type": "date"},
        "size": {"type": "enum", "values": ["S", "M", "L"]},
        "note": {"type": "string", "optional": True},
    }


def test_schema_as_json_or_file(tmp_path) -> None:
    path = tmp_path / "schema.json"
    path.write_text('{"day": {"type": "date"}}')
    assert parse_schema(str(path)) == {"day": {"type": "date"}}
    assert parse_schema('{"day": {"type": "date"}}') == {"day": {"type": "date"}}


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        pytest.param("price=90", {"amount_minor": 9000, "currency": "EUR"}, id="whole_euros"),
        pytest.param("price=90.5", {"amount_minor": 9050, "currency": "EUR"}, id="one_decimal"),
        pytest.param("price=90.05 EUR", {"amount_minor": 9005, "currency": "EUR"}, id="with_code"),
        pytest.param("yen=1200", {"amount_minor": 1200, "currency": "JPY"}, id="no_minor_unit"),
        pytest.param("nights=3", 3, id="int"),
        pytest.param("paid=yes", True, id="bool_yes"),
        pytest.param("paid=false", False, id="bool_false"),
        pytest.param(
            "stay=2026-12-01T15:00:00Z/2026-12-03T10:00:00Z",
            {"start": "2026-12-01T15:00:00Z", "end": "2026-12-03T10:00:00Z"},
            id="timerange",
        ),
        pytest.param("note=a, b=c", "a, b=c", id="string_keeps_commas_and_equals"),
    ],
)
def test_field_value_pairs(typed: str, expected: object) -> None:
    name = typed.partition("=")[0]
    assert parse_terms([typed], SCHEMA, "--terms") == {name: expected}


def test_pairs_combine_commas_and_repeats() -> None:
    assert parse_terms(["nights=2,paid=no", "note=hi"], SCHEMA, "--terms") == {
        "nights": 2,
        "paid": False,
        "note": "hi",
    }


@pytest.mark.parametrize(
    "typed",
    [
        pytest.param("price=1.001", id="too_many_decimals"),
        pytest.param("yen=1.5", id="yen_has_no_decimals"),
        pytest.param("price=-1", id="negative"),
        pytest.param("price=90 USD", id="other_currency"),
        pytest.param("price=lots", id="not_a_number"),
        pytest.param("price=NaN", id="nan"),
        pytest.param("nights=two", id="int_in_words"),
        pytest.param("paid=maybe", id="bool_undecided"),
        pytest.param("stay=2026-12-01", id="timerange_without_end"),
        pytest.param("colour=red", id="unknown_field"),
        pytest.param("nights", id="no_equals"),
    ],
)
def test_bad_pairs_are_usage_errors(typed: str) -> None:
    with pytest.raises(typer.BadParameter):
        parse_terms([typed], SCHEMA, "--terms")


@pytest.mark.parametrize(
    ("spec", "value", "shown"),
    [
        pytest.param(SCHEMA["price"], {"amount_minor": 9005, "currency": "EUR"}, "90.05 EUR"),
        pytest.param(SCHEMA["yen"], {"amount_minor": 1200, "currency": "JPY"}, "1200 JPY"),
        pytest.param(SCHEMA["paid"], True, "yes"),
        pytest.param(SCHEMA["stay"], {"start": "a", "end": "b"}, "a → b"),
        pytest.param(SCHEMA["nights"], 3, "3"),
        pytest.param(None, None, "—"),
    ],
)
def test_format_value(spec: dict[str, Any] | None, value: object, shown: str) -> None:
    assert format_value(spec, value) == shown


def test_format_limit() -> None:
    price = SCHEMA["price"]
    low, high = {"amount_minor": 8000, "currency": "EUR"}, {"amount_minor": 9500, "currency": "EUR"}
    assert format_limit(price, {"min": low, "max": high}) == "at least 80.00 EUR, at most 95.00 EUR"
    assert format_limit({"type": "enum"}, {"one_of": ["M", "S"]}) == "one of M, S"
    assert format_limit(SCHEMA["paid"], {"equals": True}) == "must be yes"

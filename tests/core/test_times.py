"""Time on the wire (`accord/core/times.py`): UTC RFC 3339, written `YYYY-MM-DDTHH:MM:SSZ`."""

import re
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.core.times import format_time, parse_time

WIRE_FORMAT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
AT = datetime(2026, 11, 30, 10, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("2026-11-30T10:00:00Z", AT, id="zulu"),
        pytest.param("2026-11-30t10:00:00z", AT, id="lowercase_t_and_z"),
        pytest.param("2026-11-30T10:00:00+00:00", AT, id="zero_offset"),
        pytest.param("2026-11-30T10:00:00-00:00", AT, id="unknown_local_offset"),
        pytest.param("2026-11-30T11:00:00+01:00", AT, id="positive_offset"),
        pytest.param("2026-11-30T05:30:00-04:30", AT, id="negative_offset"),
        pytest.param("2026-12-01T00:00:00+14:00", AT, id="offset_crosses_the_day"),
        pytest.param("2026-11-30T10:00:00.250Z", AT.replace(microsecond=250000), id="fraction"),
    ],
)
def test_parse_time_accepts(text: str, expected: datetime) -> None:
    parsed = parse_time(text)
    assert parsed == expected
    assert parsed.utcoffset() == timedelta(0)
    assert parsed.tzinfo is UTC


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("2026-11-30T10:00:00", id="naive"),
        pytest.param("2026-11-30T10:00:00.123456", id="naive_with_fraction"),
        pytest.param("2026-11-30", id="date_only"),
        pytest.param("2026-11-30T", id="date_and_t"),
        pytest.param("2026-11-30 10:00:00Z", id="space_separator"),
        pytest.param("10:00:00Z", id="time_only"),
        pytest.param("garbage", id="garbage"),
        pytest.param("garbage-garbage-garbage", id="long_garbage"),
        pytest.param("", id="empty"),
        pytest.param("2026-13-30T10:00:00Z", id="month_13"),
        pytest.param("2026-02-30T10:00:00Z", id="february_30"),
        pytest.param("2026-11-30T24:00:00Z", id="hour_24"),
        pytest.param("2026-11-30T10:00:60Z", id="second_60"),
        pytest.param("2026-11-30T10:00:00Q", id="bad_zone_letter"),
        pytest.param("1764496800", id="epoch_seconds"),
        # Forms `datetime.fromisoformat` takes but RFC 3339 does not.
        pytest.param("2026-11-30T10:00+01:00", id="no_seconds"),
        pytest.param("2026-W48-1T10:00:00Z", id="iso_week_date"),
        pytest.param("2026-11-30T10:00:00+0100", id="offset_without_colon"),
        pytest.param("2026-11-30T10:00:00+01", id="offset_hours_only"),
        pytest.param("2026-11-30T10:00:00,5Z", id="comma_fraction"),
    ],
)
def test_parse_time_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        parse_time(text)


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        pytest.param(AT, "2026-11-30T10:00:00Z", id="utc"),
        pytest.param(
            datetime(2026, 11, 30, 11, 0, 0, tzinfo=timezone(timedelta(hours=1))),
            "2026-11-30T10:00:00Z",
            id="converted_to_utc",
        ),
        pytest.param(
            datetime(2026, 11, 30, 23, 30, tzinfo=timezone(timedelta(hours=-5))),
            "2026-12-01T04:30:00Z",
            id="converted_across_the_day",
        ),
        pytest.param(AT.replace(microsecond=999999), "2026-11-30T10:00:00Z", id="drops_fraction"),
        pytest.param(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "2026-01-02T03:04:05Z", id="pads"),
    ],
)
def test_format_time(at: datetime, expected: str) -> None:
    assert format_time(at) == expected


aware = st.datetimes(
    min_value=datetime(1970, 1, 1),
    max_value=datetime(9999, 12, 30),
    timezones=st.sampled_from(
        [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
    ),
)


@given(aware)
def test_format_then_parse_gives_the_instant_to_the_second(at: datetime) -> None:
    text = format_time(at)
    assert WIRE_FORMAT.fullmatch(text)
    parsed = parse_time(text)
    assert parsed == at.replace(microsecond=0)
    assert format_time(parsed) == text

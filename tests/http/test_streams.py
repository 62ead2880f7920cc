"""Where an event stream resumes: Last-Event-ID is an id a stream could have sent, or refused
before the stream starts."""

import pytest

from accord.core.refusals import RefusalCode, Refused
from accord.http.streams import resume_after


@pytest.mark.parametrize(
    ("header", "after"),
    [
        pytest.param(None, 0, id="absent"),
        pytest.param("0", 0, id="zero"),
        pytest.param("42", 42, id="an_id"),
        pytest.param("007", 7, id="leading_zeros"),
        pytest.param("9223372036854775807", 2**63 - 1, id="the_largest_id"),
    ],
)
def test_a_stream_resumes_after_the_id_it_was_given(header: str | None, after: int) -> None:
    assert resume_after(header) == after


@pytest.mark.parametrize(
    "header",
    [
        pytest.param("", id="empty"),
        pytest.param("abc", id="not_a_number"),
        pytest.param("-1", id="negative"),
        pytest.param("+1", id="signed"),
        pytest.param(" 1", id="padded"),
        pytest.param("1.0", id="fraction"),
        pytest.param("\u00b2", id="superscript_digit"),
        pytest.param("\u0661", id="arabic_indic_digit"),
        pytest.param("9223372036854775808", id="past_64_bits"),
        pytest.param("1" * 40, id="forty_digits"),
    ],
)
def test_a_last_event_id_no_stream_could_have_sent_is_refused(header: str) -> None:
    with pytest.raises(Refused) as refused:
        resume_after(header)
    assert refused.value.refusal.code is RefusalCode.INVALID_REQUEST
    assert "Last-Event-ID" in refused.value.refusal.details["fields"]

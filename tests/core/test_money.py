"""ISO 4217 money in minor units (`accord/core/money.py`)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.core.jsonio import MAX_SAFE_INTEGER
from accord.core.money import currency_exponent, format_money, is_amount_minor, is_currency


@pytest.mark.parametrize(
    ("code", "exponent"),
    [
        pytest.param("USD", 2, id="usd"),
        pytest.param("EUR", 2, id="eur"),
        pytest.param("GBP", 2, id="gbp"),
        pytest.param("JPY", 0, id="jpy_no_minor_unit"),
        pytest.param("KRW", 0, id="krw_no_minor_unit"),
        pytest.param("BHD", 3, id="bhd_three_digits"),
        pytest.param("KWD", 3, id="kwd_three_digits"),
        pytest.param("CLF", 4, id="clf_four_digits"),
        pytest.param("XYZ", None, id="unknown_code"),
        pytest.param("usd", None, id="lowercase"),
        pytest.param("Usd", None, id="mixed_case"),
        pytest.param("US", None, id="two_letters"),
        pytest.param("USDT", None, id="four_letters"),
        pytest.param("", None, id="empty"),
        pytest.param(" USD", None, id="padded"),
        pytest.param("840", None, id="numeric_code"),
        pytest.param("XAU", None, id="gold"),
        pytest.param("XAG", None, id="silver"),
        pytest.param("XDR", None, id="special_drawing_rights"),
        pytest.param("XTS", None, id="testing_code"),
        pytest.param("XXX", None, id="no_currency"),
    ],
)
def test_currency_exponent(code: str, exponent: int | None) -> None:
    assert currency_exponent(code) == exponent
    assert is_currency(code) is (exponent is not None)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param(0, True, id="zero"),
        pytest.param(1, True, id="one"),
        pytest.param(12345, True, id="ordinary"),
        pytest.param(MAX_SAFE_INTEGER, True, id="max_safe_integer"),
        pytest.param(-1, False, id="negative"),
        pytest.param(MAX_SAFE_INTEGER + 1, False, id="above_safe_range"),
        pytest.param(10**30, False, id="huge"),
        pytest.param(True, False, id="bool_true"),
        pytest.param(False, False, id="bool_false"),
        pytest.param(1.0, False, id="integral_float"),
        pytest.param(12.34, False, id="float"),
        pytest.param("100", False, id="string"),
        pytest.param(None, False, id="none"),
    ],
)
def test_is_amount_minor(value: object, expected: bool) -> None:
    assert is_amount_minor(value) is expected


@given(st.integers(min_value=0, max_value=MAX_SAFE_INTEGER))
def test_every_safe_non_negative_integer_is_an_amount(value: int) -> None:
    assert is_amount_minor(value)


@pytest.mark.parametrize(
    ("amount_minor", "currency", "expected"),
    [
        pytest.param(12345, "EUR", "123.45 EUR", id="eur"),
        pytest.param(0, "USD", "0.00 USD", id="zero_usd"),
        pytest.param(5, "USD", "0.05 USD", id="cents_padded"),
        pytest.param(100, "USD", "1.00 USD", id="whole_dollar"),
        pytest.param(1234, "JPY", "1234 JPY", id="jpy_no_decimals"),
        pytest.param(1234, "BHD", "1.234 BHD", id="bhd_three_decimals"),
        pytest.param(1, "BHD", "0.001 BHD", id="bhd_padded"),
        pytest.param(MAX_SAFE_INTEGER, "USD", "90071992547409.91 USD", id="max_safe_usd"),
        pytest.param(100, "XYZ", "100 XYZ", id="unknown_currency_as_is"),
    ],
)
def test_format_money(amount_minor: int, currency: str, expected: str) -> None:
    assert format_money(amount_minor, currency) == expected


@given(st.integers(min_value=0, max_value=MAX_SAFE_INTEGER), st.sampled_from(["USD", "BHD"]))
def test_format_money_reads_back(amount_minor: int, currency: str) -> None:
    number, code = format_money(amount_minor, currency).split(" ")
    assert code == currency
    whole, frac = number.split(".")
    assert int(whole + frac) == amount_minor
    assert len(frac) == currency_exponent(currency)

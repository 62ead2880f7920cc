"""Reading, writing and comparing the adviser's values (`accord/adviser/values.py`,
adviser-api.md, Values): one row per form read and per form refused."""

from datetime import date
from decimal import Decimal
from typing import Any, Final

import iso4217
import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.adviser.deal import Topic
from accord.adviser.values import (
    Condition,
    Money,
    at_least_as_good,
    better,
    compare_values,
    evaluate_condition,
    parse_condition,
    read_date,
    read_enum,
    read_money,
    read_number,
    read_topic_value,
    read_value,
    topic_currency,
    topic_direction,
    topic_kind,
    write_money,
)
from accord.core.jsonio import MAX_SAFE_INTEGER
from accord.core.money import is_currency

SUPPORT: Final = ["premium", "standard", "basic"]  # best first


def bound(value: str | None) -> dict[str, Any]:
    return {"value": value, "rationale": None, "evidence_status": "UNKNOWN"}


def topic(
    target: str | None = None,
    minimum: str | None = None,
    *,
    topic_id: str = "price",
    **x_accord: Any,
) -> Topic:
    """A topic as a state holds it, with only what values read."""
    return Topic.model_validate(
        {
            "topic_id": topic_id,
            "topic": topic_id,
            "priority": "critical",
            "current_position_user": None,
            "current_position_counterpart": None,
            "best_target": bound(target),
            "minimum_acceptable": bound(minimum),
            "opening_position": None,
            "tradeoffs_within_topic": [],
            "cross_topic_trade_links": [],
            "status": "open",
            "x_accord": x_accord or None,
        }
    )


# Topics the comparison tables use, each with its kind and direction from the spec's defaults or
# its `x_accord`.
SALARY: Final = topic("USD 120,000.00", "USD 100,000")  # money, higher is better
PRICE: Final = topic("EUR 900", "EUR 1,000.00")  # money, lower is better
UNITS: Final = topic("500", "400")  # number, higher is better
DAYS: Final = topic("30", "45")  # number, lower is better
START: Final = topic("2025-01-01", "2025-03-01")  # date, earlier is better
WARRANTY: Final = topic("2026-12-31", "2026-06-30")  # date, later is better
SUPPORT_TOPIC: Final = topic("premium", "standard", kind="enum", choices=SUPPORT)
NOTES: Final = topic("fast delivery", "any delivery")  # text
FLAT: Final = topic("USD 100", "USD 100")  # target equals minimum: direction unknown
NO_MINIMUM: Final = topic("USD 100")  # direction unknown
DECLARED: Final = topic(kind="money", direction="lower_is_better", currency="JPY")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("USD 1,250.00", Money(125000, "USD"), id="grouped_with_decimals"),
        pytest.param("USD 1250", Money(125000, "USD"), id="plain_whole"),
        pytest.param("USD 1250.5", Money(125050, "USD"), id="fewer_decimals"),
        pytest.param("USD 0.01", Money(1, "USD"), id="one_cent"),
        pytest.param("USD 0", Money(0, "USD"), id="zero"),
        pytest.param("USD 007", Money(700, "USD"), id="leading_zeros_ungrouped"),
        pytest.param("USD 1,234,567.89", Money(123456789, "USD"), id="two_groups"),
        pytest.param("JPY 1,000", Money(1000, "JPY"), id="jpy_no_decimals"),
        pytest.param("KWD 1.234", Money(1234, "KWD"), id="kwd_three_decimals"),
        pytest.param("CLF 1.2345", Money(12345, "CLF"), id="clf_four_decimals"),
        pytest.param("JPY 1000.0", None, id="jpy_with_decimals"),
        pytest.param("USD 1.234", None, id="usd_three_decimals"),
        pytest.param("KWD 1.2345", None, id="kwd_four_decimals"),
        pytest.param("USD 12,50", None, id="short_group"),
        pytest.param("USD 1,2500", None, id="long_group"),
        pytest.param("USD 1250,000", None, id="long_first_group"),
        pytest.param("USD 0,250", None, id="grouped_leading_zero"),
        pytest.param("USD ,250", None, id="leading_comma"),
        pytest.param("USD 1,", None, id="trailing_comma"),
        pytest.param("USD 12.", None, id="point_without_decimals"),
        pytest.param("USD .5", None, id="point_without_whole"),
        pytest.param("XYZ 100", None, id="unknown_currency"),
        pytest.param("XAU 100", None, id="currency_without_minor_unit"),
        pytest.param("usd 100", None, id="lowercase_code"),
        pytest.param("USD -5", None, id="negative"),
        pytest.param("USD 1 250", None, id="space_grouping"),
        pytest.param("USD  100", None, id="two_spaces"),
        pytest.param("USD100", None, id="no_space"),
        pytest.param("100 USD", None, id="code_after"),
        pytest.param("$100", None, id="symbol"),
        pytest.param(" USD 100", None, id="padded"),
        pytest.param("USD 100\n", None, id="trailing_newline"),
        pytest.param("USD １００", None, id="non_ascii_digits"),
        pytest.param(f"JPY {MAX_SAFE_INTEGER}", Money(MAX_SAFE_INTEGER, "JPY"), id="max_safe"),
        pytest.param(f"JPY {MAX_SAFE_INTEGER + 1}", None, id="above_safe_range"),
        pytest.param("USD", None, id="code_alone"),
        pytest.param("", None, id="empty"),
        pytest.param(None, None, id="unset"),
    ],
)
def test_read_money(text: str | None, expected: Money | None) -> None:
    assert read_money(text) == expected


@pytest.mark.parametrize(
    ("text", "currency", "expected"),
    [
        pytest.param("EUR 10", "EUR", Money(1000, "EUR"), id="same_currency"),
        pytest.param("EUR 10", "USD", None, id="currency_mismatch"),
        pytest.param("EUR 10", None, Money(1000, "EUR"), id="any_currency"),
    ],
)
def test_read_money_in_a_currency(text: str, currency: str | None, expected: Money | None) -> None:
    assert read_money(text, currency) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("1250", Decimal(1250), id="digits"),
        pytest.param("1,250", Decimal(1250), id="grouped"),
        pytest.param("1,250.75", Decimal("1250.75"), id="grouped_with_decimals"),
        pytest.param("0.125", Decimal("0.125"), id="decimals"),
        pytest.param("-3", Decimal(-3), id="negative"),
        pytest.param("-1,000.5", Decimal("-1000.5"), id="negative_grouped"),
        pytest.param("0", Decimal(0), id="zero"),
        pytest.param("12,50", None, id="short_group"),
        pytest.param("1,2345", None, id="long_group"),
        pytest.param("0,250", None, id="grouped_leading_zero"),
        pytest.param("+3", None, id="plus_sign"),
        pytest.param("--3", None, id="double_minus"),
        pytest.param("1.", None, id="point_without_decimals"),
        pytest.param(".5", None, id="point_without_whole"),
        pytest.param("1e3", None, id="exponent"),
        pytest.param("NaN", None, id="nan"),
        pytest.param("1.2.3", None, id="two_points"),
        pytest.param("USD 100", None, id="money"),
        pytest.param("30 days", None, id="with_unit"),
        pytest.param("٣", None, id="non_ascii_digit"),
        pytest.param("", None, id="empty"),
        pytest.param(None, None, id="unset"),
    ],
)
def test_read_number(text: str | None, expected: Decimal | None) -> None:
    assert read_number(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("2025-03-01", date(2025, 3, 1), id="date"),
        pytest.param("2024-02-29", date(2024, 2, 29), id="leap_day"),
        pytest.param("2025-02-29", None, id="no_such_day"),
        pytest.param("2025-13-01", None, id="no_such_month"),
        pytest.param("2025-3-1", None, id="unpadded"),
        pytest.param("20250301", None, id="basic_format"),
        pytest.param("2025-W09-6", None, id="week_date"),
        pytest.param("2025-03-01T00:00:00Z", None, id="datetime"),
        pytest.param("01/03/2025", None, id="slashes"),
        pytest.param("", None, id="empty"),
        pytest.param(None, None, id="unset"),
    ],
)
def test_read_date(text: str | None, expected: date | None) -> None:
    assert read_date(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("premium", 0, id="best"),
        pytest.param("basic", 2, id="worst"),
        pytest.param("gold", None, id="not_a_choice"),
        pytest.param("Premium", None, id="other_case"),
        pytest.param("", None, id="empty"),
        pytest.param(None, None, id="unset"),
    ],
)
def test_read_enum(text: str | None, expected: int | None) -> None:
    assert read_enum(text, SUPPORT) == expected


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        pytest.param("USD 5", "money", Money(500, "USD"), id="money"),
        pytest.param("5", "number", Decimal(5), id="number"),
        pytest.param("2025-01-01", "date", date(2025, 1, 1), id="date"),
        pytest.param("basic", "enum", 2, id="enum"),
        pytest.param("anything", "text", None, id="text_never_reads"),
        pytest.param("5", "money", None, id="number_as_money"),
        pytest.param("USD 5", "number", None, id="money_as_number"),
    ],
)
def test_read_value(text: str, kind: Any, expected: object) -> None:
    assert read_value(text, kind, choices=SUPPORT) == expected


@pytest.mark.parametrize(
    ("subject", "text", "expected"),
    [
        pytest.param(SALARY, "USD 1", Money(100, "USD"), id="topic_currency"),
        pytest.param(SALARY, "EUR 1", None, id="other_currency"),
        pytest.param(DECLARED, "JPY 1,000", Money(1000, "JPY"), id="declared_currency"),
        pytest.param(DECLARED, "USD 1", None, id="not_the_declared_currency"),
        pytest.param(SUPPORT_TOPIC, "standard", 1, id="enum_choice"),
        pytest.param(SUPPORT_TOPIC, "gold", None, id="enum_not_in_choices"),
        pytest.param(topic("a", kind="enum"), "a", None, id="enum_without_choices"),
        pytest.param(UNITS, "1,000", Decimal(1000), id="number"),
        pytest.param(START, "2025-02-30", None, id="malformed_date"),
        pytest.param(NOTES, "fast delivery", None, id="text"),
        pytest.param(UNITS, "", None, id="empty"),
    ],
)
def test_read_topic_value(subject: Topic, text: str, expected: object) -> None:
    assert read_topic_value(subject, text) == expected


@pytest.mark.parametrize(
    ("money", "text"),
    [
        pytest.param(Money(125000, "USD"), "USD 1,250.00", id="usd"),
        pytest.param(Money(0, "USD"), "USD 0.00", id="zero"),
        pytest.param(Money(5, "EUR"), "EUR 0.05", id="cents_only"),
        pytest.param(Money(1234567, "JPY"), "JPY 1,234,567", id="jpy_no_decimals"),
        pytest.param(Money(1234, "KWD"), "KWD 1.234", id="kwd_three_decimals"),
        pytest.param(Money(100000, "GBP"), "GBP 1,000.00", id="exact_thousand"),
        pytest.param(Money(99999, "GBP"), "GBP 999.99", id="below_a_thousand"),
    ],
)
def test_write_money(money: Money, text: str) -> None:
    assert write_money(money) == text
    assert read_money(text) == money


@pytest.mark.parametrize(
    "money",
    [
        pytest.param(Money(1, "XYZ"), id="unknown_currency"),
        pytest.param(Money(-1, "USD"), id="negative"),
        pytest.param(Money(MAX_SAFE_INTEGER + 1, "USD"), id="above_safe_range"),
    ],
)
def test_write_money_refuses_what_no_reader_gives(money: Money) -> None:
    with pytest.raises(ValueError, match="not writable money"):
        write_money(money)


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        pytest.param("USD 1250", "USD 1,250.00", id="plain"),
        pytest.param("USD 1,250.5", "USD 1,250.50", id="short_decimals"),
        pytest.param("USD 007", "USD 7.00", id="leading_zeros"),
        pytest.param("JPY 1000000", "JPY 1,000,000", id="jpy"),
    ],
)
def test_readable_money_writes_canonically(written: str, canonical: str) -> None:
    money = read_money(written)
    assert money is not None
    assert write_money(money) == canonical


CURRENCIES: Final = sorted(c.value for c in iso4217.Currency if is_currency(c.value))


@given(
    amount_minor=st.integers(min_value=0, max_value=MAX_SAFE_INTEGER),
    currency=st.sampled_from(CURRENCIES),
)
def test_written_money_reads_back(amount_minor: int, currency: str) -> None:
    money = Money(amount_minor, currency)
    assert read_money(write_money(money)) == money


@pytest.mark.parametrize(
    ("subject", "kind"),
    [
        pytest.param(SALARY, "money", id="money_target"),
        pytest.param(UNITS, "number", id="number_target"),
        pytest.param(START, "date", id="date_target"),
        pytest.param(NOTES, "text", id="text_target"),
        pytest.param(topic("gold", choices=["gold", "silver"]), "enum", id="target_in_choices"),
        pytest.param(topic("bronze", choices=["gold"]), "text", id="target_not_in_choices"),
        pytest.param(topic("USD 1.234"), "text", id="unreadable_money_target"),
        pytest.param(topic(None, "2025-01-01"), "date", id="minimum_while_target_unset"),
        pytest.param(topic("soon", "2025-01-01"), "text", id="target_form_wins"),
        pytest.param(topic(), "text", id="nothing_set"),
        pytest.param(topic("100", kind="money"), "money", id="declared_kind_wins"),
    ],
)
def test_topic_kind(subject: Topic, kind: str) -> None:
    assert topic_kind(subject) == kind


@pytest.mark.parametrize(
    ("subject", "currency"),
    [
        pytest.param(SALARY, "USD", id="target_currency"),
        pytest.param(topic("soon", "EUR 5"), "EUR", id="minimum_currency"),
        pytest.param(topic("USD 5", currency="EUR"), "EUR", id="declared_currency_wins"),
        pytest.param(UNITS, None, id="no_money"),
    ],
)
def test_topic_currency(subject: Topic, currency: str | None) -> None:
    assert topic_currency(subject) == currency


@pytest.mark.parametrize(
    ("subject", "direction"),
    [
        pytest.param(SALARY, "higher_is_better", id="money_target_above_minimum"),
        pytest.param(PRICE, "lower_is_better", id="money_target_below_minimum"),
        pytest.param(UNITS, "higher_is_better", id="number_target_above_minimum"),
        pytest.param(DAYS, "lower_is_better", id="number_target_below_minimum"),
        pytest.param(START, "lower_is_better", id="date_target_earlier"),
        pytest.param(WARRANTY, "higher_is_better", id="date_target_later"),
        pytest.param(SUPPORT_TOPIC, "higher_is_better", id="enum_by_rank"),
        pytest.param(
            topic("basic", "premium", kind="enum", choices=SUPPORT, direction="lower_is_better"),
            "higher_is_better",
            id="enum_choices_decide_not_direction",
        ),
        pytest.param(DECLARED, "lower_is_better", id="declared"),
        pytest.param(
            topic("USD 200", "USD 100", direction="lower_is_better"),
            "lower_is_better",
            id="declared_wins_over_bounds",
        ),
        pytest.param(FLAT, None, id="target_equals_minimum"),
        pytest.param(NO_MINIMUM, None, id="no_minimum"),
        pytest.param(topic("USD 200", "EUR 100"), None, id="minimum_in_other_currency"),
        pytest.param(topic("2025-01-01", "soon"), None, id="unreadable_minimum"),
        pytest.param(NOTES, None, id="text"),
    ],
)
def test_topic_direction(subject: Topic, direction: str | None) -> None:
    assert topic_direction(subject) == direction


@pytest.mark.parametrize(
    ("subject", "a", "b", "expected"),
    [
        pytest.param(SALARY, "USD 110,000", "USD 100,000", True, id="money_higher_better"),
        pytest.param(SALARY, "USD 90,000", "USD 100,000", False, id="money_higher_worse"),
        pytest.param(SALARY, "USD 100000.00", "USD 100,000", True, id="money_equal"),
        pytest.param(PRICE, "EUR 950", "EUR 1,000", True, id="money_lower_better"),
        pytest.param(PRICE, "EUR 1,050", "EUR 1,000", False, id="money_lower_worse"),
        pytest.param(SALARY, "EUR 200,000", "USD 100,000", None, id="money_other_currency"),
        pytest.param(SALARY, "USD 1.005", "USD 1", None, id="money_unreadable"),
        pytest.param(UNITS, "450", "400", True, id="number_higher_better"),
        pytest.param(UNITS, "399.5", "400", False, id="number_higher_worse"),
        pytest.param(DAYS, "30", "45", True, id="number_lower_better"),
        pytest.param(DAYS, "60", "45", False, id="number_lower_worse"),
        pytest.param(DAYS, "1,000", "45", False, id="number_grouped"),
        pytest.param(DAYS, "30 days", "45", None, id="number_unreadable"),
        pytest.param(START, "2025-02-01", "2025-03-01", True, id="date_earlier_better"),
        pytest.param(START, "2025-04-01", "2025-03-01", False, id="date_earlier_worse"),
        pytest.param(WARRANTY, "2027-01-01", "2026-06-30", True, id="date_later_better"),
        pytest.param(WARRANTY, "2026-01-01", "2026-06-30", False, id="date_later_worse"),
        pytest.param(START, "2025-02-30", "2025-03-01", None, id="date_malformed"),
        pytest.param(SUPPORT_TOPIC, "premium", "standard", True, id="enum_earlier_better"),
        pytest.param(SUPPORT_TOPIC, "standard", "standard", True, id="enum_same"),
        pytest.param(SUPPORT_TOPIC, "basic", "standard", False, id="enum_later_worse"),
        pytest.param(SUPPORT_TOPIC, "gold", "standard", None, id="enum_not_in_choices"),
        pytest.param(NOTES, "fast delivery", "fast delivery", None, id="text_never_orders"),
        pytest.param(FLAT, "USD 200", "USD 100", None, id="direction_unknown"),
        pytest.param(NO_MINIMUM, "USD 200", "USD 100", None, id="no_minimum"),
        pytest.param(DECLARED, "JPY 900", "JPY 1,000", True, id="declared_lower_better"),
        pytest.param(SALARY, None, "USD 100,000", None, id="unset"),
        pytest.param(SALARY, "", "USD 100,000", None, id="empty"),
    ],
)
def test_at_least_as_good(subject: Topic, a: str | None, b: str, expected: bool | None) -> None:
    assert at_least_as_good(subject, a, b) is expected


@pytest.mark.parametrize(
    ("subject", "a", "b", "expected"),
    [
        pytest.param(SALARY, "USD 110,000", "USD 100,000", True, id="better"),
        pytest.param(SALARY, "USD 100,000.00", "USD 100,000", False, id="equal_is_not_better"),
        pytest.param(PRICE, "EUR 1,050", "EUR 1,000", False, id="worse"),
        pytest.param(SUPPORT_TOPIC, "premium", "standard", True, id="enum_better"),
        pytest.param(FLAT, "USD 200", "USD 100", None, id="direction_unknown"),
        pytest.param(NOTES, "a", "b", None, id="text"),
    ],
)
def test_better(subject: Topic, a: str, b: str, expected: bool | None) -> None:
    assert better(subject, a, b) is expected


@pytest.mark.parametrize(
    ("subject", "a", "b", "expected"),
    [
        pytest.param(PRICE, "EUR 900", "EUR 1,000", -1, id="money_below"),
        pytest.param(PRICE, "EUR 1000", "EUR 1,000.00", 0, id="money_equal"),
        pytest.param(DAYS, "60", "45", 1, id="number_above_whatever_direction"),
        pytest.param(START, "2025-01-01", "2025-03-01", -1, id="date_earlier"),
        pytest.param(SUPPORT_TOPIC, "premium", "basic", 1, id="enum_best_greatest"),
        pytest.param(topic(kind="money"), "USD 1", "EUR 1", None, id="currencies_differ"),
        pytest.param(NOTES, "a", "a", None, id="text"),
    ],
)
def test_compare_values(subject: Topic, a: str, b: str, expected: int | None) -> None:
    assert compare_values(subject, a, b) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("price >= USD 1,000", Condition("price", ">=", "USD 1,000"), id="ge"),
        pytest.param("price <= USD 1,000", Condition("price", "<=", "USD 1,000"), id="le"),
        pytest.param("units > 10", Condition("units", ">", "10"), id="gt"),
        pytest.param("units < 10", Condition("units", "<", "10"), id="lt"),
        pytest.param("support = premium", Condition("support", "=", "premium"), id="eq"),
        pytest.param(
            "  start_date   <=  2025-03-01 ",
            Condition("start_date", "<=", "2025-03-01"),
            id="spaces",
        ),
        pytest.param(
            "topic-3 = next business day",
            Condition("topic-3", "=", "next business day"),
            id="value_with_spaces",
        ),
        pytest.param("price>=USD 1,000", None, id="no_spaces"),
        pytest.param("price => 100", None, id="reversed_operator"),
        pytest.param("price == 100", None, id="double_equals"),
        pytest.param("price != 100", None, id="not_equal"),
        pytest.param("price >=", None, id="no_value"),
        pytest.param(">= 100", None, id="no_topic"),
        pytest.param("payment terms <= 30 days", None, id="topic_with_spaces"),
        pytest.param("100 >= 5", None, id="all_digit_id"),
        pytest.param("They sign by Friday", None, id="plain_text"),
        pytest.param("price >= 1\nand more", None, id="two_lines"),
        pytest.param("", None, id="empty"),
    ],
)
def test_parse_condition(text: str, expected: Condition | None) -> None:
    assert parse_condition(text) == expected


TERMS: Final = {
    "price": "EUR 950",
    "units": "450",
    "start": "2025-02-01",
    "support": "standard",
    "notes": "fast delivery",
    "days": "thirty",
}
TOPICS: Final = {
    "price": topic("EUR 900", "EUR 1,000.00", topic_id="price"),
    "units": topic("500", "400", topic_id="units"),
    "start": topic("2025-01-01", "2025-03-01", topic_id="start"),
    "support": topic("premium", "standard", topic_id="support", kind="enum", choices=SUPPORT),
    "notes": topic("fast delivery", topic_id="notes"),
    "days": topic("30", "45", topic_id="days"),
    "unset": topic("30", "45", topic_id="unset"),
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("price <= EUR 1,000", True, id="money_le_holds"),
        pytest.param("price <= EUR 900", False, id="money_le_fails"),
        pytest.param("price >= EUR 950.00", True, id="money_ge_equal"),
        pytest.param("price >= EUR 1,000", False, id="money_ge_fails"),
        pytest.param("price > EUR 949.99", True, id="money_gt_holds"),
        pytest.param("price > EUR 950", False, id="money_gt_equal"),
        pytest.param("price < EUR 950", False, id="money_lt_equal"),
        pytest.param("price < EUR 1,000", True, id="money_lt_holds"),
        pytest.param("price = EUR 950", True, id="money_eq_other_form"),
        pytest.param("price = EUR 951", False, id="money_eq_fails"),
        pytest.param("price <= USD 1,000", None, id="money_other_currency"),
        pytest.param("price <= EUR 1.001", None, id="money_too_many_decimals"),
        pytest.param("units >= 400", True, id="number_ge_holds"),
        pytest.param("units < 400", False, id="number_lt_fails"),
        pytest.param("units = 450.0", True, id="number_eq_by_value"),
        pytest.param("units >= 4,00", None, id="number_bad_grouping"),
        pytest.param("start <= 2025-03-01", True, id="date_le_holds"),
        pytest.param("start > 2025-02-01", False, id="date_gt_equal"),
        pytest.param("start < 2025-31-01", None, id="date_malformed"),
        pytest.param("support >= standard", True, id="enum_ge_equal"),
        pytest.param("support > standard", False, id="enum_gt_equal"),
        pytest.param("support >= premium", False, id="enum_ge_better_choice"),
        pytest.param("support < premium", True, id="enum_lt_better_choice"),
        pytest.param("support = standard", True, id="enum_eq"),
        pytest.param("support = gold", None, id="enum_not_in_choices"),
        pytest.param("notes = fast delivery", True, id="text_eq_holds"),
        pytest.param("notes = slow delivery", False, id="text_eq_fails"),
        pytest.param("notes >= fast delivery", None, id="text_has_no_order"),
        pytest.param("days <= 45", None, id="unreadable_term"),
        pytest.param("unset <= 45", None, id="unset_term"),
    ],
)
def test_evaluate_condition(text: str, expected: bool | None) -> None:
    condition = parse_condition(text)
    assert condition is not None
    assert evaluate_condition(condition, TOPICS[condition.topic_id], TERMS) is expected


def test_a_condition_is_checked_against_its_own_topic() -> None:
    with pytest.raises(ValueError, match="checked against"):
        evaluate_condition(Condition("price", "=", "EUR 1"), TOPICS["units"], TERMS)

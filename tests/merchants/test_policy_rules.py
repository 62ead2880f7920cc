"""The rules of a policy (spec/arbitrated-rest.md, Policy, and the decisions in
accord/protocols/arbitrated/policy.py): one row per rule, naming the field it refuses."""

from typing import Any

import pytest
from pydantic import ValidationError

from accord.core.refusals import Refusal, RefusalCode
from accord.protocols.arbitrated.policy import (
    Policy,
    PolicyRequest,
    band_top,
    policy_for_path,
    policy_problems,
)
from tests.merchants.conftest import DROP, POLICY, policy_body

MAX_SAFE = 2**53 - 1


def _inclusion(kind: str, value: int = 100) -> dict[str, Any]:
    return {"kind": kind, "value_minor": value, "included_by_default": False}


REFUSED = [
    pytest.param({"sku": ""}, "sku", id="sku_empty"),
    pytest.param({"sku": "x" * 257}, "sku", id="sku_longer_than_256"),
    pytest.param({"sku": "bikes/blue"}, "sku", id="sku_with_slash"),
    pytest.param({"sku": "bike\nblue"}, "sku", id="sku_with_control_character"),
    pytest.param({"sku": " bike"}, "sku", id="sku_with_leading_space"),
    pytest.param({"description": ""}, "description", id="description_empty"),
    pytest.param({"description": "   "}, "description", id="description_only_spaces"),
    pytest.param({"description": "d" * 501}, "description", id="description_too_long"),
    pytest.param({"currency": "ZZZ"}, "currency", id="currency_unknown"),
    pytest.param({"currency": "eur"}, "currency", id="currency_lowercase"),
    pytest.param({"currency": "XAU"}, "currency", id="currency_without_minor_units"),
    pytest.param({"list_price_minor": -1}, "list_price_minor", id="list_price_negative"),
    pytest.param({"list_price_minor": 0}, "list_price_minor", id="list_price_zero"),
    pytest.param(
        {"list_price_minor": MAX_SAFE + 1}, "list_price_minor", id="list_price_unsafe_integer"
    ),
    pytest.param({"reference_price_minor": -5}, "reference_price_minor", id="reference_negative"),
    pytest.param({"reference_price_minor": 0}, "reference_price_minor", id="reference_zero"),
    pytest.param(
        {"reference_price_minor": 49901}, "reference_price_minor", id="reference_above_list"
    ),
    pytest.param({"floor_minor": -1}, "floor_minor", id="floor_negative"),
    pytest.param({"floor_minor": MAX_SAFE + 1}, "floor_minor", id="floor_unsafe_integer"),
    pytest.param(
        {"reference_price_minor": 49900, "floor_minor": 49900},
        "floor_minor",
        id="floor_at_list_price",
    ),
    pytest.param(
        {"reference_price_minor": 49900, "floor_minor": 50000},
        "floor_minor",
        id="floor_above_list_price",
    ),
    pytest.param({"floor_minor": 44105}, "floor_minor", id="floor_at_band_top"),
    pytest.param({"floor_minor": 45000}, "floor_minor", id="floor_above_band_top"),
    pytest.param({"inclusions": [_inclusion("")]}, "inclusions.0.kind", id="inclusion_kind_empty"),
    pytest.param(
        {"inclusions": [_inclusion("k" * 65)]},
        "inclusions.0.kind",
        id="inclusion_kind_longer_than_64",
    ),
    pytest.param(
        {"inclusions": [_inclusion("helmet"), _inclusion("helmet")]},
        "inclusions.1.kind",
        id="inclusion_kind_twice",
    ),
    pytest.param(
        {"inclusions": [_inclusion("helmet", -1)]},
        "inclusions.0.value_minor",
        id="inclusion_value_negative",
    ),
    pytest.param(
        {"inclusions": [_inclusion(f"k{i}") for i in range(33)]},
        "inclusions",
        id="more_than_32_inclusions",
    ),
    pytest.param({"max_rounds": 0}, "max_rounds", id="max_rounds_zero"),
    pytest.param({"max_rounds": 101}, "max_rounds", id="max_rounds_above_100"),
    pytest.param({"round_timeout_seconds": 0}, "round_timeout_seconds", id="round_timeout_zero"),
    pytest.param(
        {"round_timeout_seconds": 30 * 86400 + 1},
        "round_timeout_seconds",
        id="round_timeout_above_30_days",
    ),
    pytest.param({"fair_band": "0"}, "fair_band", id="fair_band_zero"),
    pytest.param({"fair_band": "0.0"}, "fair_band", id="fair_band_zero_point_zero"),
    pytest.param({"fair_band": "1"}, "fair_band", id="fair_band_one"),
    pytest.param({"fair_band": "1.5"}, "fair_band", id="fair_band_above_one"),
    pytest.param({"fair_band": "-0.05"}, "fair_band", id="fair_band_negative"),
    pytest.param({"fair_band": ".05"}, "fair_band", id="fair_band_without_leading_zero"),
    pytest.param({"fair_band": "5e-2"}, "fair_band", id="fair_band_exponent"),
    pytest.param({"fair_band": "0.050"}, "fair_band", id="fair_band_trailing_zero"),
    pytest.param({"fair_band": "0.1234567"}, "fair_band", id="fair_band_seven_decimals"),
    pytest.param({"fair_band": " 0.05"}, "fair_band", id="fair_band_with_space"),
    pytest.param({"handoff__ttl_seconds": 0}, "handoff.ttl_seconds", id="ttl_zero"),
    pytest.param(
        {"handoff__ttl_seconds": 365 * 86400 + 1},
        "handoff.ttl_seconds",
        id="ttl_above_365_days",
    ),
    pytest.param(
        {"handoff__checkout_url": "http://shop.example.com/checkout"},
        "handoff.checkout_url",
        id="checkout_url_plain_http",
    ),
    pytest.param(
        {"handoff__checkout_url": "/checkout"}, "handoff.checkout_url", id="checkout_url_relative"
    ),
    pytest.param(
        {"handoff__checkout_url": "ftp://shop.example.com/"},
        "handoff.checkout_url",
        id="checkout_url_other_scheme",
    ),
    pytest.param(
        {"handoff__checkout_url": "https://"}, "handoff.checkout_url", id="checkout_url_no_host"
    ),
    pytest.param(
        {"handoff__checkout_url": "https://shop.example.com/check out"},
        "handoff.checkout_url",
        id="checkout_url_with_space",
    ),
    pytest.param(
        {"handoff__checkout_url": "https://shop.example.com:port/"},
        "handoff.checkout_url",
        id="checkout_url_bad_port",
    ),
    pytest.param(
        {"handoff__checkout_url": "https://shop.example.com/checkout#pay"},
        "handoff.checkout_url",
        id="checkout_url_with_fragment",
    ),
    pytest.param(
        {"handoff__checkout_url": "https://shop.example.com/" + "a" * 2000},
        "handoff.checkout_url",
        id="checkout_url_too_long",
    ),
]

ACCEPTED = [
    pytest.param({}, id="the_example"),
    pytest.param({"sku": "x" * 256}, id="sku_of_256_characters"),
    pytest.param({"sku": "Bike Blue 52 (2026)"}, id="sku_with_inner_spaces"),
    pytest.param({"currency": "JPY"}, id="currency_without_decimals"),
    pytest.param({"currency": "KWD"}, id="currency_with_three_decimals"),
    pytest.param({"floor_minor": 0}, id="floor_zero"),
    pytest.param({"floor_minor": 44104}, id="floor_just_below_band_top"),
    pytest.param({"reference_price_minor": 49900}, id="reference_at_list_price"),
    pytest.param({"inclusions": []}, id="no_inclusions"),
    pytest.param({"inclusions": [_inclusion("k" * 64, 0)]}, id="inclusion_kind_of_64_worth_0"),
    pytest.param(
        {"inclusions": [_inclusion(f"k{i}") for i in range(32)]}, id="exactly_32_inclusions"
    ),
    pytest.param({"max_rounds": 1}, id="max_rounds_one"),
    pytest.param({"max_rounds": 100}, id="max_rounds_100"),
    pytest.param({"round_timeout_seconds": 1}, id="round_timeout_one_second"),
    pytest.param({"fair_band": "0.5"}, id="fair_band_half"),
    pytest.param({"fair_band": "0.999999", "floor_minor": 0}, id="fair_band_six_nines"),
    pytest.param({"handoff__ttl_seconds": 1}, id="ttl_one_second"),
    pytest.param(
        {"handoff__checkout_url": "http://localhost:8080/checkout?x=1"},
        id="checkout_url_http_on_localhost",
    ),
    pytest.param(
        {"handoff__kind": "invoice_url", "handoff__publish": "manual"}, id="manual_invoice_url"
    ),
    pytest.param({"concession": {"style": "conceder"}, "active": False}, id="inactive_conceder"),
]


@pytest.mark.parametrize(("changes", "field"), REFUSED)
def test_a_policy_that_breaks_a_rule_is_refused_naming_the_field(
    changes: dict[str, Any], field: str
) -> None:
    problems = policy_problems(Policy.model_validate(policy_body(**changes)))
    assert list(problems) == [field], problems


@pytest.mark.parametrize("changes", ACCEPTED)
def test_a_policy_within_the_rules_passes(changes: dict[str, Any]) -> None:
    assert policy_problems(Policy.model_validate(policy_body(**changes))) == {}


MALFORMED = [
    pytest.param({"extra": 1}, "extra", id="unknown_member"),
    pytest.param({"handoff__extra": 1}, "handoff", id="unknown_nested_member"),
    pytest.param({"currency": DROP}, "currency", id="missing_member"),
    pytest.param({"list_price_minor": "49900"}, "list_price_minor", id="price_as_string"),
    pytest.param({"list_price_minor": 499.0}, "list_price_minor", id="price_as_float"),
    pytest.param({"max_rounds": True}, "max_rounds", id="bool_for_int"),
    pytest.param({"active": 1}, "active", id="int_for_bool"),
    pytest.param({"fair_band": 0.05}, "fair_band", id="fair_band_as_number"),
    pytest.param({"concession": {"style": "tough"}}, "concession", id="unknown_style"),
    pytest.param({"handoff__kind": "voucher"}, "handoff", id="unknown_handoff_kind"),
    pytest.param({"handoff__publish": "later"}, "handoff", id="unknown_publish"),
    pytest.param({"inclusions": [{"kind": "x"}]}, "inclusions", id="inclusion_incomplete"),
    pytest.param({"inclusions": {"kind": "x"}}, "inclusions", id="inclusions_not_a_list"),
]


@pytest.mark.parametrize(("changes", "member"), MALFORMED)
def test_the_model_is_strict(changes: dict[str, Any], member: str) -> None:
    with pytest.raises(ValidationError) as raised:
        PolicyRequest.model_validate(policy_body(**changes))
    assert {str(error["loc"][0]) for error in raised.value.errors()} == {member}


def test_the_model_has_exactly_the_specs_members() -> None:
    assert set(Policy.model_fields) == set(POLICY)
    assert set(PolicyRequest.model_fields) == set(POLICY)
    assert Policy.model_validate(POLICY).model_dump(mode="json") == POLICY


@pytest.mark.parametrize(
    ("reference", "band", "top"),
    [
        pytest.param(41900, "0.05", 44105, id="spec_example"),
        pytest.param(95, "0.05", 100, id="exact_quotient_is_not_rounded_down_by_floats"),
        pytest.param(1, "0.5", 2, id="half_band"),
        pytest.param(999, "0.999", 999000, id="wide_band"),
        pytest.param(3, "0.000001", 3, id="narrow_band"),
    ],
)
def test_the_band_top_is_exact(reference: int, band: str, top: int) -> None:
    assert band_top(reference, band) == top


@pytest.mark.parametrize(
    ("body_sku", "path_sku", "field"),
    [
        pytest.param(None, "bike-blue-52", None, id="sku_left_to_the_path"),
        pytest.param("bike-blue-52", "bike-blue-52", None, id="sku_equal_to_the_path"),
        pytest.param("bike-red-52", "bike-blue-52", "sku", id="sku_other_than_the_path"),
        pytest.param(None, " bike", "sku", id="bad_sku_in_the_path"),
        pytest.param("BIKE-BLUE-52", "bike-blue-52", "sku", id="skus_are_case_sensitive"),
    ],
)
def test_the_path_names_the_sku(body_sku: str | None, path_sku: str, field: str | None) -> None:
    request = PolicyRequest.model_validate(policy_body(sku=DROP if body_sku is None else body_sku))
    decided = policy_for_path(request, path_sku)
    if field is None:
        assert isinstance(decided, Policy)
        assert decided.sku == path_sku
        return
    assert isinstance(decided, Refusal)
    assert decided.code == RefusalCode.INVALID_REQUEST
    assert list(decided.details["fields"]) == [field]


def test_every_problem_is_reported_at_once() -> None:
    policy = Policy.model_validate(
        policy_body(currency="ZZZ", max_rounds=0, handoff__ttl_seconds=0, floor_minor=45000)
    )
    assert set(policy_problems(policy)) == {
        "currency",
        "max_rounds",
        "handoff.ttl_seconds",
        "floor_minor",
    }

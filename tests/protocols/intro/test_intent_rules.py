"""The rules for writing an intent (spec/intro-api.md, Intents): one row per rule, each with the
members it names in `fields`; and a PATCH's result is valid as a whole, or the PATCH is refused."""

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.core.refusals import RefusalCode
from accord.protocols.intro.intents import (
    IntentInput,
    IntentPatch,
    changed,
    editable,
    intent_problems,
    patch_problems,
    patched,
)

BASE: dict[str, Any] = {"statement": "A cellist for a string quartet", "visibility": "public"}


def problems(**members: Any) -> dict[str, str]:
    return intent_problems(IntentInput.model_validate(BASE | members))


def c(key: str, op: str, value: Any) -> dict[str, Any]:
    return {"key": key, "op": op, "value": value}


@pytest.mark.parametrize(
    ("members", "fields"),
    [
        pytest.param({}, set(), id="statement_and_visibility_suffice"),
        pytest.param({"statement": "x" * 2000}, set(), id="statement_2000"),
        pytest.param({"statement": "é" * 2000}, set(), id="statement_counts_code_points"),
        pytest.param({"statement": "x" * 2001}, {"statement"}, id="statement_2001"),
        pytest.param({"statement": ""}, {"statement"}, id="statement_empty"),
        pytest.param({"statement": " \n\t"}, {"statement"}, id="statement_blank"),
        pytest.param({"constraints": [c("city", "eq", "Lyon")] * 20}, set(), id="constraints_20"),
        pytest.param(
            {"constraints": [c("city", "eq", "Lyon")] * 21}, {"constraints"}, id="constraints_21"
        ),
        pytest.param({"constraints": [c("a" * 64, "eq", 1)]}, set(), id="key_64"),
        pytest.param({"constraints": [c("a" * 65, "eq", 1)]}, {"constraints.0.key"}, id="key_65"),
        pytest.param({"constraints": [c("1a", "eq", 1)]}, {"constraints.0.key"}, id="key_digit"),
        pytest.param({"constraints": [c("City", "eq", 1)]}, {"constraints.0.key"}, id="key_upper"),
        pytest.param({"constraints": [c("a-b", "eq", 1)]}, {"constraints.0.key"}, id="key_dash"),
        pytest.param({"constraints": [c("k", "ne", 1)]}, {"constraints.0.op"}, id="op_unknown"),
        pytest.param({"constraints": [c("k", "eq", "s")]}, set(), id="eq_string"),
        pytest.param({"constraints": [c("k", "eq", 2.5)]}, set(), id="eq_number"),
        pytest.param({"constraints": [c("k", "eq", True)]}, set(), id="eq_boolean"),
        pytest.param({"constraints": [c("k", "eq", None)]}, {"constraints.0.value"}, id="eq_null"),
        pytest.param({"constraints": [c("k", "eq", [1])]}, {"constraints.0.value"}, id="eq_list"),
        pytest.param({"constraints": [c("k", "eq", {})]}, {"constraints.0.value"}, id="eq_object"),
        pytest.param({"constraints": [c("k", "in", ["a", 1, False])]}, set(), id="in_mixed"),
        pytest.param({"constraints": [c("k", "in", list(range(50)))]}, set(), id="in_50"),
        pytest.param(
            {"constraints": [c("k", "in", list(range(51)))]}, {"constraints.0.value"}, id="in_51"
        ),
        pytest.param({"constraints": [c("k", "in", [])]}, {"constraints.0.value"}, id="in_empty"),
        pytest.param({"constraints": [c("k", "in", "a")]}, {"constraints.0.value"}, id="in_scalar"),
        pytest.param(
            {"constraints": [c("k", "in", [[1]])]}, {"constraints.0.value"}, id="in_nested"
        ),
        pytest.param({"constraints": [c("k", "gte", 3)]}, set(), id="gte_number"),
        pytest.param({"constraints": [c("k", "lte", -1.5)]}, set(), id="lte_number"),
        pytest.param({"constraints": [c("k", "gte", "3")]}, {"constraints.0.value"}, id="gte_text"),
        pytest.param(
            {"constraints": [c("k", "lte", True)]}, {"constraints.0.value"}, id="lte_bool"
        ),
        pytest.param({"constraints": [c("k", "between", [1, 2])]}, set(), id="between"),
        pytest.param({"constraints": [c("k", "between", [2, 2])]}, set(), id="between_equal"),
        pytest.param(
            {"constraints": [c("k", "between", [3, 2])]}, {"constraints.0.value"}, id="between_low"
        ),
        pytest.param(
            {"constraints": [c("k", "between", [1])]}, {"constraints.0.value"}, id="between_one"
        ),
        pytest.param(
            {"constraints": [c("k", "between", [1, 2, 3])]},
            {"constraints.0.value"},
            id="between_three",
        ),
        pytest.param(
            {"constraints": [c("k", "between", [False, True])]},
            {"constraints.0.value"},
            id="between_booleans",
        ),
        pytest.param(
            {"constraints": [c("k", "gte", 1), c("k", "lte", 9)]}, set(), id="several_on_one_key"
        ),
        pytest.param({"identity": {"display_name": "x" * 200}}, set(), id="identity_200"),
        pytest.param(
            {"identity": {"headline": "x" * 201}}, {"identity.headline"}, id="identity_201"
        ),
        pytest.param(
            {"identity": {"contact": "x" * 201}}, {"identity.contact"}, id="identity_contact_201"
        ),
        pytest.param({"visibility": "secret"}, {"visibility"}, id="visibility_unknown"),
        pytest.param({"visibility": "private"}, set(), id="visibility_private"),
        pytest.param({"visibility": "incognito"}, set(), id="visibility_incognito"),
        pytest.param({"visibility": "network", "networks": ["n1"]}, set(), id="network_one"),
        pytest.param(
            {"visibility": "network", "networks": [f"n{i}" for i in range(10)]},
            set(),
            id="network_ten",
        ),
        pytest.param(
            {"visibility": "network", "networks": [f"n{i}" for i in range(11)]},
            {"networks"},
            id="network_eleven",
        ),
        pytest.param({"visibility": "network"}, {"networks"}, id="network_none"),
        pytest.param(
            {"visibility": "network", "networks": ["n1", "n1"]}, {"networks"}, id="network_twice"
        ),
        pytest.param({"networks": []}, set(), id="public_empty_networks"),
        pytest.param({"networks": ["n1"]}, {"networks"}, id="public_with_networks"),
        pytest.param(
            {"statement": "", "visibility": "x", "constraints": [c("K", "eq", 1)]},
            {"statement", "visibility", "constraints.0.key"},
            id="every_problem_named",
        ),
    ],
)
def test_intent_rules(members: dict[str, Any], fields: set[str]) -> None:
    assert set(problems(**members)) == fields


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        pytest.param({}, set(), id="nothing_named"),
        pytest.param({"status": "paused"}, set(), id="status_paused"),
        pytest.param({"status": "archived"}, set(), id="status_archived"),
        pytest.param({"status": "deleted"}, {"status"}, id="status_unknown"),
        pytest.param({"statement": None}, {"statement"}, id="null_statement"),
        pytest.param({"constraints": None}, {"constraints"}, id="null_constraints"),
    ],
)
def test_patch_rules(body: dict[str, Any], fields: set[str]) -> None:
    assert set(patch_problems(IntentPatch.model_validate(body))) == fields


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"visibility": "private"}, id="visibility_fixed_at_creation"),
        pytest.param({"intent_id": "int_x"}, id="unknown_member"),
        pytest.param({"statement": 3}, id="statement_not_text"),
        pytest.param({"constraints": [{"key": "k", "op": "eq"}]}, id="constraint_without_value"),
        pytest.param({"identity": {"email": "a@b"}}, id="identity_unknown_member"),
    ],
)
def test_patch_shape_is_strict(body: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        IntentPatch.model_validate(body)


def test_a_patch_is_checked_as_a_whole() -> None:
    network = IntentInput.model_validate(BASE | {"visibility": "network", "networks": ["n1"]})
    emptied = patched(network, IntentPatch.model_validate({"networks": []}))
    assert set(intent_problems(emptied)) == {"networks"}


def test_changed_is_json_equality() -> None:
    before = IntentInput.model_validate(BASE | {"constraints": [c("k", "eq", 1)]})
    after = patched(before, IntentPatch.model_validate({"constraints": [c("k", "eq", True)]}))
    assert changed(before, after) == ("constraints",)
    same = patched(before, IntentPatch.model_validate({"statement": BASE["statement"]}))
    assert changed(before, same) == ()


@pytest.mark.parametrize(
    ("status", "code"),
    [("active", None), ("paused", None), ("archived", RefusalCode.INTENT_INACTIVE)],
)
def test_only_an_archived_intent_takes_no_edit(status: str, code: RefusalCode | None) -> None:
    refusal = editable(status)
    assert (refusal.code if refusal else None) == code


scalars = st.one_of(st.text(max_size=5), st.integers(-5, 5), st.booleans(), st.none())
values = st.one_of(scalars, st.lists(scalars, max_size=3))
constraints = st.lists(
    st.fixed_dictionaries(
        {
            "key": st.sampled_from(["k", "price", "K", "9"]),
            "op": st.sampled_from(["eq", "in", "gte", "lte", "between", "ne"]),
            "value": values,
        }
    ),
    max_size=3,
)
patches = st.fixed_dictionaries(
    {},
    optional={
        "statement": st.one_of(st.none(), st.sampled_from(["", " ", "A violist", "x" * 2001])),
        "constraints": st.one_of(st.none(), constraints),
        "identity": st.fixed_dictionaries(
            {}, optional={"headline": st.sampled_from(["", "h", "x" * 201])}
        ),
        "networks": st.one_of(st.none(), st.lists(st.sampled_from(["n1", "n2"]), max_size=3)),
        "status": st.one_of(st.none(), st.sampled_from(["active", "paused", "archived", "gone"])),
    },
)
currents = st.sampled_from(
    [
        BASE,
        BASE | {"visibility": "network", "networks": ["n1"]},
        BASE | {"constraints": [c("price", "between", [1, 5])], "identity": {"headline": "h"}},
    ]
)


@given(current=currents, body=patches)
def test_a_patch_result_is_valid_as_a_whole_or_refused(
    current: dict[str, Any], body: dict[str, Any]
) -> None:
    before = IntentInput.model_validate(current)
    patch = IntentPatch.model_validate(body)
    after = patched(before, patch)
    refused = bool(patch_problems(patch) or intent_problems(after))
    if not refused:
        # the result, as a client would send it anew, is a valid intent
        again = IntentInput.model_validate(json.loads(after.model_dump_json()))
        assert intent_problems(again) == {}
        assert patch.status in (None, "active", "paused", "archived")
    # what the patch does not name is left as it was
    for name in set(IntentInput.model_fields) - patch.model_fields_set:
        assert getattr(after, name) == getattr(before, name)
    # a member the patch names (not null) is set
    for name in patch.model_fields_set - {"status"}:
        if getattr(patch, name) is not None:
            assert getattr(after, name) == getattr(patch, name)

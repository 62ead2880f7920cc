"""The rules before the index is asked (spec/intro-api.md, Discovery, Opportunities, Check
order): the values of a discover and an open, then `private_intent` before `intent_inactive`."""

import pytest

from accord.core.refusals import RefusalCode
from accord.protocols.intro.opportunities import (
    DiscoverInput,
    OpenInput,
    discover_problems,
    may_discover,
    open_problems,
)


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, set()),
        ({"query": "q" * 500, "limit": 30}, set()),
        ({"limit": 1}, set()),
        ({"query": "q" * 501}, {"query"}),
        ({"limit": 0}, {"limit"}),
        ({"limit": 31, "query": "é" * 501}, {"limit", "query"}),
    ],
)
def test_discover_values(body: dict[str, object], fields: set[str]) -> None:
    assert set(discover_problems(DiscoverInput.model_validate(body))) == fields


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"candidates": ["a"]}, set()),
        ({"candidates": [f"i{n}" for n in range(30)], "context": "c" * 2000}, set()),
        ({"candidates": []}, {"candidates"}),
        ({"candidates": [f"i{n}" for n in range(31)]}, {"candidates"}),
        ({"candidates": ["a", "a"]}, {"candidates"}),
        ({"candidates": ["a"], "context": "c" * 2001}, {"context"}),
    ],
)
def test_open_values(body: dict[str, object], fields: set[str]) -> None:
    assert set(open_problems(OpenInput.model_validate(body))) == fields


@pytest.mark.parametrize(
    ("visibility", "status", "code", "reason"),
    [
        ("public", "active", None, None),
        ("incognito", "active", None, None),
        ("network", "active", None, None),
        ("private", "active", RefusalCode.INVALID_REQUEST, "private_intent"),
        ("private", "paused", RefusalCode.INVALID_REQUEST, "private_intent"),
        ("public", "paused", RefusalCode.INTENT_INACTIVE, None),
        ("public", "archived", RefusalCode.INTENT_INACTIVE, None),
    ],
)
def test_may_discover(
    visibility: str, status: str, code: RefusalCode | None, reason: str | None
) -> None:
    refusal = may_discover(visibility, status)
    assert (refusal and refusal.code) == code
    assert (refusal and refusal.details.get("reason")) == reason

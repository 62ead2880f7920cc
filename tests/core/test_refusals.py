"""Refusal codes and the exception that carries one (`accord/core/refusals.py`)."""

import re

import pytest

from accord.core.refusals import Refusal, RefusalCode, Refused, refuse


@pytest.mark.parametrize("code", list(RefusalCode), ids=[c.value for c in RefusalCode])
def test_codes_are_lower_snake_and_equal_their_name(code: RefusalCode) -> None:
    assert re.fullmatch(r"[a-z]+(_[a-z]+)*", code.value)
    assert code.value == code.name.lower()
    assert code == code.value


def test_codes_are_unique() -> None:
    values = [c.value for c in RefusalCode]
    assert len(values) == len(set(values))


def test_refuse_builds_the_exception_with_details() -> None:
    exc = refuse(RefusalCode.INVALID_TERMS, "Give a price in minor units.", fields=["price"])
    assert isinstance(exc, Refused)
    assert exc.refusal == Refusal(
        RefusalCode.INVALID_TERMS, "Give a price in minor units.", {"fields": ["price"]}
    )
    assert str(exc) == "invalid_terms: Give a price in minor units."


def test_refused_can_be_raised_and_caught() -> None:
    with pytest.raises(Refused) as info:
        raise refuse(RefusalCode.NOT_YOUR_TURN, "Wait for the other seat.")
    assert info.value.refusal.code is RefusalCode.NOT_YOUR_TURN
    assert info.value.refusal.details == {}


def test_refusal_is_frozen() -> None:
    refusal = Refusal(RefusalCode.RACED, "Reload and try again.")
    with pytest.raises(AttributeError):
        refusal.code = RefusalCode.INTERNAL  # type: ignore[misc]  # proving it is frozen

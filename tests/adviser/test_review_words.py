"""Why each deal-review test came out as it did (`accord/adviser/review_words.py`): every outcome
a review gives, over every rule of the review's table, has its own sentence, and the sentences
name the topics they read."""

from typing import Any

import pytest

from accord.adviser.patches import Patch
from accord.adviser.review import TESTS, Offer, review
from accord.adviser.review_words import WHY, reasons
from tests.adviser.test_review import RULES, offer, state_with


@pytest.mark.parametrize(("patches", "the_offer", "expected"), RULES)
def test_every_outcome_a_review_gives_has_its_reason(
    patches: list[Patch], the_offer: Offer, expected: dict[str, Any]
) -> None:
    state = state_with(*patches)
    reviewed = state.model_copy(update={"deal_review": review(state, the_offer)})
    said = reasons(reviewed)
    assert list(said) == list(TESTS)
    for test in TESTS:
        outcome = getattr(reviewed.deal_review, test)
        assert outcome in WHY[test], (test, outcome)
        assert "{" not in said[test] and said[test].endswith(".")


def test_the_reasons_name_the_topics_they_read() -> None:
    state = state_with()  # critical or high: Price (at most EUR 1,000) and Delivery
    reviewed = state.model_copy(update={"deal_review": review(state, offer(price="EUR 1,200"))})
    said = reasons(reviewed)
    assert said["priority_topic_test"] == (
        "One of your critical or high topics (Price, Delivery) is worse than its minimum."
    )

"""`Discovery.opening`: which pairs an intent may open, and the first checks (spec,
Opportunities): the same visibility as the candidates, one None for every reason not."""

import pytest

from accord.discovery import Constraint, Discovery, IntentDoc

CELLIST = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET = "A string quartet in Lyon wants a cellist on Saturdays"
LYON = (Constraint("city", "eq", "Lyon"),)
PARIS = (Constraint("city", "eq", "Paris"),)


def index(*docs: IntentDoc) -> Discovery:
    discovery = Discovery()
    for doc in (IntentDoc("a", "pa", CELLIST, LYON), *docs):
        discovery.upsert(doc)
    return discovery


@pytest.mark.parametrize(
    ("other", "networks", "expected"),
    [
        (IntentDoc("b", "pb", QUARTET, LYON), {}, (True, True)),
        (IntentDoc("b", "pb", QUARTET, PARIS), {}, (True, False)),
        (IntentDoc("b", "pb", "Fresh bread"), {}, (False, True)),
        (IntentDoc("b", "pb", QUARTET, visibility="incognito"), {}, (True, True)),
        (IntentDoc("b", "pb", "Fresh bread", visibility="incognito"), {}, None),
        (IntentDoc("b", "pa", QUARTET), {}, None),
        (IntentDoc("b", "pb", QUARTET, status="paused"), {}, None),
        (IntentDoc("b", "pb", QUARTET, status="archived"), {}, None),
        (IntentDoc("b", "pb", QUARTET, visibility="private"), {}, None),
        (IntentDoc("b", "pb", QUARTET, visibility="network", networks=frozenset({"n"})), {}, None),
        (
            IntentDoc("b", "pb", QUARTET, visibility="network", networks=frozenset({"n"})),
            {"pa": frozenset({"n"}), "pb": frozenset({"n"})},
            (True, True),
        ),
    ],
)
def test_opening(
    other: IntentDoc, networks: dict[str, frozenset[str]], expected: tuple[bool, bool] | None
) -> None:
    assert index(other).opening("a", "b", networks) == expected


def test_an_unknown_intent_opens_nothing() -> None:
    assert index().opening("a", "b", {}) is None
    assert index().opening("b", "a", {}) is None

"""Reach and visibility, one row per visibility kind and status."""

import pytest

from accord.discovery import IntentDoc, reaches, visible

NETS = frozenset({"n1"})


@pytest.mark.parametrize(
    ("visibility", "networks", "principal_networks", "reached"),
    [
        ("public", frozenset(), frozenset(), True),
        ("incognito", frozenset(), frozenset(), True),
        ("network", NETS, NETS, True),
        ("network", NETS, frozenset({"n2"}), False),
        ("network", frozenset({"n1", "n3"}), frozenset({"n2", "n3"}), True),
        ("network", NETS, frozenset(), False),
        ("private", frozenset(), NETS, False),
    ],
)
def test_reaches(visibility, networks, principal_networks, reached) -> None:
    intent = IntentDoc("i", "p", "s", visibility=visibility, networks=networks)
    assert reaches(intent, principal_networks) is reached


@pytest.mark.parametrize(
    ("principal", "status", "seen"),
    [
        ("q", "active", True),
        ("q", "paused", False),
        ("q", "archived", False),
        ("p", "active", False),
    ],
)
def test_visible_needs_another_principal_and_active(principal, status, seen) -> None:
    intent = IntentDoc("i", "p", "s", status=status)
    assert visible(intent, principal, frozenset()) is seen

"""Who an intent reaches and to whom it is visible (spec, Discovery)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from accord.discovery.intents import IntentDoc

NetworksOf = Callable[[str], frozenset[str]]


def networks_lookup(networks: NetworksOf | Mapping[str, frozenset[str]]) -> NetworksOf:
    """A callable principal_id → its networks; a mapping answers `frozenset()` for the unknown."""
    if isinstance(networks, Mapping):
        return lambda principal_id: networks.get(principal_id, frozenset())
    return networks


def reaches(intent: IntentDoc, principal_networks: frozenset[str]) -> bool:
    """`public` and `incognito` reach anyone, `network` its networks' members, `private` no one."""
    if intent.visibility in ("public", "incognito"):
        return True
    return intent.visibility == "network" and not intent.networks.isdisjoint(principal_networks)


def visible(intent: IntentDoc, principal_id: str, principal_networks: frozenset[str]) -> bool:
    """Another principal's intent that reaches this one while `active`."""
    return (
        intent.principal_id != principal_id
        and intent.status == "active"
        and reaches(intent, principal_networks)
    )

"""A merchant with a policy on a real server, for buyer clients to negotiate with."""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from valyzen import GatewayClient

from accord.app.merchants import Merchants
from accord.store.database import Database
from tests.conftest import LiveServer

POLICY: dict[str, Any] = {
    "sku": "DEMO-MONITOR-27",
    "description": "27-inch monitor",
    "currency": "USD",
    "list_price_minor": 44900,
    "reference_price_minor": 41900,
    "floor_minor": 38000,
    "inclusions": [
        {"kind": "warranty", "value_minor": 3900, "included_by_default": True},
        {"kind": "cable", "value_minor": 1500, "included_by_default": True},
    ],
    "concession": {"style": "linear"},
    "max_rounds": 5,
    "round_timeout_seconds": 900,
    "fair_band": "0.05",
    "handoff": {
        "kind": "discount_code",
        "checkout_url": "https://shop.example/checkout",
        "ttl_seconds": 3600,
        "publish": "automatic",
    },
    "active": True,
}


@dataclass
class Shop:
    server: LiveServer
    keys: dict[str, str]
    tenant_id: str

    def client(self, key: str) -> httpx.Client:
        return self.server.client(self.keys[key])

    @contextlib.contextmanager
    def gateway(self, key: str = "publishable_test") -> Iterator[GatewayClient]:
        """The valyzen SDK's client, as a buyer would make it, on a transport we close."""
        with httpx.Client(timeout=30) as transport:
            yield GatewayClient(self.keys[key], base_url=self.server.url, client=transport)


@pytest.fixture
def shop(server: LiveServer) -> Iterator[Shop]:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        made = Merchants(db, server.settings, clock=server.clock).create_tenant("demo-shop")
    finally:
        db.close()
    shop = Shop(server, made["keys"], made["tenant_id"])
    with shop.client("secret_test") as merchant:
        stored = merchant.put(f"/v1/policies/{POLICY['sku']}", json=POLICY)
        assert stored.status_code == 200, stored.text
    yield shop


@pytest.fixture
def api(shop: Shop) -> Iterator[httpx.Client]:
    """One client without a credential for the whole test; each call names its own."""
    with httpx.Client(base_url=shop.server.url, timeout=30) as client:
        yield client


@pytest.fixture
def rival(shop: Shop) -> dict[str, str]:
    """The four keys of another tenant on the same server, with the same policy in test mode."""
    db = Database(shop.server.settings.database, apply_migrations=False)
    try:
        made = Merchants(db, shop.server.settings, clock=shop.server.clock).create_tenant("rival")
    finally:
        db.close()
    keys: dict[str, str] = made["keys"]
    with shop.server.client(keys["secret_test"]) as merchant:
        stored = merchant.put(f"/v1/policies/{POLICY['sku']}", json=POLICY)
        assert stored.status_code == 200, stored.text
    return keys

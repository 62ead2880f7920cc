"""Builders for the merchant tests: a valid policy body, the service over the test's store,
and tenants made through it."""

import copy
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text

from accord.app.merchants import Merchants
from accord.app.settings import Settings
from accord.store.database import Database
from tests.conftest import FakeClock

JSONBody = dict[str, Any]

# band 0.05 over a reference of 41900: the band's top is floor(41900 / 0.95) = 44105.
POLICY: JSONBody = {
    "sku": "bike-blue-52",
    "description": "Blue city bike, 52 cm frame",
    "currency": "EUR",
    "list_price_minor": 49900,
    "reference_price_minor": 41900,
    "floor_minor": 38000,
    "inclusions": [
        {"kind": "free_shipping", "value_minor": 1500, "included_by_default": True},
        {"kind": "helmet", "value_minor": 2500, "included_by_default": False},
    ],
    "concession": {"style": "boulware"},
    "max_rounds": 5,
    "round_timeout_seconds": 600,
    "fair_band": "0.05",
    "handoff": {
        "kind": "discount_code",
        "checkout_url": "https://shop.example.com/checkout",
        "ttl_seconds": 3600,
        "publish": "automatic",
    },
    "active": True,
}

DROP: Any = object()


def policy_body(**changes: Any) -> JSONBody:
    """The valid policy with some members replaced; `handoff__ttl_seconds=0` reaches into
    a nested member, and a value of `DROP` removes the member."""
    body = copy.deepcopy(POLICY)
    for name, value in changes.items():
        *parents, last = name.split("__")
        target = body
        for parent in parents:
            target = target[parent]
        if value is DROP:
            del target[last]
        else:
            target[last] = value
    return body


@dataclass(frozen=True)
class Tenant:
    tenant_id: str
    name: str
    keys: dict[str, str]

    @property
    def pk_test(self) -> str:
        return self.keys["publishable_test"]

    @property
    def pk_live(self) -> str:
        return self.keys["publishable_live"]

    @property
    def sk_test(self) -> str:
        return self.keys["secret_test"]

    @property
    def sk_live(self) -> str:
        return self.keys["secret_live"]


@pytest.fixture
def merchants(db: Database, settings: Settings, clock: FakeClock) -> Merchants:
    return Merchants(db, settings, clock=clock)


def make_tenant(merchants: Merchants, name: str) -> Tenant:
    made = merchants.create_tenant(name)
    return Tenant(made["tenant_id"], name, made["keys"])


@pytest.fixture
def acme(merchants: Merchants) -> Tenant:
    return make_tenant(merchants, "acme")


@pytest.fixture
def globex(merchants: Merchants) -> Tenant:
    return make_tenant(merchants, "globex")


def dump_tables(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every merchant row, to show that a refused request wrote nothing."""
    with db.read_engine.connect() as conn:
        return {
            table: sorted(tuple(row) for row in conn.execute(text(f"SELECT * FROM {table}")))
            for table in ("tenants", "tenant_keys", "policies")
        }

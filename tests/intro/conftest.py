"""Builders for the intro tests over a real server: principals made on the store, a client per
test, intents posted with the owner key."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from accord.app.principals import Principals
from accord.store.database import Database
from tests.conftest import FakeClock, LiveServer
from tests.principals.conftest import Principal, make_principal

JSONBody = dict[str, Any]


def key(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


@pytest.fixture
def principals(db: Database, clock: FakeClock) -> Principals:
    return Principals(db, clock=clock)


@pytest.fixture
def ada(principals: Principals) -> Principal:
    return make_principal(principals, "ada")


@pytest.fixture
def bob(principals: Principals) -> Principal:
    return make_principal(principals, "bob")


@pytest.fixture
def cy(principals: Principals) -> Principal:
    return make_principal(principals, "cy")


def post_intent(client: httpx.Client, who: Principal, statement: str, **members: Any) -> JSONBody:
    body = {"statement": statement, "visibility": "public"} | members
    made = client.post("/api/intents", json=body, headers=key(who.owner_key))
    assert made.status_code == 201, made.text
    intent: JSONBody = made.json()["intent"]
    return intent


def patch_intent(client: httpx.Client, who: Principal, intent_id: str, **members: Any) -> None:
    patched = client.patch(f"/api/intents/{intent_id}", json=members, headers=key(who.owner_key))
    assert patched.status_code == 200, patched.text


def discover(client: httpx.Client, who: Principal, intent_id: str, **body: Any) -> list[JSONBody]:
    found = client.post(f"/api/intents/{intent_id}/discover", json=body, headers=key(who.agent_key))
    assert found.status_code == 200, found.text
    candidates: list[JSONBody] = found.json()["candidates"]
    return candidates

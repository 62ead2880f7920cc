"""Builders for the principal tests: the service over the test's store, principals made through
it, and every principal row, to show that a refused call wrote nothing."""

from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text

from accord.app.principals import Principals
from accord.store.database import Database
from tests.conftest import FakeClock


@dataclass(frozen=True)
class Principal:
    principal_id: str
    name: str
    owner_key: str
    agent_key: str


@pytest.fixture
def principals(db: Database, clock: FakeClock) -> Principals:
    return Principals(db, clock=clock)


def make_principal(principals: Principals, name: str) -> Principal:
    made = principals.create(name)
    return Principal(made["principal_id"], name, made["owner_key"], made["agent_key"])


@pytest.fixture
def ada(principals: Principals) -> Principal:
    return make_principal(principals, "ada")


def dump_tables(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    with db.read_engine.connect() as conn:
        return {
            table: sorted(tuple(row) for row in conn.execute(text(f"SELECT * FROM {table}")))
            for table in ("principals", "principal_keys", "agent_selections")
        }

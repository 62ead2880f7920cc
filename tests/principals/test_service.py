"""Principals as a service (`accord/app/principals.py`) on the test's store: keys made once and
kept only as hashes, a new key replacing an agent's old one, selecting the agent, and refusals
that change nothing; the store itself refuses to rewrite principals."""

import threading
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from accord.app.identity import CredentialCache, PrincipalCaller, resolve
from accord.app.principals import Action, Principals
from accord.app.rooms import Rooms
from accord.app.settings import Settings
from accord.core.refusals import Refused
from accord.protocols.rooms.moves import OpenRequest
from accord.store.database import Database
from tests.conftest import FakeClock
from tests.principals.conftest import Principal, dump_tables, make_principal


def _refusal(call: Any) -> tuple[str, dict[str, Any]]:
    with pytest.raises(Refused) as refused:
        call()
    return str(refused.value.refusal.code), dict(refused.value.refusal.details)


def test_create_makes_an_owner_and_a_selected_default_agent(
    principals: Principals, ada: Principal
) -> None:
    assert ada.owner_key.startswith("acc_ok_") and ada.agent_key.startswith("acc_ak_")
    owner = principals.authorize(ada.owner_key, Action.READ)
    agent = principals.authorize(ada.agent_key, Action.TAKE_TURNS)
    assert owner == PrincipalCaller(ada.principal_id, "owner", None)
    assert agent == PrincipalCaller(ada.principal_id, "agent", "default")
    assert principals.me(owner) == {
        "principal_id": ada.principal_id,
        "name": "ada",
        "key": "owner",
        "agent_id": None,
        "selected_agent_id": "default",
    }
    assert principals.me(agent)["key"] == "agent"
    assert principals.me(agent)["agent_id"] == "default"


def test_keys_are_stored_only_as_hashes(
    db: Database, principals: Principals, ada: Principal
) -> None:
    helper = principals.agent_key("ada", "helper")["agent_key"]
    stored = " ".join(str(rows) for rows in dump_tables(db).values())
    for key in (ada.owner_key, ada.agent_key, helper):
        assert key not in stored
    with db.read_engine.connect() as conn:
        hashes = conn.execute(text("SELECT key_hash FROM principal_keys")).scalars().all()
    assert len(hashes) == 3 and all(h.startswith("sha256:") for h in hashes)


def test_a_new_key_replaces_the_agents_old_one(
    db: Database, principals: Principals, ada: Principal
) -> None:
    made = principals.agent_key("ada", "default")
    assert made["principal_id"] == ada.principal_id and made["agent_id"] == "default"
    assert _refusal(lambda: principals.authorize(ada.agent_key, Action.READ))[0] == (
        "unauthenticated"
    )
    new = principals.authorize(made["agent_key"], Action.TAKE_TURNS)
    assert new == PrincipalCaller(ada.principal_id, "agent", "default")
    with db.read_engine.connect() as conn:
        keys = conn.execute(
            text("SELECT agent_id, retired_at FROM principal_keys WHERE level = 'agent'")
        ).all()
    assert sorted(keys, key=lambda k: k[1] is None) == [
        ("default", "2026-11-30T12:00:00Z"),
        ("default", None),
    ]


def test_an_agent_key_for_a_new_id_leaves_the_others(
    principals: Principals, ada: Principal
) -> None:
    helper = principals.agent_key("ada", "helper")
    assert set(helper) == {"principal_id", "agent_id", "agent_key"}
    assert principals.authorize(ada.agent_key, Action.TAKE_TURNS).agent_id == "default"
    caller = principals.authorize(helper["agent_key"], Action.READ)
    assert caller == PrincipalCaller(ada.principal_id, "agent", "helper")
    assert _refusal(lambda: principals.authorize(helper["agent_key"], Action.TAKE_TURNS))[0] == (
        "executor_changed"
    )


@pytest.mark.parametrize(
    "agent_id",
    [
        pytest.param("", id="empty"),
        pytest.param("a" * 65, id="too_long"),
        pytest.param("Helper", id="upper_case"),
        pytest.param("my agent", id="space"),
        pytest.param("agent.1", id="dot"),
        pytest.param("agént", id="not_ascii"),
        pytest.param("accord", id="the_built_in_agent"),
    ],
)
def test_bad_agent_ids_are_refused_and_change_nothing(
    db: Database, principals: Principals, ada: Principal, agent_id: str
) -> None:
    before = dump_tables(db)
    code, details = _refusal(lambda: principals.agent_key("ada", agent_id))
    assert (code, list(details["fields"])) == ("invalid_request", ["agent_id"])
    assert dump_tables(db) == before


def test_the_longest_agent_id_is_taken(principals: Principals, ada: Principal) -> None:
    made = principals.agent_key("ada", "a_-0" * 16)
    assert principals.authorize(made["agent_key"], Action.READ).agent_id == "a_-0" * 16


@pytest.mark.parametrize(
    ("call", "field"),
    [
        pytest.param(lambda p: p.agent_key("nobody", "helper"), "name", id="unknown_principal"),
        pytest.param(lambda p: p.create("ada"), "name", id="name_taken"),
        pytest.param(lambda p: p.create(""), "name", id="empty_name"),
        pytest.param(lambda p: p.create("a" * 65), "name", id="long_name"),
        pytest.param(lambda p: p.create("-ada"), "name", id="name_starts_with_dash"),
        pytest.param(lambda p: p.create("ada lovelace"), "name", id="name_with_space"),
    ],
)
def test_bad_administration_is_refused_and_changes_nothing(
    db: Database, principals: Principals, ada: Principal, call: Any, field: str
) -> None:
    before = dump_tables(db)
    code, details = _refusal(lambda: call(principals))
    assert (code, list(details["fields"])) == ("invalid_request", [field])
    assert dump_tables(db) == before


def test_the_owner_selects_the_agent(db: Database, principals: Principals, ada: Principal) -> None:
    owner = principals.authorize(ada.owner_key, Action.WRITE)
    helper = principals.agent_key("ada", "helper")["agent_key"]
    assert principals.select_agent(owner, "helper") == {
        "principal_id": ada.principal_id,
        "selected_agent_id": "helper",
    }
    assert principals.me(owner)["selected_agent_id"] == "helper"
    assert principals.authorize(helper, Action.TAKE_TURNS).agent_id == "helper"
    assert _refusal(lambda: principals.authorize(ada.agent_key, Action.TAKE_TURNS))[0] == (
        "executor_changed"
    )
    principals.select_agent(owner, "accord")
    assert principals.me(owner)["selected_agent_id"] == "accord"
    assert _refusal(lambda: principals.authorize(helper, Action.RESUME))[0] == "executor_changed"


def test_selecting_the_selected_agent_records_nothing(
    db: Database, principals: Principals, ada: Principal
) -> None:
    owner = principals.authorize(ada.owner_key, Action.WRITE)
    before = dump_tables(db)
    assert principals.select_agent(owner, "default")["selected_agent_id"] == "default"
    assert dump_tables(db) == before


@pytest.mark.parametrize(
    "agent_id",
    [
        pytest.param("helper", id="no_such_agent"),
        pytest.param("theirs", id="another_principals_agent"),
        pytest.param("", id="empty"),
        pytest.param("Default", id="not_an_agent_id"),
    ],
)
def test_selecting_an_agent_without_a_key_is_refused(
    db: Database, principals: Principals, ada: Principal, agent_id: str
) -> None:
    make_principal(principals, "bob")
    principals.agent_key("bob", "theirs")
    owner = principals.authorize(ada.owner_key, Action.WRITE)
    before = dump_tables(db)
    code, details = _refusal(lambda: principals.select_agent(owner, agent_id))
    assert (code, list(details["fields"])) == ("invalid_request", ["agent_id"])
    assert dump_tables(db) == before


def test_an_agent_cannot_select_even_when_an_adapter_forgot_to_ask(
    db: Database, principals: Principals, ada: Principal
) -> None:
    agent = principals.authorize(ada.agent_key, Action.READ)
    before = dump_tables(db)
    assert _refusal(lambda: principals.select_agent(agent, "accord"))[0] == "forbidden"
    assert dump_tables(db) == before


def test_a_replaced_agent_id_can_still_be_selected_by_its_new_key(
    principals: Principals, ada: Principal
) -> None:
    owner = principals.authorize(ada.owner_key, Action.WRITE)
    principals.agent_key("ada", "helper")
    newest = principals.agent_key("ada", "helper")["agent_key"]
    principals.select_agent(owner, "helper")
    assert principals.authorize(newest, Action.TAKE_TURNS).agent_id == "helper"


def _room_token(rooms: Rooms, kind: str) -> str:
    return str(rooms.open(OpenRequest(subject_schema={"n": {"type": "int"}}))[kind])


@pytest.mark.parametrize(
    ("token_of", "code"),
    [
        pytest.param(lambda rooms: None, "unauthenticated", id="none"),
        pytest.param(lambda rooms: "", "unauthenticated", id="empty"),
        pytest.param(lambda rooms: "acc_ok_unknown", "unauthenticated", id="unknown"),
        pytest.param(lambda rooms: _room_token(rooms, "seat_token"), "forbidden", id="seat"),
        pytest.param(lambda rooms: _room_token(rooms, "owner_token"), "forbidden", id="owner"),
    ],
)
def test_authorize_refuses_what_is_not_a_principals_key(
    principals: Principals, rooms: Rooms, token_of: Any, code: str
) -> None:
    token = token_of(rooms)
    assert _refusal(lambda: principals.authorize(token, Action.READ))[0] == code


def test_concurrent_keys_for_one_agent_leave_exactly_one_current(
    db: Database, settings: Settings, clock: FakeClock, ada: Principal
) -> None:
    """Two processes (two databases, each with its writer) replacing one agent's key at once."""
    other = Database(settings.database, apply_migrations=False)
    try:
        services = [Principals(db, clock=clock), Principals(other, clock=clock)]
        made: list[str] = []
        start = threading.Barrier(8)

        def replace(service: Principals) -> None:
            start.wait()
            made.append(service.agent_key("ada", "helper")["agent_key"])

        threads = [threading.Thread(target=replace, args=(services[i % 2],)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(made) == 8
        callers = db.read(lambda conn: [resolve(conn, key, CredentialCache()) for key in made])
        assert len([caller for caller in callers if caller is not None]) == 1
    finally:
        other.close()


@pytest.mark.parametrize(
    "statement",
    [
        pytest.param("UPDATE principals SET name = 'eve'", id="rename_principal"),
        pytest.param("DELETE FROM principals", id="delete_principal"),
        pytest.param("UPDATE agent_selections SET agent_id = 'x'", id="rewrite_selection"),
        pytest.param("DELETE FROM agent_selections", id="delete_selection"),
        pytest.param("DELETE FROM principal_keys", id="delete_key"),
        pytest.param("UPDATE principal_keys SET key_hash = 'sha256:0'", id="rewrite_key_hash"),
        pytest.param(
            "UPDATE principal_keys SET agent_id = 'x', retired_at = 'now'", id="retire_and_move"
        ),
        pytest.param(
            "UPDATE principal_keys SET retired_at = NULL WHERE retired_at IS NOT NULL",
            id="unretire_key",
        ),
        pytest.param(
            "UPDATE principal_keys SET retired_at = 'later' WHERE retired_at IS NOT NULL",
            id="retire_twice",
        ),
    ],
)
def test_the_database_refuses_to_rewrite_principals(
    db: Database, principals: Principals, ada: Principal, statement: str
) -> None:
    principals.agent_key("ada", "default")  # one retired key, for the rows that need one
    before = dump_tables(db)
    with pytest.raises(DBAPIError, match="append-only"), db.write_engine.begin() as conn:
        conn.execute(text(statement))
    assert dump_tables(db) == before


@pytest.mark.parametrize("table", ["principals", "principal_keys", "agent_selections"])
def test_truncate_of_principals_is_refused_on_postgresql(
    db: Database, ada: Principal, table: str
) -> None:
    if db.dialect != "postgresql":
        pytest.skip("TRUNCATE exists only on PostgreSQL")
    with pytest.raises(DBAPIError, match="append-only"), db.write_engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {table} CASCADE"))

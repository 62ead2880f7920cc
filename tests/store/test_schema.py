"""The store's schema: migrations match the tables, and the logs are append-only in the
database itself (DESIGN principle 2), on SQLite and PostgreSQL alike."""

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from accord.app.rooms import Rooms
from accord.protocols.rooms.moves import OpenRequest
from accord.store.database import Database
from accord.store.engine import make_engine
from accord.store.migrate import migrate
from accord.store.tables import metadata


def test_migrations_build_exactly_the_tables(db: Database) -> None:
    with db.write_engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def _head() -> str | None:
    config = Config()
    config.set_main_option("script_location", "accord.store:migrations")
    return ScriptDirectory.from_config(config).get_current_head()


def test_migrating_twice_changes_nothing(db: Database) -> None:
    migrate(db.write_engine)
    with db.read_engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == _head()


@pytest.fixture
def room_id(rooms: Rooms) -> str:
    opened = rooms.open(OpenRequest(subject_schema={"n": {"type": "int"}}, subject={"n": 1}))
    return str(opened["room"]["room_id"])


@pytest.mark.parametrize(
    "statement",
    [
        pytest.param("UPDATE envelopes SET body = '{}'", id="update_envelope"),
        pytest.param("DELETE FROM envelopes", id="delete_envelope"),
        pytest.param("UPDATE private_records SET body = '{}'", id="update_private_record"),
        pytest.param("DELETE FROM private_records", id="delete_private_record"),
    ],
)
def test_the_database_refuses_to_rewrite_records(
    db: Database, room_id: str, statement: str
) -> None:
    with pytest.raises(DBAPIError, match="append-only"), db.write_engine.begin() as conn:
        conn.execute(text(statement))
    with db.read_engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM envelopes")).scalar() == 2
        assert conn.execute(text("SELECT count(*) FROM private_records")).scalar() == 1


def test_truncate_is_refused_on_postgresql(db: Database, room_id: str) -> None:
    if db.dialect != "postgresql":
        pytest.skip("TRUNCATE exists only on PostgreSQL")
    with pytest.raises(DBAPIError, match="append-only"), db.write_engine.begin() as conn:
        conn.execute(text("TRUNCATE envelopes CASCADE"))


def test_credentials_are_stored_only_as_hashes(db: Database, rooms: Rooms) -> None:
    opened = rooms.open(OpenRequest(subject_schema={"n": {"type": "int"}}))
    tokens = [opened["seat_token"], opened["owner_token"], opened["invite"]["token"]]
    with db.read_engine.connect() as conn:
        stored = conn.execute(text("SELECT token_hash FROM credentials")).scalars().all()
        everything = " ".join(
            str(row)
            for table in ("credentials", "negotiations", "envelopes", "events")
            for row in conn.execute(text(f"SELECT * FROM {table}"))
        )
    assert len(stored) == 3
    assert all(h.startswith("sha256:") for h in stored)
    assert not any(token in everything for token in tokens)


def test_migration_0007_moves_seen_terms_out_of_the_state(database_url: str) -> None:
    config = Config()
    config.set_main_option("script_location", "accord.store:migrations")
    engine = make_engine(database_url, writer=True)
    state = '{"room_id":"room_m","seen_hashes":["aa","bb"],"moves":[{"seq":2}],"seq":2}'
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0006")
            conn.execute(
                text(
                    "INSERT INTO negotiations (id, protocol, seq, state, version, is_final, "
                    "created_at, updated_at) VALUES ('room_m', 'rooms', 2, :state, '', false, "
                    "'t', 't')"
                ),
                {"state": state},
            )
            command.upgrade(config, "head")
            stored = conn.execute(text("SELECT state FROM negotiations")).scalar()
            seen = conn.execute(text("SELECT seen_key FROM seen ORDER BY seen_key")).scalars()
            assert (stored, list(seen)) == ('{"room_id":"room_m","seq":2}', ["aa", "bb"])
    finally:
        engine.dispose()


def test_migration_0011_keeps_every_event_and_its_id(database_url: str) -> None:
    """Events tied to no negotiation: SQLite copies the table to change the column, and a
    stream's Last-Event-ID must still name the same event afterwards."""
    config = Config()
    config.set_main_option("script_location", "accord.store:migrations")
    engine = make_engine(database_url, writer=True)
    try:
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "0010")
            conn.execute(
                text(
                    "INSERT INTO negotiations (id, protocol, seq, state, version, is_final, "
                    "created_at, updated_at) VALUES ('room_m', 'rooms', 0, '{}', '', false, "
                    "'t', 't')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO events (negotiation_id, party, owner_only, kind, data) "
                    "VALUES ('room_m', 'opener', false, 'notification', '{}')"
                )
            )
            first = conn.execute(text("SELECT id FROM events")).scalar_one()
            command.upgrade(config, "head")
            conn.execute(
                text(
                    "INSERT INTO events (negotiation_id, party, owner_only, kind, data, scope) "
                    "VALUES (NULL, NULL, false, 'notification', '{}', 'principal:prn_1')"
                )
            )
            stored = conn.execute(text("SELECT id, negotiation_id FROM events ORDER BY id"))
            assert [tuple(row) for row in stored] == [(first, "room_m"), (first + 1, None)]
    finally:
        engine.dispose()

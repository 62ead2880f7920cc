"""Applies Alembic migrations on start; safe when several processes start at once."""

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, inspect, text

from accord.store.engine import check_url, sqlite_path

VERSION_TABLE = "alembic_version"


def migrate(engine: Engine) -> None:
    config = Config()
    config.set_main_option("script_location", "accord.store:migrations")
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Processes started together migrate one after the other.
            connection.execute(text("SELECT pg_advisory_xact_lock(7207351)"))
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def is_made(url: str) -> bool:
    """Whether a store exists at `url`: migrated at least once, so holding Alembic's version
    table. Asking never creates a SQLite file."""
    check_url(url)
    path = sqlite_path(url)
    if path is not None and not path.is_file():
        return False
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return inspect(connection).has_table(VERSION_TABLE)
    finally:
        engine.dispose()

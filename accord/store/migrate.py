"""Applies Alembic migrations on start; safe when several processes start at once."""

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, text


def migrate(engine: Engine) -> None:
    config = Config()
    config.set_main_option("script_location", "accord.store:migrations")
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Processes started together migrate one after the other.
            connection.execute(text("SELECT pg_advisory_xact_lock(7207351)"))
        config.attributes["connection"] = connection
        command.upgrade(config, "head")

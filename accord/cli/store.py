"""The local store and keyring, for the commands that work on them. Only `accord serve` makes
them; every other command refuses a missing one, saying where it looked, rather than making
an empty store elsewhere and reporting success on it."""

import contextlib
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from accord.app.settings import Settings
from accord.cli.errors import Failure
from accord.store.database import Database
from accord.store.engine import sqlite_path
from accord.store.migrate import is_made
from accord.trust.keys import keyring_path

HERE = "Run this in the folder where `accord serve` runs"


def where(settings: Settings) -> str:
    """The store, as a person would look for it: the SQLite file, or the URL without password."""
    path = sqlite_path(settings.database)
    if path is not None:
        return str(path.absolute())
    return make_url(settings.database).render_as_string(hide_password=True)


@contextlib.contextmanager
def _opening(settings: Settings) -> Iterator[None]:
    try:
        yield
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        raise Failure(
            f"cannot open the database at {where(settings)}: {reason[0] if reason else exc}"
        ) from exc


def create_or_open(settings: Settings) -> Database:
    """The store, made and migrated when missing: for `accord serve`."""
    with _opening(settings):
        return Database(settings.database)


def existing(settings: Settings) -> Database:
    """The store `accord serve` made, migrated to this version; a missing one is refused."""
    with _opening(settings):
        if not is_made(settings.database):
            raise Failure(_missing(settings))
        return Database(settings.database)


def _missing(settings: Settings) -> str:
    if sqlite_path(settings.database) is None:
        return (
            f"no Accord store at {where(settings)}: its schema is not migrated. `accord serve "
            "--database-url …` migrates it on its first start; or point at the right database "
            "with --database-url (ACCORD_DATABASE_URL)"
        )
    return (
        f"no Accord store at {where(settings)}: `accord serve` makes one on its first start. "
        f"{HERE}, or point at its store with --data-dir or --database-url"
    )


def existing_keyring(settings: Settings) -> Path:
    """The signing keyring `accord serve` made; a missing one is refused."""
    path = keyring_path(settings.key_file, settings.data_dir)
    if not path.is_file():
        raise Failure(
            f"no signing keyring at {path.absolute()}: `accord serve` makes one on its first "
            f"start. {HERE}, or point at it with --data-dir or --key-file"
        )
    return path

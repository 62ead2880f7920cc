"""Engines: SQLite in WAL with synchronous=FULL, or PostgreSQL through psycopg 3.

SQLite's writers open with BEGIN IMMEDIATE, so appends are serialized at the start of the
transaction rather than failing at its end; readers use plain BEGIN and see a snapshot.
"""

from pathlib import Path
from typing import Any, Final

from sqlalchemy import URL, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

SQLITE_BUSY_MS = 30_000
SUPPORTED: Final = ("sqlite:///PATH", "postgresql+psycopg://USER@HOST/DATABASE")
_DRIVERS: Final = frozenset({"sqlite", "sqlite+pysqlite", "postgresql+psycopg"})


class UnsupportedDatabase(ValueError):
    """A database URL Accord cannot use; the message names the ones it can."""


def check_url(url: str) -> URL:
    """`url` parsed, if it names a database Accord runs on: SQLite, or PostgreSQL through
    psycopg 3."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise UnsupportedDatabase(
            f"{url!r} is not a database URL; Accord takes {' or '.join(SUPPORTED)}"
        ) from None
    if parsed.drivername not in _DRIVERS:
        raise UnsupportedDatabase(
            f"{parsed.drivername}:// is not a database Accord runs on; it takes "
            f"{' or '.join(SUPPORTED)}"
        )
    return parsed


def is_sqlite(url: str) -> bool:
    return check_url(url).get_backend_name() == "sqlite"


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{data_dir / 'accord.db'}"


def sqlite_path(url: str) -> Path | None:
    """The file a SQLite URL names (None for PostgreSQL, or SQLite in memory)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def make_engine(url: str, *, writer: bool) -> Engine:
    parsed = check_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_size=8, max_overflow=8, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False})
    begin = "BEGIN IMMEDIATE" if writer else "BEGIN"

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's begin event issue BEGIN, not pysqlite's own guesswork.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        connection.exec_driver_sql(begin)

    return engine

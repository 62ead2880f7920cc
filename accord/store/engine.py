"""Engines: SQLite in WAL with synchronous=FULL, or PostgreSQL through psycopg 3.

SQLite's writers open with BEGIN IMMEDIATE, so appends are serialized at the start of the
transaction rather than failing at its end; readers use plain BEGIN and see a snapshot.
"""

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

SQLITE_BUSY_MS = 30_000


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{data_dir / 'accord.db'}"


def make_engine(url: str, *, writer: bool) -> Engine:
    parsed = make_url(url)
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

"""Statements that go straight to the database driver, inside the caller's transaction.

The few statements every move runs skip SQLAlchemy's statement machinery, which cost more than
the database itself there (benchmarks/rooms_throughput.py). Named parameters, written once for
both drivers."""

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection


@functools.lru_cache(maxsize=64)
def _statement(dialect: str, sql: str) -> str:
    """`:name` for sqlite3, `%(name)s` for psycopg."""
    return sql if dialect == "sqlite" else re.sub(r":(\w+)", r"%(\1)s", sql)


def execute(
    conn: Connection, sql: str, params: Mapping[str, Any] | Sequence[Mapping[str, Any]]
) -> Any:
    """The driver's cursor, after running `sql` once (a mapping) or for each of a sequence."""
    cursor = conn.connection.cursor()
    statement = _statement(conn.dialect.name, sql)
    if isinstance(params, Mapping):
        cursor.execute(statement, params)
    else:
        cursor.executemany(statement, params)
    return cursor

"""Statements that go straight to the database driver, inside the caller's transaction.

The few statements every move runs skip SQLAlchemy's statement machinery, which cost more than
the database itself there (benchmarks/rooms_throughput.py). Named parameters, written once for
both drivers."""

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

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
    elif len(params) == 1:  # psycopg runs executemany in a pipeline: a sync of its own
        cursor.execute(statement, params[0])
    else:
        cursor.executemany(statement, params)
    return cursor


ROWS_PER_INSERT: Final = 100
"""Rows per multi-row INSERT: far below either database's limit on parameters."""


@functools.lru_cache(maxsize=64)
def _insert_sql(dialect: str, table: str, columns: tuple[str, ...], count: int) -> str:
    rows = ", ".join("(" + ", ".join(f":{c}_{i}" for c in columns) + ")" for i in range(count))
    return _statement(dialect, f"INSERT INTO {table} ({', '.join(columns)}) VALUES {rows}")


def insert(conn: Connection, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
    """`rows` (each with the same columns) into `table`, a hundred to a statement: one round
    trip where psycopg's executemany took a pipeline and its sync (benchmarks/README.md)."""
    cursor = conn.connection.cursor()
    for start in range(0, len(rows), ROWS_PER_INSERT):
        chunk = rows[start : start + ROWS_PER_INSERT]
        columns = tuple(chunk[0])
        sql = _insert_sql(conn.dialect.name, table, columns, len(chunk))
        cursor.execute(sql, {f"{c}_{i}": row[c] for i, row in enumerate(chunk) for c in columns})

"""One process among several does a thing (polls Telegram, sends its notifications): the one
holding a PostgreSQL advisory lock, on a connection of its own for as long as it leads. On
SQLite there is only ever one process, and it leads.

An advisory lock belongs to the whole database, and a deployment to one schema of it (its
`search_path`): the lock is keyed by the key and the schema, so that deployments sharing a
database each have a leader."""

import contextlib
from collections.abc import AsyncIterator

import psycopg

from accord.store.notifications import conninfo


@contextlib.asynccontextmanager
async def leading(database_url: str, dialect: str, key: int) -> AsyncIterator[bool]:
    """Inside: whether this process leads (the lock is released when the block ends or the
    process dies). `key` is a 32-bit integer."""
    if dialect != "postgresql":
        yield True
        return
    try:
        conn = await psycopg.AsyncConnection.connect(conninfo(database_url), autocommit=True)
    except psycopg.Error:
        yield False
        return
    async with conn:
        cursor = await conn.execute(
            "SELECT pg_try_advisory_lock(%s, hashtext(current_schema()))", (key,)
        )
        row = await cursor.fetchone()
        yield bool(row and row[0])

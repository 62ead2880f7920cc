"""The database a process works with: a writer (group commit) and a pool of readers."""

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy import Connection

from accord.store.engine import make_engine
from accord.store.migrate import migrate
from accord.store.writer import Writer

T = TypeVar("T")


class Database:
    def __init__(self, url: str, *, apply_migrations: bool = True) -> None:
        self.url = url
        self.write_engine = make_engine(url, writer=True)
        self.read_engine = make_engine(url, writer=False)
        if apply_migrations:
            migrate(self.write_engine)
        self._writer = Writer(self.write_engine)

    @property
    def dialect(self) -> str:
        return self.write_engine.dialect.name

    async def write_async(self, fn: Callable[[Connection], T]) -> T:
        """`write` for an event loop: awaits, and no thread waits, until it is durable."""
        return await self._writer.write_async(fn)

    def write(self, fn: Callable[[Connection], T]) -> T:
        """Run `fn` in a serialized write transaction; returns once it is durable."""
        return self._writer.write(fn)

    def read(self, fn: Callable[[Connection], T]) -> T:
        with self.read_engine.connect() as connection, connection.begin():
            return fn(connection)

    def close(self) -> None:
        self._writer.close()
        self.write_engine.dispose()
        self.read_engine.dispose()

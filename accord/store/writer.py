"""One writer per process: group commit of many negotiations' appends in one transaction.

Callers hand in a function of a Connection; the writer thread runs whatever is queued in one
transaction, commits once, and only then answers every caller. Durability stays full (one fsync
per batch, never per nothing); throughput comes from the batching. Callers on an event loop are
answered in one call per loop and batch, not one wake-up each.

A work may run more than once, and only its last run is kept: when one work of a batch raises,
the batch is rolled back and run again with each work in a savepoint of its own; when a commit
fails, each work runs again in a transaction of its own. So a work keeps nothing outside the
transaction that a later run would not replace.

The writer keeps one connection between batches: taking one from the pool for each batch cost
a liveness ping and a reset, two round trips a batch on PostgreSQL. A connection that fails is
let go, and the next batch takes a fresh one from the pool (on PostgreSQL, pinged first).
"""

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Final, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

T = TypeVar("T")
MAX_BATCH: Final = 64

_Awaiting = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]"]
_Work = tuple[Callable[[Connection], Any], "Future[Any] | _Awaiting"]
_Settled = tuple["Future[Any] | _Awaiting", bool, Any]
_STOP: Final = object()


class Writer:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._connection: Connection | None = None  # the writer thread's only
        self._queue: queue.SimpleQueue[_Work | object] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="accord-writer", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[Connection], T]) -> "Future[T]":
        future: Future[T] = Future()
        self._queue.put((fn, future))
        return future

    def write(self, fn: Callable[[Connection], T]) -> T:
        """Run `fn` in a write transaction and return once it is durable."""
        return self.submit(fn).result()

    async def write_async(self, fn: Callable[[Connection], T]) -> T:
        """The same write for an event loop: no thread waits while the writer works."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[T] = loop.create_future()
        self._queue.put((fn, (loop, waiter)))
        return await waiter

    def close(self) -> None:
        self._queue.put(_STOP)
        self._thread.join()

    def _run(self) -> None:
        try:
            while True:
                first = self._queue.get()
                if first is _STOP:
                    return
                batch: list[_Work] = [first]  # type: ignore[list-item]  # not _STOP, checked
                stop = False
                while len(batch) < MAX_BATCH:
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if item is _STOP:
                        stop = True
                        break
                    batch.append(item)  # type: ignore[arg-type]  # not _STOP, checked above
                self._commit(batch)
                if stop:
                    return
        finally:
            self._let_go()

    def _connect(self) -> Connection:
        if self._connection is None:
            self._connection = self._engine.connect()
        return self._connection

    def _let_go(self) -> None:
        """Return the kept connection to the pool, which discards it if it is broken."""
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):  # already broken: nothing more to release
                connection.close()

    def _commit(self, batch: list[_Work]) -> None:
        try:
            results = self._run_together(batch) or self._run_batch(batch)
        except DBAPIError:
            # The commit failed (a lost connection, a serialization failure): give each
            # caller its own transaction on a fresh connection, so that one's trouble is not
            # everyone's.
            self._let_go()
            results = [self._commit_alone(fn) for fn, _ in batch]
        _settle(
            [(waiter, ok, value) for (_, waiter), (ok, value) in zip(batch, results, strict=True)]
        )

    def _run_together(self, batch: list[_Work]) -> list[tuple[bool, Any]] | None:
        """Every work of the batch in one transaction, with no savepoint between them: two
        statements fewer a work, each a turn at the GIL for the other threads. None, and
        nothing written, if one of several works raised."""
        results: list[tuple[bool, Any]] = []
        connection = self._connect()
        transaction = connection.begin()
        for fn, _ in batch:
            try:
                results.append((True, fn(connection)))
            except BaseException as exc:
                transaction.rollback()
                if isinstance(exc, DBAPIError) and exc.connection_invalidated:
                    raise  # the connection is gone: each work runs again on a fresh one
                if len(batch) == 1:
                    return [(False, exc)]  # alone, the rollback undid what a savepoint would
                return None  # the batch runs again, each work in a savepoint
        transaction.commit()
        return results

    def _run_batch(self, batch: list[_Work]) -> list[tuple[bool, Any]]:
        results: list[tuple[bool, Any]] = []
        connection = self._connect()
        with connection.begin():
            cursor = connection.connection.cursor()
            for fn, _ in batch:
                # Plain SAVEPOINT statements: the same on SQLite and PostgreSQL, and cheaper
                # than SQLAlchemy's nested transactions on the path every move takes.
                cursor.execute("SAVEPOINT accord_work")
                try:
                    value = fn(connection)
                except BaseException as exc:  # handed to its caller, not swallowed
                    cursor.execute("ROLLBACK TO SAVEPOINT accord_work")
                    cursor.execute("RELEASE SAVEPOINT accord_work")
                    results.append((False, exc))
                else:
                    cursor.execute("RELEASE SAVEPOINT accord_work")
                    results.append((True, value))
        return results

    def _commit_alone(self, fn: Callable[[Connection], Any]) -> tuple[bool, Any]:
        try:
            connection = self._connect()
            with connection.begin():
                return True, fn(connection)
        except BaseException as exc:  # handed to its caller, not swallowed
            if isinstance(exc, DBAPIError):
                self._let_go()  # perhaps broken: the next work takes a fresh one
            return False, exc


def _settle(settled: list[_Settled]) -> None:
    """Answer every caller of a batch: threads at once, each event loop with one call."""
    on_loops: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], bool, Any]]] = {}
    for waiter, ok, value in settled:
        if isinstance(waiter, Future):
            if ok:
                waiter.set_result(value)
            else:
                waiter.set_exception(value)
        else:
            loop, future = waiter
            on_loops.setdefault(loop, []).append((future, ok, value))
    for loop, answers in on_loops.items():
        with contextlib.suppress(RuntimeError):  # a closed loop: no one waits on it any more
            loop.call_soon_threadsafe(_settle_on_loop, answers)


def _settle_on_loop(answers: list[tuple["asyncio.Future[Any]", bool, Any]]) -> None:
    for future, ok, value in answers:
        if future.done():  # cancelled: its caller went away; what it wrote stays written
            continue
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

"""One writer per process: group commit of many negotiations' appends in one transaction.

Callers hand in a function of a Connection; the writer thread runs whatever is queued, each in
a savepoint of one transaction, commits once, and only then answers every caller. Durability
stays full (one fsync per batch, never per nothing); throughput comes from the batching.
"""

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, Final, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

T = TypeVar("T")
MAX_BATCH: Final = 64

_Work = tuple[Callable[[Connection], Any], "Future[Any]"]
_STOP: Final = object()


class Writer:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine
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

    def close(self) -> None:
        self._queue.put(_STOP)
        self._thread.join()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            batch: list[_Work] = [first]  # type: ignore[list-item]  # not _STOP, checked above
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

    def _commit(self, batch: list[_Work]) -> None:
        if len(batch) > 1:
            try:
                results = self._run_batch(batch)
            except DBAPIError:
                # The commit failed (a lost connection, a serialization failure): give each
                # caller its own transaction, so that one's trouble is not everyone's.
                for work in batch:
                    self._commit_alone(work)
                return
            for (_, future), (ok, value) in zip(batch, results, strict=True):
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)
            return
        self._commit_alone(batch[0])

    def _run_batch(self, batch: list[_Work]) -> list[tuple[bool, Any]]:
        results: list[tuple[bool, Any]] = []
        with self._engine.connect() as connection, connection.begin():
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

    def _commit_alone(self, work: _Work) -> None:
        fn, future = work
        try:
            with self._engine.connect() as connection, connection.begin():
                value = fn(connection)
        except BaseException as exc:  # handed to its caller, not swallowed
            future.set_exception(exc)
        else:
            future.set_result(value)

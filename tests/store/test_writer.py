"""The group-commit writer: each caller gets its own answer, a batch is answered once per
loop, a caller that goes away loses nothing it wrote, and a batch pays for savepoints only
when one of its works raises."""

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, event, text

from accord.store.engine import make_engine
from accord.store.writer import Writer


class Boom(Exception):
    pass


@pytest.fixture
def writer(tmp_path: Path) -> Writer:
    engine = make_engine(f"sqlite:///{tmp_path / 'w.db'}", writer=True)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (n INTEGER PRIMARY KEY)"))
    return Writer(engine)


def _insert(n: int, *, fail: bool = False) -> Callable[[Connection], int]:
    def fn(conn: Connection) -> int:
        conn.execute(text("INSERT INTO t (n) VALUES (:n)"), {"n": n})
        if fail:
            raise Boom(n)
        return n

    return fn


def _rows(writer: Writer) -> list[int]:
    query = text("SELECT n FROM t ORDER BY n")
    return writer.write(lambda conn: [row[0] for row in conn.execute(query)])


def test_concurrent_callers_each_get_their_own_answer(writer: Writer) -> None:
    async def run() -> list[object]:
        calls = [writer.write_async(_insert(n, fail=n % 7 == 3)) for n in range(40)]
        answers: list[object] = await asyncio.gather(*calls, return_exceptions=True)
        return answers

    answers = asyncio.run(run())
    for n, answer in enumerate(answers):
        if n % 7 == 3:
            assert isinstance(answer, Boom) and answer.args == (n,)
        else:
            assert answer == n
    assert _rows(writer) == [n for n in range(40) if n % 7 != 3]  # a failed write left nothing
    writer.close()


def test_a_cancelled_caller_keeps_its_write_and_the_writer_goes_on(writer: Writer) -> None:
    async def run() -> int:
        slow = asyncio.ensure_future(writer.write_async(_insert(1)))
        await asyncio.sleep(0)  # queued: the writer has it
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        return await writer.write_async(_insert(2))

    assert asyncio.run(run()) == 2
    assert _rows(writer) == [1, 2]
    writer.close()


def _traced(tmp_path: Path) -> tuple[Writer, list[str]]:
    """A writer whose connections report every statement the database runs."""
    engine = make_engine(f"sqlite:///{tmp_path / 't.db'}", writer=True)
    statements: list[str] = []

    @event.listens_for(engine, "connect")
    def _trace(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.set_trace_callback(statements.append)

    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (n INTEGER PRIMARY KEY)"))
    return Writer(engine), statements


def _one_batch(writer: Writer, works: list[Callable[[Connection], int]]) -> list[object]:
    """`works` queued while the writer is held by another, so that they run as one batch."""
    running, release = threading.Event(), threading.Event()

    def hold(_conn: Connection) -> bool:
        running.set()
        return release.wait(10)

    holding = writer.submit(hold)
    assert running.wait(10)  # the writer is inside the holding work's batch
    futures = [writer.submit(work) for work in works]
    release.set()
    holding.result()
    answers: list[object] = []
    for future in futures:
        try:
            answers.append(future.result())
        except Boom as exc:
            answers.append(exc)
    return answers


def _counted(runs: list[int], n: int, *, fail: bool = False) -> Callable[[Connection], int]:
    insert = _insert(n, fail=fail)

    def fn(conn: Connection) -> int:
        runs.append(n)
        return insert(conn)

    return fn


def test_a_batch_runs_in_one_transaction_without_savepoints(tmp_path: Path) -> None:
    writer, statements = _traced(tmp_path)
    runs: list[int] = []
    statements.clear()
    assert _one_batch(writer, [_counted(runs, n) for n in range(5)]) == list(range(5))
    first = next(i for i, s in enumerate(statements) if s.startswith("INSERT"))
    begin = max(i for i, s in enumerate(statements[:first]) if s == "BEGIN IMMEDIATE")
    batch = statements[begin:]
    assert [s for s in batch if s.startswith("INSERT")] == [
        f"INSERT INTO t (n) VALUES ({n})" for n in range(5)
    ]
    assert not [s for s in batch if "SAVEPOINT" in s]
    assert batch.count("COMMIT") == 1
    assert runs == list(range(5))
    assert _rows(writer) == list(range(5))
    writer.close()


def test_a_work_that_raises_sends_its_batch_through_savepoints(tmp_path: Path) -> None:
    writer, statements = _traced(tmp_path)
    runs: list[int] = []
    answers = _one_batch(writer, [_counted(runs, n, fail=n == 2) for n in range(5)])
    assert answers[:2] + answers[3:] == [0, 1, 3, 4]
    assert isinstance(answers[2], Boom)
    # The batch ran once together up to the failure, then again with a savepoint each.
    assert runs == [0, 1, 2, 0, 1, 2, 3, 4]
    assert sum("ROLLBACK TO SAVEPOINT" in s for s in statements) == 1
    assert _rows(writer) == [0, 1, 3, 4]
    writer.close()


def test_the_writer_keeps_one_connection_and_replaces_a_lost_one(database_url: str) -> None:
    """Batches share the writer's one connection; when the database drops it (a restart, an
    administrator), the next write runs on a fresh one instead of failing."""
    if not database_url.startswith("postgresql"):
        pytest.skip("terminating a connection from the server exists only on PostgreSQL")
    engine = make_engine(database_url, writer=True)
    writer = Writer(engine)
    try:
        backend = text("SELECT pg_backend_pid()")
        first = writer.write(lambda conn: conn.execute(backend).scalar_one())
        assert writer.write(lambda conn: conn.execute(backend).scalar_one()) == first
        with engine.connect() as admin:
            admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        assert writer.write(lambda conn: conn.execute(backend).scalar_one()) != first
    finally:
        writer.close()
        engine.dispose()


def test_a_work_alone_that_raises_runs_once(tmp_path: Path) -> None:
    writer, statements = _traced(tmp_path)
    runs: list[int] = []
    statements.clear()
    with pytest.raises(Boom):
        writer.write(_counted(runs, 7, fail=True))
    assert runs == [7]
    assert not [s for s in statements if "SAVEPOINT" in s]
    assert _rows(writer) == []
    writer.close()

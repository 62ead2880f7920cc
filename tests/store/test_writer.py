"""The group-commit writer's event-loop door: each caller gets its own answer, a batch is
answered once per loop, and a caller that goes away loses nothing it wrote."""

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

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

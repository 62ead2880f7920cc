"""Statements straight through the driver: many rows in as few statements as fit, on both
databases, with every value as given."""

import pytest
from sqlalchemy import text

from accord.store import driver
from accord.store.engine import make_engine


@pytest.mark.parametrize("count", [1, 2, 100, 101, 250])
def test_insert_writes_every_row_as_given(database_url: str, count: int) -> None:
    engine = make_engine(database_url, writer=True)
    rows = [{"n": n, "label": f"row {n}", "flag": n % 2 == 0, "note": None} for n in range(count)]
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE t (n INTEGER, label TEXT, flag BOOLEAN, note TEXT)"))
            driver.insert(conn, "t", rows)
        with engine.connect() as conn:
            stored = conn.execute(text("SELECT n, label, flag, note FROM t ORDER BY n")).all()
        assert [(n, label, bool(flag), note) for n, label, flag, note in stored] == [
            (r["n"], r["label"], r["flag"], r["note"]) for r in rows
        ]
    finally:
        engine.dispose()

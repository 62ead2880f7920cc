"""`accord sweep` and `accord check` against a data folder."""

import json
from datetime import UTC, datetime

from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from accord.app.root import Accord
from accord.app.settings import Settings
from accord.cli.main import app
from accord.protocols.rooms.moves import OpenRequest
from accord.store.database import Database
from tests.conftest import FakeClock

SCHEMA = {"price": {"type": "money", "currency": "EUR"}}
LONG_AGO = datetime(2020, 1, 6, 9, 0, 0, tzinfo=UTC)


def _store_args(settings: Settings) -> list[str]:
    return ["--data-dir", str(settings.data_dir), "--database-url", settings.database]


def _open_long_ago(db: Database, settings: Settings) -> str:
    """A draft room opened in 2020: its invite expired long before the real clock's now."""
    rooms = Accord(settings, clock=FakeClock(LONG_AGO), db=db).rooms
    opened = rooms.open(OpenRequest(subject_schema=SCHEMA))
    return str(opened["room"]["room_id"])


def test_sweep_expires_what_is_due(db: Database, settings: Settings) -> None:
    room_id = _open_long_ago(db, settings)
    runner = CliRunner()
    swept = runner.invoke(app, ["sweep", "--json", *_store_args(settings)])
    assert swept.exit_code == 0, swept.stderr
    assert json.loads(swept.stdout) == {
        "expired": [{"protocol": "rooms", "id": room_id}],
        "closed": [],
        "opportunities_expired": [],
    }
    again = runner.invoke(app, ["sweep", "--json", *_store_args(settings)])
    assert json.loads(again.stdout) == {"expired": [], "closed": [], "opportunities_expired": []}
    human = runner.invoke(app, ["sweep", *_store_args(settings)])
    assert human.exit_code == 0
    assert "expired 0 room(s)" in human.stdout


def test_check_finds_a_tampered_projection_and_repairs_it(db: Database, settings: Settings) -> None:
    room_id = _open_long_ago(db, settings)
    runner = CliRunner()
    clean = runner.invoke(app, ["check", "--json", *_store_args(settings)])
    assert clean.exit_code == 0, clean.stderr
    assert json.loads(clean.stdout) == {"negotiations": 1, "problems": [], "ok": True}

    engine = create_engine(settings.database)
    with engine.begin() as conn:
        state = json.loads(
            conn.execute(
                text("SELECT state FROM negotiations WHERE id = :id"), {"id": room_id}
            ).scalar_one()
        )
        state["title"] = "not what the log says"
        conn.execute(
            text("UPDATE negotiations SET state = :state WHERE id = :id"),
            {"state": json.dumps(state), "id": room_id},
        )
    engine.dispose()

    tampered = runner.invoke(app, ["check", "--json", *_store_args(settings)])
    assert tampered.exit_code == 1
    assert isinstance(tampered.exception, SystemExit)  # a verdict, not a crash
    report = json.loads(tampered.stdout)
    assert report["ok"] is False
    assert [p["id"] for p in report["problems"]] == [room_id]
    assert report["problems"][0]["problem"].startswith("projection")

    human = runner.invoke(app, ["check", *_store_args(settings)])
    assert human.exit_code == 1
    assert "problems found" in human.stdout

    repaired = runner.invoke(app, ["check", "--repair", "--json", *_store_args(settings)])
    assert repaired.exit_code == 0, repaired.stdout
    assert [r["id"] for r in json.loads(repaired.stdout)["repaired"]] == [room_id]
    after = runner.invoke(app, ["check", "--json", *_store_args(settings)])
    assert after.exit_code == 0, after.stdout
    assert json.loads(after.stdout)["ok"] is True

"""Only `accord serve` makes a store: every other command that works on one refuses a missing
store, saying where it looked, and leaves nothing behind."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.cli.main import app
from accord.store.database import Database

STORE_COMMANDS = [
    pytest.param(["check"], id="check"),
    pytest.param(["sweep"], id="sweep"),
    pytest.param(["merchants", "list"], id="merchants_list"),
    pytest.param(["merchants", "create", "acme"], id="merchants_create"),
    pytest.param(["merchants", "keys", "acme"], id="merchants_keys"),
    pytest.param(["principals", "create", "ada"], id="principals_create"),
    pytest.param(["principals", "agent-key", "ada", "--agent-id", "x"], id="principals_agent"),
]
KEY_COMMANDS = [
    pytest.param(["keys", "list"], id="keys_list"),
    pytest.param(["keys", "rotate", "--mode", "test"], id="keys_rotate"),
]


def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*"))


@pytest.mark.parametrize("args", STORE_COMMANDS)
def test_a_missing_store_is_refused_in_the_current_folder(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("ACCORD_DATA_DIR", "ACCORD_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert f"no Accord store at {tmp_path / 'accord-data' / 'accord.db'}" in result.stderr
    assert "`accord serve` makes one" in result.stderr and "--data-dir" in result.stderr
    assert _files(tmp_path) == []


@pytest.mark.parametrize("args", STORE_COMMANDS)
def test_a_missing_store_is_refused_where_the_settings_point(
    args: list[str], tmp_path: Path, database_url: str
) -> None:
    """`database_url` names a store no one made: a SQLite file in a folder that does not
    exist, or on PostgreSQL a schema with no migrations applied."""
    data_dir = tmp_path / "nonexistent" / "x"
    store = ["--data-dir", str(data_dir), "--database-url", database_url]
    result = CliRunner().invoke(app, [*args, *store])
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: no Accord store at ")
    assert not (tmp_path / "nonexistent").exists()
    made = CliRunner().invoke(app, [*args, *store])
    assert made.exit_code == 1  # and asking again made nothing in between


@pytest.mark.parametrize("args", KEY_COMMANDS)
def test_a_missing_keyring_is_refused(args: list[str], tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    result = CliRunner().invoke(app, [*args, "--data-dir", str(data_dir)])
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert f"no signing keyring at {data_dir / 'keys' / 'keyring.json'}" in result.stderr
    assert "--key-file" in result.stderr
    assert not data_dir.exists()


def test_a_store_serve_made_is_used(tmp_path: Path, database_url: str) -> None:
    Database(database_url).close()  # what `accord serve` does on its first start
    result = CliRunner().invoke(app, ["check", "--database-url", database_url])
    assert result.exit_code == 0, result.stderr
    assert "0 negotiation(s) checked: ok" in result.stdout

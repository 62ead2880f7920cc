"""`accord merchants` through its real entry point, on the test's store: keys printed once at
creation, metadata afterwards, refusals as `error: … (code)` with exit 1."""

import json
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from accord.app.merchants import ANY_KEY, Merchants
from accord.app.settings import Settings
from accord.cli.main import app
from accord.core.refusals import Refused
from accord.store.database import Database
from tests.merchants.test_keys import PREFIXES


@pytest.fixture
def accord(settings: Settings, db: Database) -> Any:
    """`accord` on the store the test made, as `accord serve` would have."""
    runner = CliRunner()

    def run(*args: str) -> Result:
        store = ["--data-dir", str(settings.data_dir), "--database-url", settings.database]
        return runner.invoke(app, ["merchants", *args, *store])

    return run


def test_create_prints_the_four_keys_once(accord: Any, merchants: Merchants) -> None:
    made = accord("create", "acme", "--json")
    assert made.exit_code == 0, made.output
    body = json.loads(made.stdout)
    assert set(body) == {"tenant_id", "keys"}
    assert {name: key[: len(PREFIXES[name])] for name, key in body["keys"].items()} == PREFIXES
    for key in body["keys"].values():
        assert merchants.authenticate(key, allow=ANY_KEY).tenant_id == body["tenant_id"]

    shown = accord("keys", "acme", "--json")
    assert shown.exit_code == 0, shown.output
    tenant = json.loads(shown.stdout)
    assert tenant["tenant_id"] == body["tenant_id"] and tenant["name"] == "acme"
    assert len(tenant["keys"]) == 4
    listed = accord("list", "--json")
    assert [t["name"] for t in json.loads(listed.stdout)["tenants"]] == ["acme"]
    for output in (shown.stdout, listed.stdout):
        assert "acc_" not in output and "sha256:" not in output


def test_create_for_a_person(accord: Any) -> None:
    made = accord("create", "acme")
    assert made.exit_code == 0, made.output
    assert made.stdout.startswith("tenant ten_")
    for prefix in PREFIXES.values():
        assert prefix in made.stdout
    assert "only their hashes" in made.stderr


def test_rotate_prints_the_new_keys_and_retires_the_old(accord: Any, merchants: Merchants) -> None:
    old = json.loads(accord("create", "acme", "--json").stdout)["keys"]
    rotated = accord("keys", "acme", "--rotate", "publishable", "--json")
    assert rotated.exit_code == 0, rotated.output
    new = json.loads(rotated.stdout)["keys"]
    assert set(new) == {"publishable_test", "publishable_live"}
    assert merchants.authenticate(new["publishable_live"], allow=ANY_KEY).mode == "live"
    with pytest.raises(Refused):
        merchants.authenticate(old["publishable_live"], allow=ANY_KEY)
    assert merchants.authenticate(old["secret_live"], allow=ANY_KEY).key_kind == "secret"

    shown = accord("keys", "acme")
    assert shown.exit_code == 0, shown.output
    assert "acme" in shown.stdout and "acc_" not in shown.stdout


@pytest.mark.parametrize(
    ("args", "code"),
    [
        pytest.param(("create", "acme"), "invalid_request", id="name_taken"),
        pytest.param(("create", "bad name"), "invalid_request", id="bad_name"),
        pytest.param(("keys", "nobody"), "invalid_request", id="unknown_tenant"),
        pytest.param(
            ("keys", "nobody", "--rotate", "secret"), "invalid_request", id="rotate_nobody"
        ),
    ],
)
def test_refusals_exit_1(accord: Any, args: tuple[str, ...], code: str) -> None:
    assert accord("create", "acme").exit_code == 0
    before = accord("list", "--json").stdout
    plain = accord(*args)
    assert plain.exit_code == 1
    assert plain.stderr.startswith("error: ") and f"({code})" in plain.stderr
    as_json = accord(*args, "--json")
    assert as_json.exit_code == 1
    assert as_json.stdout == ""  # an error is never mistaken for an answer
    assert json.loads(as_json.stderr)["error"]["code"] == code
    assert accord("list", "--json").stdout == before


def test_an_unknown_kind_is_a_usage_error(accord: Any) -> None:
    assert accord("create", "acme").exit_code == 0
    before = accord("list", "--json").stdout
    assert accord("keys", "acme", "--rotate", "session").exit_code == 2
    assert accord("list", "--json").stdout == before


def test_list_for_a_person(accord: Any) -> None:
    for name in ("globex", "acme"):
        assert accord("create", name).exit_code == 0
    listed = accord("list")
    assert listed.exit_code == 0, listed.output
    assert listed.stdout.index("acme") < listed.stdout.index("globex")
    assert "acc_" not in listed.stdout

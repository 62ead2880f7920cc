"""`accord principals` through its real entry point, on the test's store: keys printed once, for
a person or as the API's JSON; refusals as `error: … (code)` with exit 1, usage errors exit 2."""

import json
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from accord.app.identity import PrincipalCaller
from accord.app.principals import Action, Principals
from accord.app.settings import Settings
from accord.cli.main import app
from accord.core.refusals import Refused
from accord.store.database import Database


@pytest.fixture
def accord(settings: Settings, db: Database) -> Any:
    """`accord` on the store the test made, as `accord serve` would have."""
    runner = CliRunner()

    def run(*args: str) -> Result:
        store = ["--data-dir", str(settings.data_dir), "--database-url", settings.database]
        return runner.invoke(app, ["principals", *args, *store])

    return run


def test_create_prints_both_keys_once(accord: Any, principals: Principals) -> None:
    made = accord("create", "ada", "--json")
    assert made.exit_code == 0, made.output
    body = json.loads(made.stdout)
    assert set(body) == {"principal_id", "name", "owner_key", "agent_key", "agent_id"}
    assert (body["name"], body["agent_id"]) == ("ada", "default")
    owner = principals.authorize(body["owner_key"], Action.WRITE)
    agent = principals.authorize(body["agent_key"], Action.TAKE_TURNS)
    assert owner == PrincipalCaller(body["principal_id"], "owner", None)
    assert agent == PrincipalCaller(body["principal_id"], "agent", "default")
    assert made.stderr == ""


def test_create_for_a_person(accord: Any) -> None:
    made = accord("create", "ada")
    assert made.exit_code == 0, made.output
    lines = made.stdout.splitlines()
    assert [line.split()[0] for line in lines] == [
        "principal_id", "name", "owner_key", "agent_key", "agent_id",
    ]  # fmt: skip
    assert "acc_ok_" in lines[2] and "acc_ak_" in lines[3]
    assert "only hashes" in made.stderr


def test_agent_key_replaces_the_ids_old_key(accord: Any, principals: Principals) -> None:
    made = json.loads(accord("create", "ada", "--json").stdout)
    first = accord("agent-key", "ada", "--agent-id", "helper", "--json")
    assert first.exit_code == 0, first.output
    helper = json.loads(first.stdout)
    assert set(helper) == {"principal_id", "agent_id", "agent_key"}
    assert helper["principal_id"] == made["principal_id"] and helper["agent_id"] == "helper"
    assert helper["agent_key"].startswith("acc_ak_")
    second = json.loads(accord("agent-key", "ada", "--agent-id", "helper", "--json").stdout)
    assert principals.authorize(second["agent_key"], Action.READ).agent_id == "helper"
    with pytest.raises(Refused) as refused:
        principals.authorize(helper["agent_key"], Action.READ)
    assert refused.value.refusal.code == "unauthenticated"


def test_agent_key_for_a_person(accord: Any) -> None:
    accord("create", "ada", "--json")
    made = accord("agent-key", "ada", "--agent-id", "helper")
    assert made.exit_code == 0, made.output
    lines = [line.split() for line in made.stdout.splitlines()]
    assert [line[0] for line in lines] == ["principal_id", "agent_id", "agent_key"]
    assert lines[1] == ["agent_id", "helper"] and lines[2][1].startswith("acc_ak_")
    assert "only hashes" in made.stderr


@pytest.mark.parametrize(
    ("args", "code"),
    [
        pytest.param(("agent-key", "nobody", "--agent-id", "x"), "invalid_request", id="unknown"),
        pytest.param(("agent-key", "ada", "--agent-id", "accord"), "invalid_request", id="accord"),
        pytest.param(("agent-key", "ada", "--agent-id", "Big"), "invalid_request", id="bad_id"),
        pytest.param(("create", "ada"), "invalid_request", id="name_taken"),
        pytest.param(("create", "no spaces"), "invalid_request", id="bad_name"),
    ],
)
def test_refusals(accord: Any, args: tuple[str, ...], code: str) -> None:
    assert accord("create", "ada", "--json").exit_code == 0
    for_person = accord(*args)
    assert for_person.exit_code == 1
    assert for_person.stdout == ""
    assert for_person.stderr.startswith("error: ") and f"({code})" in for_person.stderr
    as_json = accord(*args, "--json")
    assert as_json.exit_code == 1
    assert as_json.stdout == ""  # an error is never mistaken for an answer
    assert json.loads(as_json.stderr)["error"]["code"] == code


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("agent-key", "ada"), id="no_agent_id"),
        pytest.param(("create",), id="no_name"),
        pytest.param(("rotate", "ada"), id="no_such_command"),
    ],
)
def test_usage_errors_exit_2(accord: Any, args: tuple[str, ...]) -> None:
    assert accord(*args).exit_code == 2

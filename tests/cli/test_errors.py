"""Failures said as messages, in one place (accord/cli/errors.py): on stderr, never stdout;
with the error body's details; exit 1, or 2 for a usage mistake; never a traceback."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from accord.cli.main import app
from tests.cli.conftest import Person
from tests.cli.test_rooms import open_and_join

UNREACHABLE_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:1/x"


def _said(result: Result, exit_code: int = 1) -> str:
    """The one message a failure gives: exit code, stderr only, no traceback."""
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    assert isinstance(result.exception, SystemExit), result.exception  # not a crash
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    return result.stderr


def test_a_refusal_names_each_field_to_fix(alice: Person, bob: Person) -> None:
    room_id = open_and_join(alice, bob)
    without_day = '{"price": {"amount_minor": 9000, "currency": "EUR"}}'
    said = _said(bob("move", room_id, "counter", "--terms", without_day))
    first, *details = said.splitlines()
    assert first.startswith("error: ") and first.endswith("(invalid_terms)")
    assert details == ["  terms.day: required"]

    as_json = bob("move", room_id, "counter", "--terms", without_day, "--json")
    assert as_json.exit_code == 1 and as_json.stdout == ""
    assert json.loads(as_json.stderr)["error"]["fields"] == {"terms.day": "required"}


def test_a_refusal_names_the_moves_allowed(alice: Person, bob: Person) -> None:
    room_id = open_and_join(alice, bob)
    said = _said(bob("move", room_id, "offer", "--terms", "price=90"))
    assert said.splitlines()[1:] == [
        "  allowed: counter, need_more_detail, approve, reject, cancel"
    ]


def test_an_output_file_in_a_missing_folder(alice: Person, bob: Person, tmp_path: Path) -> None:
    room_id = open_and_join(alice, bob)
    assert bob("move", room_id, "cancel").exit_code == 0
    target = tmp_path / "missing-dir" / "receipt.json"
    said = _said(bob("receipt", room_id, "-o", str(target)))
    assert said == f"error: {target}: No such file or directory\n"


@pytest.mark.parametrize(
    ("url", "exit_code", "says"),
    [
        pytest.param(UNREACHABLE_POSTGRES, 1, "cannot open the database at " + UNREACHABLE_POSTGRES,
                     id="unreachable"),
        pytest.param("mysql://u@db.example/x", 2, "sqlite:///PATH or postgresql+psycopg://",
                     id="mysql"),
        pytest.param("postgresql://u@db.example/x", 2, "postgresql+psycopg://", id="psycopg2"),
        pytest.param("not a url", 2, "is not a database URL", id="garbage"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", [["check"], ["merchants", "list"], ["serve"]], ids=" ".join)
def test_a_database_that_cannot_be_used(
    url: str, exit_code: int, says: str, command: list[str], tmp_path: Path
) -> None:
    result = CliRunner().invoke(app, [*command, "--database-url", url, "--port", "1"])
    assert says in _said(result, exit_code)


@pytest.mark.parametrize(
    ("content", "why"),
    [
        pytest.param("{}", "it has no artifact or signed_payload member", id="empty_object"),
        pytest.param("[]", "it is an array, not a JSON object", id="array"),
        pytest.param("not json", "it is not strict JSON", id="not_json"),
        pytest.param('{"artifact": null}', "it has no signed_payload member", id="half"),
    ],
)
def test_verify_says_what_is_not_a_receipt(content: str, why: str, tmp_path: Path) -> None:
    path = tmp_path / "receipt.json"
    path.write_text(content)
    for extra in ([], ["--json"]):
        said = _said(CliRunner().invoke(app, ["verify", str(path), *extra]))
        assert said.startswith(f"error: {path} is not a receipt: {why}"), said
        assert "unsigned" not in said

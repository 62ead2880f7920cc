"""Docs held to the code (like sqlite-utils' tests/test_docs.py): every command has help,
answers --help, and appears in the README."""

import re
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from accord.cli.main import app

README = Path(__file__).resolve().parents[2] / "README.md"


def _command(path: tuple[str, ...]) -> Any:
    """The command at `path`, asked of each group as click asks it (the groups load their
    commands when asked)."""
    command = typer.main.get_command(app)
    for name in path:
        assert isinstance(command, TyperGroup)
        found = command.get_command(typer.Context(command), name)
        assert found is not None, f"accord {' '.join(path)} is listed but cannot be loaded"
        command = found
    return command


def _commands() -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []

    def walk(path: tuple[str, ...]) -> None:
        command = _command(path)
        if not isinstance(command, TyperGroup):
            found.append(path)
            return
        for name in sorted(command.list_commands(typer.Context(command))):
            walk((*path, name))

    walk(())
    return found


COMMANDS = _commands()


def test_the_command_tree() -> None:
    assert {"serve", "sweep", "check"} <= {c[0] for c in COMMANDS}
    rooms = {c[1] for c in COMMANDS if c[0] == "rooms"}
    assert {"open", "join", "list", "show", "move", "confirm"} <= rooms


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_command_has_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.stderr
    assert "Usage" in result.stdout
    short = CliRunner().invoke(app, [*path, "-h"])
    assert short.exit_code == 0, short.stderr
    assert short.stdout == result.stdout
    command = _command(path)
    assert command.help, f"accord {' '.join(path)} has no help text"
    for param in command.params:
        if param.param_type_name == "option" and param.name != "help":
            assert getattr(param, "help", None), f"{param.name} of {path} has no help"


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_every_command_is_in_the_readme(path: tuple[str, ...]) -> None:
    """`accord rooms join` counts as named when written out, or on a line that names
    `accord rooms` and the word `join` (as in `accord rooms open | join | list`)."""
    assert README.exists(), (
        "README.md is missing: the README author documents every command "
        f"(`accord {' '.join(path)}` among them)"
    )
    text = README.read_text(encoding="utf-8")
    full = f"accord {' '.join(path)}"
    group = f"accord {' '.join(path[:-1])}"
    named = full in text or any(
        group in line and re.search(rf"\b{re.escape(path[-1])}\b", line)
        for line in text.splitlines()
        if len(path) > 1
    )
    assert named, f"README.md does not mention `{full}`: the README author adds it"


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"accord {version('accord')}\n"


def test_shell_completion_is_offered_and_documented() -> None:
    shown = CliRunner().invoke(app, ["--show-completion", "bash"])
    assert shown.exit_code == 0, shown.stderr
    assert "_ACCORD_COMPLETE" in shown.stdout
    text = README.read_text(encoding="utf-8")
    assert "accord --install-completion" in text

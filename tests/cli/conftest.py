"""The CLI through its real entry point: a CliRunner per test, and people who each keep
their own credentials file and talk to the test's live server."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from accord.cli.main import app
from tests.conftest import LiveServer
from tests.sessions.conftest import shop  # noqa: F401  (the `shop` fixture)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@dataclass
class Person:
    """Someone at a terminal: `accord rooms ...` with their own credentials file."""

    runner: CliRunner
    server: LiveServer
    credentials: Path

    def __call__(self, *args: str) -> Result:
        full: Sequence[str] = [
            "rooms",
            *args,
            "--server",
            self.server.url,
            "--credentials",
            str(self.credentials),
        ]
        return self.runner.invoke(app, full)


@pytest.fixture
def alice(runner: CliRunner, server: LiveServer, tmp_path: Path) -> Person:
    return Person(runner, server, tmp_path / "alice" / "credentials.json")


@pytest.fixture
def bob(runner: CliRunner, server: LiveServer, tmp_path: Path) -> Person:
    return Person(runner, server, tmp_path / "bob" / "credentials.json")

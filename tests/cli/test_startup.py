"""A command loads only what it uses: `accord --version` neither the SDK nor the server, and
the commands that talk to a server never the server, the store or the discovery index (each
a noticeable share of a second at every start)."""

import json
import subprocess
import sys

import pytest

SERVER_SIDE = ("accord.app.root", "accord.app.settings", "sqlalchemy", "uvicorn", "numpy")
RUN = """
import json, sys
from accord.cli.main import app
try:
    app(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def _loaded(*args: str) -> set[str]:
    ran = subprocess.run(
        [sys.executable, "-c", RUN, *args], capture_output=True, text=True, check=True
    )
    modules: list[str] = json.loads(ran.stdout.splitlines()[-1])
    return set(modules)


def test_the_version_loads_no_command() -> None:
    loaded = _loaded("--version")
    assert not loaded & {*SERVER_SIDE, "accord.sdk", "httpx", "accord.cli.rooms"}


@pytest.mark.parametrize(
    "command", [("rooms", "--help"), ("sessions", "--help"), ("verify", "--help")]
)
def test_a_client_command_loads_nothing_of_the_server(command: tuple[str, ...]) -> None:
    assert not _loaded(*command) & set(SERVER_SIDE)


def test_a_store_command_loads_what_it_needs() -> None:
    """The check above would pass vacuously if nothing were ever loaded."""
    assert {"accord.app.settings", "sqlalchemy"} <= _loaded("check", "--help")

"""People at a terminal running `accord intro …` against the test's live server with their own
principal keys, made on the test's store."""

import json
from dataclasses import dataclass
from typing import Any

from typer.testing import CliRunner, Result

from accord.cli.main import app
from tests.conftest import LiveServer
from tests.principals.conftest import Principal

CELLIST = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET = "A string quartet in Lyon wants a cellist on Saturdays"


@dataclass
class Someone:
    """A principal at a terminal: `owner(…)` runs with the owner key, `agent(…)` with the
    selected agent's."""

    runner: CliRunner
    server: LiveServer
    principal: Principal

    def run(self, key: str, *args: str) -> Result:
        return self.runner.invoke(app, ["intro", *args, "--key", key, "--server", self.server.url])

    def owner(self, *args: str) -> Result:
        return self.run(self.principal.owner_key, *args)

    def agent(self, *args: str) -> Result:
        return self.run(self.principal.agent_key, *args)


def ok(result: Result) -> Any:
    """The JSON a command printed, having succeeded with nothing said on stderr."""
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return json.loads(result.stdout)


def said(result: Result) -> str:
    """What a command printed for a person, having succeeded."""
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout


def refused(result: Result, code: str) -> str:
    """The one message of a refusal: exit 1, nothing on stdout, `error: … (code)` first."""
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert isinstance(result.exception, SystemExit), result.exception
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: ") and first.endswith(f"({code})"), result.stderr
    return result.stderr


def intent(someone: Someone, statement: str, *options: str) -> str:
    made = ok(someone.owner("intents", "create", statement, "--visibility", "public", *options,
                            "--json"))  # fmt: skip
    intent_id: str = made["intent"]["intent_id"]
    return intent_id


def opened(ada: Someone, bob: Someone, *bobs: str) -> tuple[str, str, str]:
    """Ada's and Bob's intents, and the opportunity Ada opened between them."""
    mine = intent(ada, CELLIST)
    theirs = intent(bob, QUARTET, *bobs)
    body = ok(ada.agent("open", mine, theirs, "--json"))
    opportunity_id: str = body["opportunities"][0]["opportunity_id"]
    return mine, theirs, opportunity_id

"""`accord mcp`: the MCP door over stdio, for an agent's client that starts its tools as a
process. The same servers as `/mcp` in `accord serve`, on the store the settings name; `--token`
stands for the bearer and picks the tool set."""

from typing import Annotated

import typer

from accord.app.root import Accord
from accord.app.settings import Settings
from accord.cli.errors import Failure
from accord.cli.options import with_settings
from accord.core.refusals import Refused

Token = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar="ACCORD_TOKEN",
        help="The agent's credential (a seat token, a publishable key or session token, a "
        "principal's agent key); none serves the rooms tools. Prefer the variable.",
        show_default="none",
    ),
]


@with_settings
def mcp(settings: Settings, token: Token = None) -> None:
    """Serve the MCP tools over stdio (for a client that runs its tools as a process)."""
    # the MCP SDK takes seconds to import: only this command pays for it, not every `accord`
    from accord.mcp.servers import build

    accord = Accord(settings)
    try:
        try:
            caller = accord.doors.agent(token)
        except Refused as refused:
            raise Failure(refused.refusal.message, code=str(refused.refusal.code)) from None
        server = build(lambda: accord, token=token).for_caller(caller)
        server.run("stdio")
    finally:
        accord.close()

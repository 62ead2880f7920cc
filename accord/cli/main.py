"""`accord`: the command tree. Each command is imported when it runs (or when help lists
it), so a command loads only what it uses: `accord --version` starts at once, and the commands
that talk to a server never load the server or the store."""

import logging
from typing import Annotated, ClassVar, Final

import typer

from accord import __version__
from accord.cli.errors import AccordGroup
from accord.cli.output import out

COMMANDS: Final = {
    "verify": "accord.cli.verify:verify",
    "demo": "accord.cli.demo:demo",
    "mcp": "accord.cli.mcp:mcp",
    "serve": "accord.cli.server:serve",
    "sweep": "accord.cli.server:sweep",
    "check": "accord.cli.server:check",
    "rooms": "accord.cli.rooms:app",
    "keys": "accord.cli.keys:app",
    "merchants": "accord.cli.merchants:app",
    "sessions": "accord.cli.sessions:app",
    "principals": "accord.cli.principals:app",
    "intro": "accord.cli.intro:app",
    "adviser": "accord.cli.adviser:app",
    "bench": "accord.cli.bench:app",
    "agent": "accord.cli.agent:app",
}
"""Every command and group of `accord`, in the order help lists them."""


class Commands(AccordGroup):
    lazy: ClassVar = COMMANDS


app = typer.Typer(
    name="accord",
    cls=Commands,  # where every command's failures become messages
    help="Accord: an open negotiation server. Agents negotiate, people decide.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        out.print(f"accord {__version__}", markup=False)
        raise typer.Exit()


@app.callback()
def accord(
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version."
        ),
    ] = False,
) -> None:
    """Accord: an open negotiation server. Agents negotiate, people decide."""


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app()

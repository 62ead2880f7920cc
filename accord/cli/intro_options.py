"""What every `accord intro` command shares: the principal's key (`--key` / `ACCORD_KEY`), the
server, and the principal's surface of `accord.sdk` on it."""

import contextlib
from collections.abc import Iterator
from typing import Annotated, Final

import typer

from accord.cli.errors import talking_to
from accord.sdk import Accord, Principal

DEFAULT_SERVER: Final = "http://127.0.0.1:8000"

Key = Annotated[
    str,
    typer.Option(
        "--key",
        envvar="ACCORD_KEY",
        help="A principal key: the owner key (acc_ok_…) writes intents and decides, the "
        "selected agent's key (acc_ak_…) takes turns and asks questions.",
        show_default=False,
    ),
]
IntentId = Annotated[str, typer.Argument(metavar="INTENT_ID", help="One of your intents.")]
OpportunityId = Annotated[
    str,
    typer.Argument(
        metavar="OPPORTUNITY_ID", help="An opportunity you hold a seat in (opportunities list)."
    ),
]


@contextlib.contextmanager
def principal(server: str, key: str) -> Iterator[Principal]:
    """The principal's surface on `server`; a failed request ends the command."""
    url = server.rstrip("/")
    with talking_to(url), Accord(url) as client:
        yield client.principal(key)

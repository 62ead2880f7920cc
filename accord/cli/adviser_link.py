"""`accord adviser link`: a case follows your seat of a room, an arbitrated session or an
introduction (spec/adviser-api.md, Linked tables). The credential proves the seat is yours; the
server keeps the seat, never the credential."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from accord.cli.adviser_client import CaseId, Key, adviser, app, print_body
from accord.cli.adviser_display import hint, say
from accord.cli.credentials import DEFAULT_PATH
from accord.cli.errors import Failure
from accord.cli.flags import Json, Server
from accord.cli.intro_options import DEFAULT_SERVER
from accord.cli.room_options import CredentialsPath, load_credentials


class Protocol(StrEnum):
    rooms = "rooms"
    arbitrated = "arbitrated"
    intro = "intro"


@app.command()
def link(
    case_id: CaseId,
    protocol: Annotated[
        Protocol,
        typer.Argument(help="rooms, arbitrated (a buyer's session) or intro (an opportunity)."),
    ],
    negotiation_id: Annotated[
        str,
        typer.Argument(metavar="TABLE_ID", help="The room, session or opportunity id."),
    ],
    key: Key,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="ACCORD_TOKEN",
            help="The seat's seat or owner token (rooms), or the session token (arbitrated).",
            show_default="rooms: the token `accord rooms` stored for the room",
        ),
    ] = None,
    credentials: CredentialsPath = DEFAULT_PATH,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Follow a seat of a table (owner key): each offer becomes a proposal, each move in the
    other side's favour a concession, and their terms on the table a deal review."""
    if protocol is Protocol.rooms and token is None:
        stored = load_credentials(Path(credentials)).get(negotiation_id)
        if stored is None:
            raise Failure(
                f"no token stored for {negotiation_id} in {credentials}: pass --token with "
                "the seat's seat or owner token"
            )
        token = stored.seat_token
    if protocol is Protocol.arbitrated and token is None:
        raise Failure("an arbitrated session is linked with its session token: pass --token")
    if protocol is Protocol.intro and token is not None:
        raise Failure("an introduction is linked by your own seat: leave --token out")
    with adviser(server, key) as you:
        linked = you.link(case_id, protocol.value, negotiation_id, credential=token).to_json()

    def human() -> None:
        say(
            f"linked {linked.get('link_id')}: case {case_id} follows {linked.get('protocol')} "
            f"{linked.get('negotiation_id')} as {linked.get('seat')}"
        )
        hint(f"what it read so far: accord adviser show {case_id}")

    print_body(linked, as_json, human)

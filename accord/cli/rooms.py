"""`accord rooms`: a room from a terminal, over HTTP through `accord.sdk` (spec/rooms-api.md).

The tokens that `open` and `join` receive are kept in the credentials file and picked by room
id. The person at the terminal is the seat's owner, so commands use the owner token unless
`--as agent` or `--token` says otherwise. A stored token is only ever sent to the server that
issued it.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from rich.table import Table

from accord.cli import credentials as store
from accord.cli.credentials import Credential, CredentialsError
from accord.cli.errors import Failure
from accord.cli.output import err, out, print_json, print_link, write_receipt
from accord.cli.room_display import print_opening, print_room, show_line, styled, terms_inline
from accord.cli.room_input import (
    invite_token,
    json_object,
    looks_like_json,
    parse_schema,
    parse_terms,
)
from accord.cli.room_options import RoomOptions, load_credentials, room_options
from accord.protocols.rooms.state import MoveType
from accord.sdk import AwaitingOwner, JoinedRoom, RoomSeat

app = typer.Typer(
    name="rooms",
    help="Rooms from a terminal, over HTTP. Tokens from open and join are kept in the "
    "credentials file; you act as the seat's owner unless --as agent or --token.",
    no_args_is_help=True,
)

LIST_BATCH: Final = 200  # ListRequest takes at most 200 tokens

Limits = Annotated[
    str | None,
    typer.Option(
        "--limits",
        help='Your private limits: JSON or a JSON file, e.g. {"price": {"max": {"amount_minor": '
        '10000, "currency": "EUR"}}}. Committed in the log, never shown to the other side.',
        show_default="none",
    ),
]
Deadline = Annotated[
    str | None,
    typer.Option("--deadline", help="RFC 3339, e.g. 2026-12-24T17:00:00Z.", show_default="none"),
]
Message = Annotated[
    str | None,
    typer.Option("--message", help="A message for the other side.", show_default="none"),
]
RoomId = Annotated[
    str,
    typer.Argument(metavar="ROOM_ID", help="The room's id, as `accord rooms list` shows it."),
]


def _keep(path: Path, room_id: str, credential: Credential, answer: Mapping[str, Any]) -> None:
    """Store a new seat's tokens; if that cannot be done, show them now rather than lose them."""
    path = path.expanduser()
    existing = load_credentials(path).get(room_id)
    problem = None
    if existing is not None and existing.seat != credential.seat:
        problem = (
            f"{path} already holds the {existing.seat} seat of room {room_id}; "
            "keep each person's tokens in their own --credentials file"
        )
    else:
        try:
            store.remember(path, room_id, credential)
        except CredentialsError as exc:
            problem = str(exc)
    if problem is None:
        err.print(
            f"tokens for the {credential.seat} seat saved in {path}", markup=False, soft_wrap=True
        )
        return
    raise Failure(
        f"{problem}. Your tokens, shown this once:",
        details={key: answer[key] for key in ("seat_token", "owner_token")},
    )


# -- the commands ------------------------------------------------------------------------


def _take_seat(options: RoomOptions, joined: JoinedRoom[RoomSeat]) -> Mapping[str, Any]:
    """Keep the seat's tokens from an open or a join (printing the answer first under --json,
    so that a token is never lost to a failed write) and return the room."""
    answer = joined.to_json()
    room: Mapping[str, Any] = answer["room"]
    credential = Credential(
        seat=room["seat"],
        seat_token=answer["seat_token"],
        owner_token=answer["owner_token"],
        name=room["name"],
        server=options.url,
    )
    if options.as_json:
        print_json(answer)
    _keep(options.credentials, room["room_id"], credential, answer)
    return room


@app.command("open")
@room_options(seat=False)
def open_room(
    schema: Annotated[
        str,
        typer.Option(
            "--schema",
            help="The subject's typed fields: JSON, a JSON file, or compact like "
            "price:money:EUR,day:date,size:enum:S|M|L (note?:string is optional).",
        ),
    ],
    subject: Annotated[
        list[str] | None,
        typer.Option(
            "--subject",
            help="Your opening offer: JSON, or field=value pairs (repeat or comma-separate).",
            show_default="none",
        ),
    ] = None,
    limits: Limits = None,
    title: Annotated[
        str | None, typer.Option("--title", help="What the room is about.", show_default="none")
    ] = None,
    deadline: Deadline = None,
    message: Message = None,
    *,
    options: RoomOptions,
) -> None:
    """Open a room; print it, the invite for the other party and your limits opening."""
    subject_schema = parse_schema(schema)
    terms = parse_terms(subject, subject_schema, "--subject") if subject else None
    private = json_object(limits, "--limits") if limits is not None else None
    load_credentials(options.credentials)  # a broken file stops us before tokens are made
    with options.client() as client:
        opened = client.rooms.open(
            subject_schema,
            subject=terms,
            limits=private,
            title=title,
            deadline=deadline,
            message=message,
        )
    room = _take_seat(options, opened)
    if options.as_json:
        return
    print_room(room)
    invite = opened.to_json()["invite"]
    show_line(
        styled(f"invite for the other party (single use, expires {invite['expires_at']})", "bold")
    )
    show_line(styled(f"  token  {invite['token']}"))
    show_line(styled(f"  url    {invite['url']}"))
    show_line(styled(f"  they run: accord rooms join {invite['token']}"))
    print_opening(subject_schema, opened.to_json()["limits_opening"])


@app.command()
@room_options(seat=False)
def join(
    invite: Annotated[
        str, typer.Argument(help="The invite token, or the invite URL, from the other party.")
    ],
    limits: Limits = None,
    *,
    options: RoomOptions,
) -> None:
    """Join a room with the invite the other party gave you."""
    private = json_object(limits, "--limits") if limits is not None else None
    load_credentials(options.credentials)
    with options.client() as client:
        joined = client.rooms.join(invite_token(invite), limits=private)
    room = _take_seat(options, joined)
    if options.as_json:
        return
    print_room(room)
    print_opening(room.get("subject_schema") or {}, joined.to_json()["limits_opening"])


@app.command("list")
@room_options()
def list_rooms(
    include_closed: Annotated[
        bool, typer.Option("--all", help="Include agreed, closed and expired rooms.")
    ] = False,
    *,
    options: RoomOptions,
) -> None:
    """The rooms your stored tokens open (each asked of the server that issued it)."""
    by_server: dict[str, list[str]] = {}
    if options.token:
        by_server[options.url] = [options.token]
    else:
        for credential in load_credentials(options.credentials).values():
            by_server.setdefault(credential.server, []).append(credential.token(options.kind))
        if options.server_is_explicit or not by_server:
            by_server = {options.url: by_server.get(options.url, [])}
    rooms: list[Any] = []
    for url, tokens in by_server.items():
        with options.client(url) as client:
            for start in range(0, max(len(tokens), 1), LIST_BATCH):
                batch = tokens[start : start + LIST_BATCH]
                rooms += client.rooms.list(batch, include_closed=include_closed).to_json()["rooms"]
    if options.as_json:
        print_json({"rooms": rooms})
        return
    if not rooms:
        hint = "" if include_closed else " (--all shows finished ones too)"
        err.print(f"no rooms{hint}", markup=False)
        return
    grid = Table()
    widest = max(len(str(room.get("room_id"))) for room in rooms)
    grid.add_column("room", no_wrap=True, min_width=widest)  # ids are copied, never cut
    for column in ("name", "seat", "state", "turn", "deadline"):
        grid.add_column(column)
    for room in rooms:
        turn = "yours" if room.get("your_turn") else "—"
        grid.add_row(
            *(styled(room.get(k) or "") for k in ("room_id", "name", "seat", "state")),
            styled(turn),
            styled(room.get("deadline") or ""),
        )
    out.print(grid)


@app.command()
@room_options()
def show(room_id: RoomId, *, options: RoomOptions) -> None:
    """The room as your seat sees it."""
    with options.seat(room_id) as seat:
        room = seat.view().to_json()
    if options.as_json:
        print_json(room)
        return
    print_room(room)


@app.command()
@room_options()
def move(
    room_id: RoomId,
    move_type: Annotated[
        MoveType,
        typer.Argument(
            metavar="TYPE", help="offer, counter, need_more_detail, approve, reject or cancel."
        ),
    ],
    terms: Annotated[
        list[str] | None,
        typer.Option(
            "--terms",
            help="offer and counter: JSON, or field=value pairs (repeat or comma-separate), "
            "e.g. price=90.00,day=2026-12-10.",
            show_default="none",
        ),
    ] = None,
    subject_hash: Annotated[
        str | None,
        typer.Option(
            "--hash",
            help="approve: the subject_hash you approve.",
            show_default="the table's, read just before",
        ),
    ] = None,
    message: Message = None,
    deadline: Deadline = None,
    message_id: Annotated[
        str | None,
        typer.Option(
            "--message-id",
            help="Makes a retry safe: the same id and move get the first answer again.",
            show_default="none",
        ),
    ] = None,
    expected_seq: Annotated[
        int | None,
        typer.Option(
            "--expected-seq",
            help="Refuse (raced) unless the room is still at this seq.",
            show_default="none",
        ),
    ] = None,
    *,
    options: RoomOptions,
) -> None:
    """Make a move. Your owner token's approve, reject and cancel apply at once; an agent's
    wait for the owner's confirmation."""
    with options.seat(room_id) as seat:
        body: dict[str, Any] = {"type": move_type}
        needs_room = (terms and not (len(terms) == 1 and looks_like_json(terms[0]))) or (
            move_type == "approve" and subject_hash is None
        )
        room: Mapping[str, Any] = seat.view().to_json() if needs_room else {}
        if terms:
            body["terms"] = parse_terms(terms, room.get("subject_schema") or {}, "--terms")
        if move_type == "approve" and subject_hash is None and room.get("table"):
            subject_hash = room["table"]["subject_hash"]
            err.print(
                f"approving the terms on the table at seq {room.get('seq')}: "
                f"{terms_inline(room.get('subject_schema') or {}, room['table']['terms'])} "
                f"({subject_hash})",
                markup=False,
                soft_wrap=True,
            )
        extra = {
            "subject_hash": subject_hash,
            "message": message,
            "deadline": deadline,
            "message_id": message_id,
            "expected_seq": expected_seq,
        }
        body.update({k: v for k, v in extra.items() if v is not None})
        moved = seat.move(body)
    answer = moved.to_json()
    if options.as_json:
        print_json(answer)
        return
    if isinstance(moved, AwaitingOwner):
        err.print(
            f"{move_type} waits for the owner's confirmation ({moved.confirmation.id}): "
            f"`accord rooms confirm {room_id} --confirm` or --decline",
            markup=False,
            soft_wrap=True,
        )
    else:
        err.print(f"{move_type} made (seq {moved.move.seq})", markup=False)
    print_room(answer["room"])


@app.command()
@room_options()
def confirm(
    room_id: RoomId,
    confirmation_id: Annotated[
        str | None,
        typer.Argument(
            metavar="CONFIRMATION_ID",
            help="The confirmation to decide.",
            show_default="the pending one",
        ),
    ] = None,
    decision: Annotated[
        bool,
        typer.Option(
            "--confirm/--decline",
            help="Confirm the move your agent asked for, or decline it.",
            show_default="--confirm",
        ),
    ] = True,
    *,
    options: RoomOptions,
) -> None:
    """Confirm or decline what your agent asked for (approve, reject, cancel)."""
    with options.seat(room_id) as seat:
        if confirmation_id is None:
            waiting = seat.confirmations()
            if not waiting:
                raise Failure(
                    "Nothing waits for your confirmation in this room.",
                    code="confirmation_not_found",
                )
            chosen = waiting[0].to_json()
            confirmation_id = str(chosen["id"])
            if not options.as_json:
                verb = "confirming" if decision else "declining"
                terms = {f["name"]: f["value"] for f in chosen.get("fields") or []}
                what = f": {terms_inline(_schema_of(chosen), terms)}" if terms else ""
                err.print(f"{verb} {chosen['type']} ({confirmation_id}){what}", markup=False)
        decided = seat.confirm(confirmation_id) if decision else seat.decline(confirmation_id)
    answer = decided.to_json()
    if options.as_json:
        print_json(answer)
        return
    print_room(answer["room"])


@app.command()
@room_options()
def link(room_id: RoomId, *, options: RoomOptions) -> None:
    """A one-time link that opens the room in a browser as its owner (an hour): for your
    other device, a browser you did not open the room in, or the Telegram bot."""
    with options.seat(room_id) as seat:
        made = seat.link()
    print_link(
        made,
        telegram_note="Or link Telegram with it (the bot then asks you to confirm):",
        as_json=options.as_json,
    )


def _schema_of(confirmation: Mapping[str, Any]) -> dict[str, Any]:
    """Enough of a schema to format a confirmation's fields (they carry type and label)."""
    return {
        f["name"]: {"type": f.get("type"), "label": f.get("label", f["name"])}
        for f in confirmation.get("fields") or []
    }


@app.command()
@room_options()
def receipt(
    room_id: RoomId,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            dir_okay=False,
            help="Write the receipt to this file, and the room's log beside it as "
            "<name>.log.json, for `accord verify` offline.",
        ),
    ] = None,
    *,
    options: RoomOptions,
) -> None:
    """The receipt of a final room: signed for an agreement, unsigned for a close or expiry."""
    url, token = options.where(room_id)
    with options.client(url) as client:
        seat = client.rooms.seat(token, room_id=room_id)
        body = seat.receipt().to_json()
        log = seat.log().to_json() if output is not None else None
    if output is not None:
        log_path = write_receipt(output, body, log)
        err.print(
            f"wrote {output} and {log_path}; check them with: accord verify {output} "
            f"--log {log_path} --trust-url {url}/.well-known/jwks.json",
            markup=False,
            soft_wrap=True,
        )
    if options.as_json:
        print_json(body)
        return
    signed = body.get("artifact") is not None
    show_line(styled(f"receipt of {room_id}: {body.get('state')}", "bold"))
    show_line(styled(f"signature: {body['signature']['status']} ({body['signature']['reason']})"))
    if signed:
        kid = body["jwks"]["keys"][0]["kid"]
        show_line(styled(f"signed by {kid} for {body['arbiter']['agent_id']}"))
    show_line(styled(f"chain: {body['chain']['length']} envelopes, head {body['chain']['head']}"))

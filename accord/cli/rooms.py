"""`accord rooms`: a room from a terminal, over HTTP (spec/rooms-api.md).

The tokens that `open` and `join` receive are kept in the credentials file and picked by room
id. The person at the terminal is the seat's owner, so commands use the owner token unless
`--as agent` or `--token` says otherwise. A stored token is only ever sent to the server that
issued it.
"""

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from rich.table import Table

from accord.cli import credentials as store
from accord.cli.credentials import Credential, CredentialsError, TokenKind
from accord.cli.options import Json, Server
from accord.cli.output import err, out, print_json
from accord.cli.remote import call, fail, trouble
from accord.cli.room_display import (
    print_opening,
    print_room,
    show_line,
    styled,
    terms_inline,
)
from accord.cli.room_input import (
    invite_token,
    json_object,
    looks_like_json,
    parse_schema,
    parse_terms,
)
from accord.protocols.rooms.state import MoveType

app = typer.Typer(
    name="rooms",
    help="Rooms from a terminal, over HTTP. Tokens from open and join are kept in the "
    "credentials file; you act as the seat's owner unless --as agent or --token.",
    no_args_is_help=True,
)

DEFAULT_SERVER: Final = "http://127.0.0.1:8000"
LIST_BATCH: Final = 200  # ListRequest takes at most 200 tokens

CredentialsPath = Annotated[
    Path,
    typer.Option(
        "--credentials",
        envvar="ACCORD_CREDENTIALS",
        help="File that keeps the tokens open and join receive (mode 0600).",
    ),
]
Token = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar="ACCORD_TOKEN",
        help="Use this seat or owner token instead of a stored one.",
        show_default="the stored token",
    ),
]
As = Annotated[
    TokenKind,
    typer.Option(
        "--as",
        envvar="ACCORD_AS",
        help="Which stored token to use: owner (you, the person) or agent (the seat token).",
    ),
]
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


# -- talking to the server ---------------------------------------------------------------


def _server_url(server: str) -> str:
    return server.rstrip("/")


def _is_explicit(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _load(path: Path) -> dict[str, Credential]:
    path = path.expanduser()
    if not store.is_private(path):
        err.print(
            f"warning: {path} can be read by others; run `chmod 600 {path}`",
            markup=False,
            soft_wrap=True,
        )
    try:
        return store.load(path)
    except CredentialsError as exc:
        trouble(str(exc))


def _seat(
    ctx: typer.Context,
    room_id: str,
    *,
    server: str,
    credentials: Path,
    token: str | None,
    kind: TokenKind,
) -> tuple[str, str]:
    """The server to ask and the token to send for `room_id`."""
    if token:
        return _server_url(server), token
    stored = _load(credentials).get(room_id)
    if stored is None:
        trouble(
            f"no token for room {room_id} in {credentials}; pass --token, or --credentials "
            "with the file that open or join wrote",
            exit_code=2,
        )
    if _is_explicit(ctx, "server") and _server_url(server) != stored.server:
        trouble(
            f"room {room_id} belongs to {stored.server}; its tokens are not sent to "
            f"{_server_url(server)} (pass --token to do so on purpose)",
            exit_code=2,
        )
    return stored.server, stored.token(kind)


def _keep(path: Path, room_id: str, credential: Credential, answer: Mapping[str, Any]) -> None:
    """Store a new seat's tokens; if that cannot be done, show them now rather than lose them."""
    path = path.expanduser()
    existing = _load(path).get(room_id)
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
    err.print(f"error: {problem}", markup=False, soft_wrap=True)
    err.print("Your tokens, shown this once:", markup=False)
    for key in ("seat_token", "owner_token"):
        err.print(f"  {key}  {answer[key]}", markup=False, soft_wrap=True)
    raise typer.Exit(1)


# -- the commands ------------------------------------------------------------------------


def _take_seat(
    credentials: Path, url: str, answer: Mapping[str, Any], *, as_json: bool
) -> Mapping[str, Any]:
    """Keep the seat's tokens from an open or a join (printing the answer first under --json,
    so that a token is never lost to a failed write) and return the room."""
    room: Mapping[str, Any] = answer["room"]
    credential = Credential(
        seat=room["seat"],
        seat_token=answer["seat_token"],
        owner_token=answer["owner_token"],
        name=room["name"],
        server=url,
    )
    if as_json:
        print_json(answer)
    _keep(credentials, room["room_id"], credential, answer)
    return room


@app.command("open")
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
    server: Server = DEFAULT_SERVER,
    credentials: CredentialsPath = store.DEFAULT_PATH,
    as_json: Json = False,
) -> None:
    """Open a room; print it, the invite for the other party and your limits opening."""
    subject_schema = parse_schema(schema)
    body: dict[str, Any] = {"subject_schema": subject_schema}
    if subject:
        body["subject"] = parse_terms(subject, subject_schema, "--subject")
    if limits is not None:
        body["limits"] = json_object(limits, "--limits")
    for key, value in (("title", title), ("deadline", deadline), ("message", message)):
        if value is not None:
            body[key] = value
    _load(credentials)  # a broken credentials file stops us before the server makes tokens
    url = _server_url(server)
    _, answer = call(url, "POST", "/v1/rooms", body=body, as_json=as_json)
    room = _take_seat(credentials, url, answer, as_json=as_json)
    if as_json:
        return
    print_room(room)
    invite = answer["invite"]
    show_line(
        styled(f"invite for the other party (single use, expires {invite['expires_at']})", "bold")
    )
    show_line(styled(f"  token  {invite['token']}"))
    show_line(styled(f"  url    {invite['url']}"))
    show_line(styled(f"  they run: accord rooms join {invite['token']}"))
    print_opening(subject_schema, answer["limits_opening"])


@app.command()
def join(
    invite: Annotated[
        str, typer.Argument(help="The invite token, or the invite URL, from the other party.")
    ],
    limits: Limits = None,
    server: Server = DEFAULT_SERVER,
    credentials: CredentialsPath = store.DEFAULT_PATH,
    as_json: Json = False,
) -> None:
    """Join a room with the invite the other party gave you."""
    body: dict[str, Any] = {"invite_token": invite_token(invite)}
    if limits is not None:
        body["limits"] = json_object(limits, "--limits")
    _load(credentials)
    url = _server_url(server)
    _, answer = call(url, "POST", "/v1/rooms/join", body=body, as_json=as_json)
    room = _take_seat(credentials, url, answer, as_json=as_json)
    if as_json:
        return
    print_room(room)
    print_opening(room.get("subject_schema") or {}, answer["limits_opening"])


@app.command("list")
def list_rooms(
    ctx: typer.Context,
    include_closed: Annotated[
        bool, typer.Option("--all", help="Include agreed, closed and expired rooms.")
    ] = False,
    server: Server = DEFAULT_SERVER,
    credentials: CredentialsPath = store.DEFAULT_PATH,
    token: Token = None,
    kind: As = TokenKind.OWNER,
    as_json: Json = False,
) -> None:
    """The rooms your stored tokens open (each asked of the server that issued it)."""
    by_server: dict[str, list[str]] = {}
    if token:
        by_server[_server_url(server)] = [token]
    else:
        for credential in _load(credentials).values():
            by_server.setdefault(credential.server, []).append(credential.token(kind))
        if _is_explicit(ctx, "server") or not by_server:
            url = _server_url(server)
            by_server = {url: by_server.get(url, [])}
    rooms: list[Any] = []
    for url, tokens in by_server.items():
        for start in range(0, max(len(tokens), 1), LIST_BATCH):
            body = {"tokens": tokens[start : start + LIST_BATCH], "include_closed": include_closed}
            _, answer = call(url, "POST", "/v1/rooms/list", body=body, as_json=as_json)
            rooms += answer["rooms"]
    if as_json:
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
def show(
    ctx: typer.Context,
    room_id: RoomId,
    server: Server = DEFAULT_SERVER,
    credentials: CredentialsPath = store.DEFAULT_PATH,
    token: Token = None,
    kind: As = TokenKind.OWNER,
    as_json: Json = False,
) -> None:
    """The room as your seat sees it."""
    url, secret = _seat(
        ctx, room_id, server=server, credentials=credentials, token=token, kind=kind
    )
    _, room = call(url, "GET", f"/v1/rooms/{room_id}", token=secret, as_json=as_json)
    if as_json:
        print_json(room)
        return
    print_room(room)


@app.command()
def move(
    ctx: typer.Context,
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
    server: Server = DEFAULT_SERVER,
    credentials: CredentialsPath = store.DEFAULT_PATH,
    token: Token = None,
    kind: As = TokenKind.OWNER,
    as_json: Json = False,
) -> None:
    """Make a move. Your owner token's approve, reject and cancel apply at once; an agent's
    wait for the owner's confirmation."""
    url, secret = _seat(
        ctx, room_id, server=server, credentials=credentials, token=token, kind=kind
    )
    body: dict[str, Any] = {"type": move_type}
    needs_room = (terms and not (len(terms) == 1 and looks_like_json(terms[0]))) or (
        move_type == "approve" and subject_hash is None
    )
    room: Mapping[str, Any] = {}
    if needs_room:
        _, room = call(url, "GET", f"/v1/rooms/{room_id}", token=secret, as_json=as_json)
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
    status, answer = call(
        url, "POST", f"/v1/rooms/{room_id}/moves", token=secret, body=body, as_json=as_json
    )
    if as_json:
        print_json(answer)
        return
    if status == 202:
        confirmation = answer.get("confirmation") or {}
        err.print(
            f"{move_type} waits for the owner's confirmation ({confirmation.get('id')}): "
            f"`accord rooms confirm {room_id} --confirm` or --decline",
            markup=False,
            soft_wrap=True,
        )
    else:
        err.print(f"{move_type} made (seq {answer['move'].get('seq')})", markup=False)
    print_room(answer["room"])


@app.command()
def confirm(
    ctx: typer.Context,
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
    server: Server = DEFAULT_SERVER,
    credentials: CredentialsPath = store.DEFAULT_PATH,
    token: Token = None,
    kind: As = TokenKind.OWNER,
    as_json: Json = False,
) -> None:
    """Confirm or decline what your agent asked for (approve, reject, cancel)."""
    url, secret = _seat(
        ctx, room_id, server=server, credentials=credentials, token=token, kind=kind
    )
    if confirmation_id is None:
        _, pending = call(
            url, "GET", f"/v1/rooms/{room_id}/confirmations", token=secret, as_json=as_json
        )
        waiting = pending.get("confirmations") or []
        if not waiting:
            fail(
                "Nothing waits for your confirmation in this room.",
                "confirmation_not_found",
                as_json=as_json,
            )
        chosen = waiting[0]
        confirmation_id = str(chosen["id"])
        if not as_json:
            verb = "confirming" if decision else "declining"
            terms = {f["name"]: f["value"] for f in chosen.get("fields") or []}
            what = f": {terms_inline(_schema_of(chosen), terms)}" if terms else ""
            err.print(f"{verb} {chosen['type']} ({confirmation_id}){what}", markup=False)
    body = {"decision": "confirm" if decision else "decline"}
    _, answer = call(
        url,
        "POST",
        f"/v1/rooms/{room_id}/confirmations/{confirmation_id}",
        token=secret,
        body=body,
        as_json=as_json,
    )
    if as_json:
        print_json(answer)
        return
    print_room(answer["room"])


def _schema_of(confirmation: Mapping[str, Any]) -> dict[str, Any]:
    """Enough of a schema to format a confirmation's fields (they carry type and label)."""
    return {
        f["name"]: {"type": f.get("type"), "label": f.get("label", f["name"])}
        for f in confirmation.get("fields") or []
    }


@app.command()
def receipt(
    ctx: typer.Context,
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
    server: Server = DEFAULT_SERVER,
    credentials: CredentialsPath = store.DEFAULT_PATH,
    token: Token = None,
    kind: As = TokenKind.OWNER,
    as_json: Json = False,
) -> None:
    """The receipt of a final room: signed for an agreement, unsigned for a close or expiry."""
    url, secret = _seat(
        ctx, room_id, server=server, credentials=credentials, token=token, kind=kind
    )
    _, body = call(url, "GET", f"/v1/rooms/{room_id}/receipt", token=secret, as_json=as_json)
    if output is not None:
        _, log = call(url, "GET", f"/v1/rooms/{room_id}/log", token=secret, as_json=as_json)
        output.write_text(json.dumps(body, ensure_ascii=False, indent=2) + "\n")
        log_path = output.with_name(output.stem + ".log.json")
        log_path.write_text(json.dumps(log, ensure_ascii=False, indent=2) + "\n")
        err.print(
            f"wrote {output} and {log_path}; check them with: accord verify {output} "
            f"--log {log_path} --trust-url {url}/.well-known/jwks.json",
            markup=False,
            soft_wrap=True,
        )
    if as_json:
        print_json(body)
        return
    signed = body.get("artifact") is not None
    show_line(styled(f"receipt of {room_id}: {body.get('state')}", "bold"))
    show_line(styled(f"signature: {body['signature']['status']} ({body['signature']['reason']})"))
    if signed:
        kid = body["jwks"]["keys"][0]["kid"]
        show_line(styled(f"signed by {kid} for {body['arbiter']['agent_id']}"))
    show_line(styled(f"chain: {body['chain']['length']} envelopes, head {body['chain']['head']}"))

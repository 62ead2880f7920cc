"""`accord rooms`: a room from a terminal, over HTTP (spec/rooms-api.md).

The tokens that `open` and `join` receive are kept in the credentials file and picked by room
id. The person at the terminal is the seat's owner, so commands use the owner token unless
`--as agent` or `--token` says otherwise. A stored token is only ever sent to the server that
issued it.
"""

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Annotated, Any, Final, NoReturn

import httpx
import typer
from rich.table import Table
from rich.text import Text

from accord import __version__
from accord.cli import credentials as store
from accord.cli.credentials import Credential, CredentialsError, TokenKind
from accord.cli.options import Json, Server
from accord.cli.output import err, out, print_json
from accord.core.money import currency_exponent, format_money
from accord.protocols.rooms.state import MoveType

app = typer.Typer(
    name="rooms",
    help="Rooms from a terminal, over HTTP. Tokens from open and join are kept in the "
    "credentials file; you act as the seat's owner unless --as agent or --token.",
    no_args_is_help=True,
)

DEFAULT_SERVER: Final = "http://127.0.0.1:8000"
TIMEOUT_SECONDS: Final = 30.0
LIST_BATCH: Final = 200  # ListRequest takes at most 200 tokens
SHOWN_MOVES: Final = 10
_PAIR_SPLIT: Final = re.compile(r",(?=[a-z0-9_]{1,64}=)")
_INVITE_IN_URL: Final = re.compile(r"#(?P<token>[^#\s]+)$")

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


def _fail(message: str, code: str, *, as_json: bool, body: Any = None) -> NoReturn:
    """A refusal: the error body on stdout under --json, else `error: <message> (<code>)`."""
    if as_json:
        print_json(body if body is not None else {"error": {"code": code, "message": message}})
    else:
        err.print(f"error: {_clean(message)} ({_clean(code)})", markup=False, soft_wrap=True)
    raise typer.Exit(1)


def _trouble(message: str, *, exit_code: int = 1) -> NoReturn:
    """Not a refusal (an unreachable server, a bad credentials file): stderr only."""
    err.print(f"error: {message}", markup=False, soft_wrap=True)
    raise typer.Exit(exit_code)


def _call(
    server: str,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: Mapping[str, Any] | None = None,
    as_json: bool,
) -> tuple[int, Any]:
    """One request; any answer but success ends the command as a refusal."""
    headers = {"User-Agent": f"accord-cli/{__version__}", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with httpx.Client(base_url=server, headers=headers, timeout=TIMEOUT_SECONDS) as client:
            response = client.request(method, path, json=body)
    except httpx.HTTPError as exc:
        _trouble(f"cannot reach the Accord server at {server}: {exc}")
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.is_success and data is not None:
        return response.status_code, data
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        _fail(str(error.get("message", "")), error["code"], as_json=as_json, body=data)
    _trouble(f"{server} answered HTTP {response.status_code} without an Accord body; is it one?")


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
        _trouble(str(exc))


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
        _trouble(
            f"no token for room {room_id} in {credentials}; pass --token, or --credentials "
            "with the file that open or join wrote",
            exit_code=2,
        )
    if _is_explicit(ctx, "server") and _server_url(server) != stored.server:
        _trouble(
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


# -- reading what people type ------------------------------------------------------------


def _json_value(text: str, option: str) -> Any:
    """Inline JSON, or the path of a JSON file."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        path = Path(text).expanduser()
        if not path.is_file():
            raise typer.BadParameter("give JSON or the path of a JSON file", param_hint=option)
        try:
            stripped = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise typer.BadParameter(
                f"cannot read {path}: {exc.strerror}", param_hint=option
            ) from None
    try:
        return json.loads(stripped)
    except ValueError as exc:
        raise typer.BadParameter(f"not JSON: {exc}", param_hint=option) from None


def _json_object(text: str, option: str) -> dict[str, Any]:
    value = _json_value(text, option)
    if not isinstance(value, dict):
        raise typer.BadParameter("give a JSON object", param_hint=option)
    return value


def _looks_like_json(text: str) -> bool:
    stripped = text.strip()
    return stripped.startswith("{") or (stripped.endswith(".json") and "=" not in stripped)


def parse_schema(text: str) -> dict[str, Any]:
    """A subject schema: JSON, a JSON file, or `price:money:EUR,day:date,size:enum:S|M|L`
    (a `?` after a name makes the field optional: `note?:string`)."""
    if _looks_like_json(text) or Path(text).expanduser().is_file():
        return _json_object(text, "--schema")
    schema: dict[str, Any] = {}
    for item in text.split(","):
        name, _, rest = item.strip().partition(":")
        kind, _, argument = rest.partition(":")
        optional = name.endswith("?")
        name = name.removesuffix("?")
        if not name or not kind:
            raise typer.BadParameter(
                f"{item!r}: write name:type, like price:money:EUR or day:date",
                param_hint="--schema",
            )
        spec: dict[str, Any] = {"type": kind}
        if kind == "money":
            spec["currency"] = argument
        elif kind == "enum":
            spec["values"] = argument.split("|")
        elif argument:
            raise typer.BadParameter(
                f"{item!r}: only money (currency) and enum (values) take a third part",
                param_hint="--schema",
            )
        if optional:
            spec["optional"] = True
        schema[name] = spec
    return schema


def parse_terms(values: Sequence[str], schema: Mapping[str, Any], option: str) -> dict[str, Any]:
    """Terms: one JSON object (or file), or `field=value` pairs, repeated or comma-separated,
    read by the field's type: `price=90.00` (or `90.00 EUR`), `when=START/END`, `paid=yes`."""
    if len(values) == 1 and _looks_like_json(values[0]):
        return _json_object(values[0], option)
    terms: dict[str, Any] = {}
    for value in values:
        for pair in _PAIR_SPLIT.split(value):
            name, equals, raw = pair.partition("=")
            name = name.strip()
            if not equals:
                raise typer.BadParameter(
                    f"{pair!r}: write field=value, or give the terms as JSON", param_hint=option
                )
            spec = schema.get(name)
            if not isinstance(spec, dict):
                raise typer.BadParameter(
                    f"{name!r} is not a field; the fields are {', '.join(schema)}",
                    param_hint=option,
                )
            terms[name] = _field_value(name, spec, raw, option)
    return terms


def _field_value(name: str, spec: Mapping[str, Any], raw: str, option: str) -> Any:
    if raw.strip().startswith("{"):
        return _json_object(raw, option)
    kind = spec.get("type")
    text = raw.strip()
    if kind == "money":
        currency = spec.get("currency")
        return {"amount_minor": _amount_minor(name, text, currency, option), "currency": currency}
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise typer.BadParameter(f"{name} is a whole number", param_hint=option) from None
    if kind == "bool":
        lowered = text.lower()
        if lowered in ("true", "yes", "y", "1"):
            return True
        if lowered in ("false", "no", "n", "0"):
            return False
        raise typer.BadParameter(f"{name} is yes or no", param_hint=option)
    if kind == "timerange":
        start, slash, end = text.partition("/")
        if not slash:
            raise typer.BadParameter(f"{name} is START/END (RFC 3339)", param_hint=option)
        return {"start": start.strip(), "end": end.strip()}
    return raw  # string, enum, date: the server judges them


def _amount_minor(name: str, text: str, currency: object, option: str) -> int:
    """`90`, `90.5` or `90.50 EUR` → minor units of the field's currency."""
    if not isinstance(currency, str):
        raise typer.BadParameter(f"{name} has no currency in the schema", param_hint=option)
    number, _, code = text.partition(" ")
    if code.strip() and code.strip() != currency:
        raise typer.BadParameter(f"{name} is in {currency}", param_hint=option)
    exponent = currency_exponent(currency) or 0
    try:
        amount = Decimal(number) * 10**exponent
    except InvalidOperation:
        raise typer.BadParameter(f"{name} is an amount, like 90.00", param_hint=option) from None
    if not amount.is_finite() or amount < 0 or amount != amount.to_integral_value():
        raise typer.BadParameter(
            f"{name} is a non-negative amount with at most {exponent} decimals", param_hint=option
        )
    return int(amount)


def _invite_token(text: str) -> str:
    """The invite token, also when given as the invite URL (`…/rooms/join#TOKEN`)."""
    match = _INVITE_IN_URL.search(text)
    return match.group("token") if match else text.strip()


# -- printing for people -----------------------------------------------------------------


def _clean(text: object) -> str:
    """Text another party wrote, made safe for a terminal: control and format characters
    (escape sequences, bidi overrides) are shown as escapes, not obeyed."""
    value = str(text)
    return "".join(
        ch
        if ch in "\n\t" or unicodedata.category(ch)[0] != "C"
        else ch.encode("unicode_escape").decode()
        for ch in value
    )


def _t(text: object, style: str = "") -> Text:
    return Text(_clean(text), style=style)


def _line(text: Text) -> None:
    """One line, never wrapped: tokens, URLs and hashes must survive copy and paste."""
    out.print(text, soft_wrap=True)


def format_value(spec: Mapping[str, Any] | None, value: Any) -> str:
    """A term for people: money as `90.00 EUR`, a timerange as `start → end`, bools yes/no."""
    kind = spec.get("type") if spec else None
    if value is None:
        return "—"
    if (
        kind == "money"
        and isinstance(value, dict)
        and isinstance(value.get("amount_minor"), int)
        and value["amount_minor"] >= 0
        and isinstance(value.get("currency"), str)
    ):
        return format_money(value["amount_minor"], value["currency"])
    if kind == "timerange" and isinstance(value, dict) and {"start", "end"} <= value.keys():
        return f"{value['start']} → {value['end']}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def format_limit(spec: Mapping[str, Any] | None, limit: Any) -> str:
    if not isinstance(limit, dict):
        return json.dumps(limit, ensure_ascii=False)
    if "one_of" in limit:
        return "one of " + ", ".join(str(v) for v in limit["one_of"])
    if "equals" in limit:
        return f"must be {format_value(spec, limit['equals'])}"
    bounds = []
    if "min" in limit:
        bounds.append(f"at least {format_value(spec, limit['min'])}")
    if "max" in limit:
        bounds.append(f"at most {format_value(spec, limit['max'])}")
    return ", ".join(bounds) or json.dumps(limit, ensure_ascii=False)


def _label(schema: Mapping[str, Any], name: str) -> str:
    spec = schema.get(name)
    return str(spec.get("label", name)) if isinstance(spec, dict) else name


def _terms_inline(schema: Mapping[str, Any], terms: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{_label(schema, name)} {format_value(schema.get(name), value)}"
        for name, value in terms.items()
    )


def _short(subject_hash: object) -> str:
    text = str(subject_hash)
    return text[:19] + "…" if len(text) > 20 else text


def _turn(room: Mapping[str, Any]) -> str:
    if room.get("turn") is None:
        return "no one's turn"
    return "your turn" if room.get("your_turn") else f"their turn ({room['turn']})"


def print_room(room: Mapping[str, Any]) -> None:
    """The room for a person: who, where it stands, the table, approvals, the last moves."""
    schema: Mapping[str, Any] = room.get("subject_schema") or {}
    title = Text.assemble(_t(room.get("name", ""), "bold"))
    if room.get("title"):
        title.append(" · ").append(_t(room["title"]))
    _line(title)
    _line(
        _t(
            f"room {room.get('room_id')} · you are the {room.get('seat')} · "
            f"{room.get('state')} · {_turn(room)}"
        )
    )
    times = [f"{k.replace('_', ' ')} {room[k]}" for k in ("deadline", "expires_at") if room.get(k)]
    if times:
        _line(_t(" · ".join(times)))
    if room.get("circling"):
        _line(_t("circling: the last four moves brought no new terms; try something new", "yellow"))
    compatible = room.get("limits_compatible")
    if compatible is False:
        fields = ", ".join(room.get("incompatible_fields") or [])
        _line(_t(f"limits: the two sides' limits cannot meet on {fields}", "yellow"))
    elif compatible is True:
        _line(_t("limits: the two sides' limits can meet"))
    pending = room.get("pending_confirmation")
    if pending:
        _line(
            _t(
                f"waiting for your confirmation: {pending.get('type')} ({pending.get('id')}); "
                f"run `accord rooms confirm {room.get('room_id')} --confirm` or --decline",
                "bold yellow",
            )
        )
    _print_table(room, schema)
    _print_limits(schema, room.get("your_limits") or {})
    _print_moves(room, schema)
    if room.get("receipt_url"):
        _line(_t(f"receipt: {room['receipt_url']}"))


def _print_table(room: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    table = room.get("table")
    if not table:
        _line(_t("no terms on the table yet", "dim"))
        return
    outside = set(room.get("outside_your_limits") or [])
    _line(_t(f"terms on the table, proposed by {table.get('proposed_by')}:", "bold"))
    grid = Table()
    grid.add_column("field")
    grid.add_column("value")
    grid.add_column("")
    for name, value in (table.get("terms") or {}).items():
        note = _t("outside your limits", "red") if name in outside else _t("")
        grid.add_row(_t(_label(schema, name)), _t(format_value(schema.get(name), value)), note)
    out.print(grid)
    _line(_t(f"subject_hash {table.get('subject_hash')}", "dim"))
    approvals = [a.get("seat") for a in room.get("approvals") or []]
    _line(_t("approved by " + ", ".join(map(str, approvals)) if approvals else "no approvals"))


def _print_limits(schema: Mapping[str, Any], limits: Mapping[str, Any]) -> None:
    if not limits:
        return
    described = "; ".join(
        f"{_label(schema, n)} {format_limit(schema.get(n), v)}" for n, v in limits.items()
    )
    _line(_t(f"your limits (private): {described}", "dim"))


def _move_details(move: Mapping[str, Any], schema: Mapping[str, Any]) -> str:
    parts = []
    if isinstance(move.get("terms"), dict):
        parts.append(_terms_inline(schema, move["terms"]))
    if move.get("subject_hash") and move.get("type") == "approve":
        parts.append(_short(move["subject_hash"]))
    if move.get("message"):
        parts.append(f"“{move['message']}”")
    if move.get("deadline"):
        parts.append(f"deadline {move['deadline']}")
    return " · ".join(parts)


def _print_moves(room: Mapping[str, Any], schema: Mapping[str, Any]) -> None:
    moves = list(room.get("moves") or [])[-SHOWN_MOVES:]
    if not moves:
        return
    total = room.get("moves_total", len(moves))
    _line(_t(f"last moves ({len(moves)} of {total}):", "bold"))
    grid = Table()
    for column in ("seq", "seat", "move", "details", "at"):
        grid.add_column(column)
    for move in moves:
        grid.add_row(
            *(_t(move.get(k, "")) for k in ("seq", "seat", "type")),
            _t(_move_details(move, schema)),
            _t(move.get("at", "")),
        )
    out.print(grid)


def _print_opening(schema: Mapping[str, Any], opening: Mapping[str, Any]) -> None:
    limits = opening.get("limits") or {}
    described = "; ".join(
        f"{_label(schema, n)} {format_limit(schema.get(n), v)}" for n, v in limits.items()
    )
    _line(_t("your limits opening (keep it: it proves your limits later)", "bold"))
    _line(_t(f"  nonce   {opening.get('nonce')}"))
    _line(_t(f"  limits  {described or 'none'}"))
    _line(_t(f"  as JSON {json.dumps(opening, ensure_ascii=False, sort_keys=True)}", "dim"))


# -- the commands ------------------------------------------------------------------------


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
        body["limits"] = _json_object(limits, "--limits")
    for key, value in (("title", title), ("deadline", deadline), ("message", message)):
        if value is not None:
            body[key] = value
    _load(credentials)  # a broken credentials file stops us before the server makes tokens
    url = _server_url(server)
    _, answer = _call(url, "POST", "/v1/rooms", body=body, as_json=as_json)
    room = answer["room"]
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
    if as_json:
        return
    print_room(room)
    invite = answer["invite"]
    _line(_t(f"invite for the other party (single use, expires {invite['expires_at']})", "bold"))
    _line(_t(f"  token  {invite['token']}"))
    _line(_t(f"  url    {invite['url']}"))
    _line(_t(f"  they run: accord rooms join {invite['token']}"))
    _print_opening(subject_schema, answer["limits_opening"])


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
    body: dict[str, Any] = {"invite_token": _invite_token(invite)}
    if limits is not None:
        body["limits"] = _json_object(limits, "--limits")
    _load(credentials)
    url = _server_url(server)
    _, answer = _call(url, "POST", "/v1/rooms/join", body=body, as_json=as_json)
    room = answer["room"]
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
    if as_json:
        return
    print_room(room)
    _print_opening(room.get("subject_schema") or {}, answer["limits_opening"])


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
            _, answer = _call(url, "POST", "/v1/rooms/list", body=body, as_json=as_json)
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
            *(_t(room.get(k) or "") for k in ("room_id", "name", "seat", "state")),
            _t(turn),
            _t(room.get("deadline") or ""),
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
    _, room = _call(url, "GET", f"/v1/rooms/{room_id}", token=secret, as_json=as_json)
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
    needs_room = (terms and not (len(terms) == 1 and _looks_like_json(terms[0]))) or (
        move_type == "approve" and subject_hash is None
    )
    room: Mapping[str, Any] = {}
    if needs_room:
        _, room = _call(url, "GET", f"/v1/rooms/{room_id}", token=secret, as_json=as_json)
    if terms:
        body["terms"] = parse_terms(terms, room.get("subject_schema") or {}, "--terms")
    if move_type == "approve" and subject_hash is None and room.get("table"):
        subject_hash = room["table"]["subject_hash"]
        err.print(
            f"approving the terms on the table at seq {room.get('seq')}: "
            f"{_terms_inline(room.get('subject_schema') or {}, room['table']['terms'])} "
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
    status, answer = _call(
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
        _, pending = _call(
            url, "GET", f"/v1/rooms/{room_id}/confirmations", token=secret, as_json=as_json
        )
        waiting = pending.get("confirmations") or []
        if not waiting:
            _fail(
                "Nothing waits for your confirmation in this room.",
                "confirmation_not_found",
                as_json=as_json,
            )
        chosen = waiting[0]
        confirmation_id = str(chosen["id"])
        if not as_json:
            verb = "confirming" if decision else "declining"
            terms = {f["name"]: f["value"] for f in chosen.get("fields") or []}
            what = f": {_terms_inline(_schema_of(chosen), terms)}" if terms else ""
            err.print(f"{verb} {chosen['type']} ({confirmation_id}){what}", markup=False)
    body = {"decision": "confirm" if decision else "decline"}
    _, answer = _call(
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
    _, body = _call(url, "GET", f"/v1/rooms/{room_id}/receipt", token=secret, as_json=as_json)
    if output is not None:
        _, log = _call(url, "GET", f"/v1/rooms/{room_id}/log", token=secret, as_json=as_json)
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
    _line(_t(f"receipt of {room_id}: {body.get('state')}", "bold"))
    _line(_t(f"signature: {body['signature']['status']} ({body['signature']['reason']})"))
    if signed:
        kid = body["jwks"]["keys"][0]["kid"]
        _line(_t(f"signed by {kid} for {body['arbiter']['agent_id']}"))
    _line(_t(f"chain: {body['chain']['length']} envelopes, head {body['chain']['head']}"))

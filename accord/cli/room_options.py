"""The options every `accord rooms` command shares (--server, --credentials, --json, and for a
seat's commands --token and --as), and the seat they choose: a stored token is only ever sent
to the server that issued it."""

import contextlib
import functools
import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, TypeVar

import typer

from accord.cli import credentials as store
from accord.cli.credentials import Credential, CredentialsError, TokenKind
from accord.cli.errors import Failure, talking_to
from accord.cli.flags import Json, Server
from accord.cli.output import err
from accord.sdk import Accord, RoomSeat

DEFAULT_SERVER: Final = "http://127.0.0.1:8000"
R = TypeVar("R")

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


def load_credentials(path: Path) -> dict[str, Credential]:
    """The stored tokens by room id; warns when others can read the file."""
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
        raise Failure(str(exc)) from exc


@dataclass(frozen=True)
class RoomOptions:
    """Where a command talks, with which token, and how it prints."""

    server: str
    server_is_explicit: bool  # given with --server or ACCORD_SERVER, not the default
    credentials: Path
    token: str | None
    kind: TokenKind
    as_json: bool

    @property
    def url(self) -> str:
        return self.server.rstrip("/")

    @contextlib.contextmanager
    def client(self, url: str | None = None) -> Iterator[Accord]:
        """A client for `url` (by default --server); a failed request ends the command."""
        url = url or self.url
        with talking_to(url), Accord(url) as client:
            yield client

    @contextlib.contextmanager
    def seat(self, room_id: str) -> Iterator[RoomSeat]:
        """The seat of `room_id`: --token, else the stored token of --as, asked of the server
        that issued it."""
        url, token = self.where(room_id)
        with self.client(url) as client:
            yield client.rooms.seat(token, room_id=room_id)

    def where(self, room_id: str) -> tuple[str, str]:
        """The server to ask about `room_id` and the token to send: a stored token goes only
        to the server that issued it."""
        if self.token:
            return self.url, self.token
        stored = load_credentials(self.credentials).get(room_id)
        if stored is None:
            raise Failure(
                f"no token for room {room_id} in {self.credentials}; pass --token, or "
                "--credentials with the file that open or join wrote",
                exit_code=2,
            )
        if self.server_is_explicit and self.url != stored.server:
            raise Failure(
                f"room {room_id} belongs to {stored.server}; its tokens are not sent to "
                f"{self.url} (pass --token to do so on purpose)",
                exit_code=2,
            )
        return stored.server, stored.token(self.kind)


_SHARED: Final = (
    ("server", Server, DEFAULT_SERVER),
    ("credentials", CredentialsPath, store.DEFAULT_PATH),
    ("token", Token, None),
    ("kind", As, TokenKind.OWNER),
    ("as_json", Json, False),
)
_SEATLESS: Final = frozenset({"token", "kind"})


def room_options(*, seat: bool = True) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Give a rooms command the options they all share, after its own, and hand it them as
    `options` (as sqlite-utils' `output_options`): --server, --credentials and --json, and
    for a seat's commands --token and --as."""
    shared = [option for option in _SHARED if seat or option[0] not in _SEATLESS]

    def decorate(fn: Callable[..., R]) -> Callable[..., R]:
        signature = inspect.signature(fn)
        own = [p for p in signature.parameters.values() if p.name != "options"]
        added = [
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=default
            )
            for name, kind, default in shared
        ]
        context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)

        @functools.wraps(fn)
        def command(ctx: typer.Context, **kwargs: Any) -> R:
            values = {name: kwargs.pop(name) for name, _, _ in shared}
            source = ctx.get_parameter_source("server")
            options = RoomOptions(
                server=values["server"],
                server_is_explicit=source is not None
                and source.name not in ("DEFAULT", "DEFAULT_MAP"),
                credentials=values["credentials"],
                token=values.get("token"),
                kind=values.get("kind", TokenKind.OWNER),
                as_json=values["as_json"],
            )
            return fn(options=options, **kwargs)

        command.__signature__ = signature.replace(parameters=[*own, *added, context])  # type: ignore[attr-defined]  # read by Typer
        return command

    return decorate

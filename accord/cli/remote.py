"""Talking to an Accord server from the command line: one request at a time, and the one way
a refusal or a missing server ends a command (DESIGN.md, Command line: exit 1 with
`error: <message> (<code>)`, or the error body itself under --json)."""

from collections.abc import Mapping
from typing import Any, Final, NoReturn

import httpx
import typer

from accord import __version__
from accord.cli.output import err, print_json
from accord.cli.room_display import clean

TIMEOUT_SECONDS: Final = 30.0


def fail(message: str, code: str, *, as_json: bool, body: Any = None) -> NoReturn:
    """A refusal: the error body on stdout under --json, else `error: <message> (<code>)`."""
    if as_json:
        print_json(body if body is not None else {"error": {"code": code, "message": message}})
    else:
        err.print(f"error: {clean(message)} ({clean(code)})", markup=False, soft_wrap=True)
    raise typer.Exit(1)


def trouble(message: str, *, exit_code: int = 1) -> NoReturn:
    """Not a refusal (an unreachable server, a bad credentials file): stderr only."""
    err.print(f"error: {message}", markup=False, soft_wrap=True)
    raise typer.Exit(exit_code)


def call(
    server: str,
    method: str,
    path: str,
    *,
    token: str | None = None,
    body: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
    as_json: bool,
) -> tuple[int, Any]:
    """One request; any answer but success ends the command as a refusal."""
    headers = {"User-Agent": f"accord-cli/{__version__}", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    url = server.rstrip("/")
    try:
        with httpx.Client(base_url=url, headers=headers, timeout=TIMEOUT_SECONDS) as client:
            response = client.request(method, path, json=body, params=params)
    except httpx.HTTPError as exc:
        trouble(f"cannot reach the Accord server at {url}: {exc}")
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.is_success and data is not None:
        return response.status_code, data
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        fail(str(error.get("message", "")), error["code"], as_json=as_json, body=data)
    trouble(f"{url} answered HTTP {response.status_code} without an Accord body; is it one?")

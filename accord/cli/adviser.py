"""`accord adviser`: a principal's private negotiation files (cases), versioned, from a terminal,
over HTTP with one of its keys (spec/adviser-api.md, Cases, Patches, Closing). The owner key
writes a case; an agent key only reads it. What is shown to a person is in `adviser_display.py`.

`accord.sdk` does not speak the adviser's endpoints yet, so `Cases` sends them itself and turns
an error body into the SDK's `AccordError`: the CLI's one error path (`errors.py`) then says it
as for every other command."""

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Final
from urllib.parse import quote

import httpx
import typer

from accord import __version__
from accord.adviser.enums import AnalysisDepth
from accord.cli.adviser_display import (
    print_case,
    print_cases,
    print_closed,
    print_history,
    print_result,
    print_version,
    say,
)
from accord.cli.errors import talking_to
from accord.cli.intro_options import DEFAULT_SERVER
from accord.cli.options import Json, Server
from accord.cli.output import print_json
from accord.core.jsonio import JSONError, parse
from accord.sdk import AccordError

CASES: Final = "v1/adviser/cases"
TIMEOUT_SECONDS: Final = 30.0
BODY_MEMBERS: Final = frozenset({"based_on_state_version", "patches"})

app = typer.Typer(
    name="adviser",
    help="Your private negotiation files (cases), versioned, over HTTP with a principal key "
    "(--key / ACCORD_KEY): open one, edit it with patches, follow its history, close it.",
    no_args_is_help=True,
)


class Outcome(StrEnum):
    closed = "closed"
    no_deal = "no_deal"


Key = Annotated[
    str,
    typer.Option(
        "--key",
        envvar="ACCORD_KEY",
        help="A principal key: the owner key (acc_ok_…) writes the case, an agent key "
        "(acc_ak_…) only reads it.",
        show_default=False,
    ),
]
CaseId = Annotated[str, typer.Argument(metavar="ID", help="One of your cases (adviser list).")]


# -- talking to the server ---------------------------------------------------------------------


class Cases:
    """The adviser's calls with one principal key. Ids are sent as one path segment each, so an
    id holding `/` names nothing rather than another route."""

    def __init__(self, http: httpx.Client) -> None:
        self._http = http

    def create(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._send("POST", (), body)

    def mine(self) -> dict[str, Any]:
        return self._send("GET", ())

    def case(self, case_id: str) -> dict[str, Any]:
        return self._send("GET", (case_id,))

    def version(self, case_id: str, number: int) -> dict[str, Any]:
        return self._send("GET", (case_id, "versions", str(number)))

    def history(self, case_id: str) -> dict[str, Any]:
        return self._send("GET", (case_id, "history"))

    def patch(self, case_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._send("POST", (case_id, "patches"), body)

    def seen(self, case_id: str, change_id: str) -> dict[str, Any]:
        return self._send("POST", (case_id, "material-changes", change_id, "seen"), {})

    def close(self, case_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._send("POST", (case_id, "close"), body)

    def _send(
        self, method: str, segments: tuple[str, ...], body: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        path = "/".join([CASES, *(quote(s, safe="") for s in segments)])
        try:
            response = self._http.request(method, path, json=body)
        except httpx.TimeoutException as exc:
            raise AccordError("timeout", "the server did not answer in time") from exc
        except httpx.TransportError as exc:
            raise AccordError("network_error", str(exc)) from exc
        return _answer(response)


def _answer(response: httpx.Response) -> dict[str, Any]:
    """A success's JSON object; an Accord error body raised as its AccordError (`talking_to`
    says anything else: "without an Accord body")."""
    try:
        data = response.json()
    except ValueError:
        data = None
    if response.is_success and isinstance(data, dict):
        return data
    error = data.get("error") if isinstance(data, dict) else None
    if not response.is_success and isinstance(error, dict) and isinstance(error.get("code"), str):
        details = {k: v for k, v in error.items() if k not in ("code", "message")}
        raise AccordError(
            error["code"],
            str(error.get("message", "")),
            status=response.status_code,
            details=details,
        )
    raise AccordError("invalid_response", "not an Accord answer", status=response.status_code)


@contextlib.contextmanager
def cases(server: str, key: str) -> Iterator[Cases]:
    """The principal's cases on `server`; a failed request ends the command."""
    url = server.rstrip("/") + "/"
    headers = {
        "Authorization": f"Bearer {key}",
        "Accept": "application/json",
        "User-Agent": f"accord-cli/{__version__}",
    }
    with (
        talking_to(url.rstrip("/")),
        httpx.Client(base_url=url, headers=headers, timeout=TIMEOUT_SECONDS) as http,
    ):
        yield Cases(http)


def _show(body: dict[str, Any], as_json: bool, human: Callable[[], None]) -> None:
    """The exact body under --json, else what `human` prints for a person."""
    if as_json:
        print_json(body)
    else:
        human()


# -- reading a patch file ----------------------------------------------------------------------


def read_patches(file: str, based_on: int | None) -> tuple[list[Any], int | None]:
    """The patches of FILE (`-`: stdin), and the version they are based on: `--based-on`, else
    the file's `based_on_state_version`, else None (the caller reads the current one). Only the
    shape is read here; each patch is the server's to check."""
    hint = "--file"
    try:
        value = parse(sys.stdin.read() if file == "-" else _read(Path(file)))
    except JSONError as exc:
        raise typer.BadParameter(f"{file} is not JSON: {exc.reason}", param_hint=hint) from None
    except UnicodeDecodeError:
        raise typer.BadParameter(f"{file} is not UTF-8 text", param_hint=hint) from None
    if value == [] or (isinstance(value, dict) and value.get("patches") == []):
        raise typer.BadParameter(f"{file} holds no patches", param_hint=hint)
    if isinstance(value, list):
        return value, based_on
    if not isinstance(value, dict) or "patches" not in value:
        raise typer.BadParameter(
            f"{file} must hold a JSON list of patches, or {{based_on_state_version, patches}}",
            param_hint=hint,
        )
    extra = sorted(set(value) - BODY_MEMBERS)
    if extra:
        raise typer.BadParameter(
            f"{file} has members other than based_on_state_version and patches: {', '.join(extra)}",
            param_hint=hint,
        )
    if not isinstance(value["patches"], list):
        raise typer.BadParameter(f"{file} holds patches that are not a JSON list", param_hint=hint)
    return value["patches"], based_on if based_on is not None else value.get(
        "based_on_state_version"
    )


def _read(path: Path) -> bytes:
    """The file's bytes; a file that is missing or cannot be read is a usage mistake.
    (Typer's own `exists=True` would do, but refuses `-` even with `allow_dash`.)"""
    try:
        return path.expanduser().read_bytes()
    except FileNotFoundError:
        raise typer.BadParameter(
            f"file {str(path)!r} does not exist", param_hint="--file"
        ) from None
    except OSError as exc:
        raise typer.BadParameter(
            f"cannot read {str(path)!r}: {exc.strerror}", param_hint="--file"
        ) from None


# -- commands ----------------------------------------------------------------------------------


@app.command()
def new(
    title: Annotated[str, typer.Argument(metavar="TITLE", help="1..200 characters.")],
    key: Key,
    description: Annotated[
        str | None,
        typer.Option(
            "--description",
            help="What you want from this negotiation, in your words (≤ 4,000 characters); it "
            "also stands as your stated objective.",
            show_default=False,
        ),
    ] = None,
    depth: Annotated[
        AnalysisDepth | None,
        typer.Option(
            "--depth",
            help="How much the adviser keeps: LIGHT raises no material change.",
            show_default="STANDARD",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Open a case at version 1 (owner key)."""
    body: dict[str, Any] = {"title": title}
    if description is not None:
        body["description"] = description
    if depth is not None:
        body["analysis_depth"] = str(depth)
    with cases(server, key) as you:
        made = you.create(body)
    _show(made, as_json, lambda: print_case(made))


@app.command("list")
def list_cases(key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False) -> None:
    """Your cases, last updated first, with how many material changes you have not seen."""
    with cases(server, key) as you:
        body = you.mine()
    _show(body, as_json, lambda: print_cases(body.get("cases") or []))


@app.command()
def show(
    case_id: CaseId,
    key: Key,
    version: Annotated[
        int | None,
        typer.Option(
            "--version",
            min=1,
            help="The case as it was at this version (its state only).",
            show_default="the current version",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """One case, as it stands or as it was.

    Its lifecycle, objective, BATNA and topics; then, for the current version, the open
    questions, the material changes you have not seen and the held patches. --json prints the
    Case, or with --version, {case_id, state_version, state}."""
    with cases(server, key) as you:
        body = you.case(case_id) if version is None else you.version(case_id, version)
    if version is None:
        _show(body, as_json, lambda: print_case(body))
    else:
        _show(body, as_json, lambda: print_version(body))


@app.command()
def history(
    case_id: CaseId, key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False
) -> None:
    """The case's history, oldest first: one event per version, with the pointers it changed."""
    with cases(server, key) as you:
        body = you.history(case_id)
    _show(body, as_json, lambda: print_history(body.get("events") or []))


@app.command()
def patch(
    case_id: CaseId,
    file: Annotated[
        str,
        typer.Option(
            "--file",
            metavar="FILE|-",
            help="JSON: a list of patches {patch_id, operation, path, proposed_value, basis?, "
            "evidence_refs?}, or {based_on_state_version, patches}; - reads stdin. See "
            "docs/adviser.md.",
            show_default=False,
        ),
    ],
    key: Key,
    based_on: Annotated[
        int | None,
        typer.Option(
            "--based-on",
            min=1,
            help="The version the patches were written against; a change since to what they "
            "touch refuses them (stale_state_version).",
            show_default="the file's based_on_state_version, else the current version",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Apply your edits to a case (owner key): the valid patches make one new version.

    Each refused patch is shown with its code and changes nothing; the command then exits 1,
    the others having applied all the same."""
    patches, based = read_patches(file, based_on)
    with cases(server, key) as you:
        if based is None:
            based = you.case(case_id)["state_version"]
        result = you.patch(case_id, {"based_on_state_version": based, "patches": patches})
    _show(result, as_json, lambda: print_result(case_id, result))
    if result.get("refused"):
        raise typer.Exit(1)


@app.command()
def seen(
    case_id: CaseId,
    change_id: Annotated[
        str,
        typer.Argument(metavar="CHANGE_ID", help="A material change of the case (adviser show)."),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Mark a material change seen (owner key): it leaves the case's unseen list."""
    with cases(server, key) as you:
        body = you.seen(case_id, change_id)
    _show(body, as_json, lambda: say(f"material change {body.get('change_id')} seen"))


@app.command()
def close(
    case_id: CaseId,
    outcome: Annotated[
        Outcome,
        typer.Option("--outcome", help="closed (a deal was made) or no_deal.", show_default=False),
    ],
    reason: Annotated[
        str,
        typer.Option(
            "--reason", help="Why, kept in the history (1..2,000 characters).", show_default=False
        ),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Close a case for good (owner key): it stays readable, and refuses every write after."""
    with cases(server, key) as you:
        result = you.close(case_id, {"outcome": str(outcome), "reason": reason})
    _show(result, as_json, lambda: print_closed(case_id, str(outcome), result))

"""What every `accord adviser` command shares: the group, its options, the HTTP client of the
adviser's endpoints and the reading of JSON files. `accord.sdk` does not speak the adviser's
endpoints yet, so `Cases` sends them itself and turns an error body into the SDK's
`AccordError`: the CLI's one error path (`errors.py`) then says it as for every other command."""

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any, Final
from urllib.parse import quote

import httpx
import typer

from accord import __version__
from accord.cli.errors import talking_to
from accord.cli.output import print_json
from accord.core.jsonio import JSONError, parse
from accord.sdk import AccordError

CASES: Final = "v1/adviser/cases"
SKILLS: Final = "v1/adviser/skills"
MARKDOWN: Final = "text/markdown"
TIMEOUT_SECONDS: Final = 30.0

app = typer.Typer(
    name="adviser",
    help="Your private negotiation files (cases), versioned, over HTTP with a principal key "
    "(--key / ACCORD_KEY): open one, edit it with patches, follow its history, close it.",
    no_args_is_help=True,
)


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

    def answer(self, case_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._send("POST", (case_id, "answers"), body)

    def review(self, case_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._send("POST", (case_id, "deal-review"), body)

    def override(self, case_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._send("POST", (case_id, "deal-review", "override"), body)

    def run(self, case_id: str, skill_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._send("POST", (case_id, "skills", skill_id, "runs"), body)

    def link(self, case_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        return self._send("POST", (case_id, "links"), body)

    def reconcile(self, case_id: str, finding_id: str, decision: str) -> dict[str, Any]:
        body = {"reconciliation": decision}
        return self._send("POST", (case_id, "findings", finding_id), body)

    def skills(self) -> dict[str, Any]:
        return _answer(self._request("GET", (), base=SKILLS))

    def declare(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return _answer(self._request("POST", (), body=body, base=SKILLS))

    def export(self, case_id: str, number: int | None) -> str:
        """The brief's Markdown, as the server wrote it."""
        query = {} if number is None else {"version": number}
        response = self._request("GET", (case_id, "export"), query=query, accept=MARKDOWN)
        if response.is_success and response.headers.get("content-type", "").startswith(MARKDOWN):
            return response.text
        _answer(response)  # an error body is raised as its AccordError
        raise AccordError("invalid_response", "not Markdown", status=response.status_code)

    def _send(
        self, method: str, segments: tuple[str, ...], body: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        return _answer(self._request(method, segments, body=body))

    def _request(
        self,
        method: str,
        segments: tuple[str, ...],
        *,
        body: Mapping[str, Any] | None = None,
        query: Mapping[str, int] | None = None,
        accept: str = "application/json",
        base: str = CASES,
    ) -> httpx.Response:
        path = "/".join([base, *(quote(s, safe="") for s in segments)])
        try:
            return self._http.request(
                method, path, json=body, params=query, headers={"Accept": accept}
            )
        except httpx.TimeoutException as exc:
            raise AccordError("timeout", "the server did not answer in time") from exc
        except httpx.TransportError as exc:
            raise AccordError("network_error", str(exc)) from exc


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
        "User-Agent": f"accord-cli/{__version__}",
    }
    with (
        talking_to(url.rstrip("/")),
        httpx.Client(base_url=url, headers=headers, timeout=TIMEOUT_SECONDS) as http,
    ):
        yield Cases(http)


def print_body(body: Any, as_json: bool, human: Callable[[], None]) -> None:
    """The exact body under --json, else what `human` prints for a person."""
    if as_json:
        print_json(body)
    else:
        human()


# -- reading what a person typed ---------------------------------------------------------------


def read_json(file: str, hint: str) -> Any:
    """The JSON value of FILE (`-`: stdin); one that cannot be read is a usage mistake of the
    option `hint`."""
    try:
        return parse(sys.stdin.read() if file == "-" else _read(Path(file), hint))
    except JSONError as exc:
        raise typer.BadParameter(f"{file} is not JSON: {exc.reason}", param_hint=hint) from None
    except UnicodeDecodeError:
        raise typer.BadParameter(f"{file} is not UTF-8 text", param_hint=hint) from None


def _read(path: Path, hint: str) -> bytes:
    """The file's bytes; a file that is missing or cannot be read is a usage mistake.
    (Typer's own `exists=True` would do, but refuses `-` even with `allow_dash`.)"""
    try:
        return path.expanduser().read_bytes()
    except FileNotFoundError:
        raise typer.BadParameter(f"file {str(path)!r} does not exist", param_hint=hint) from None
    except OSError as exc:
        raise typer.BadParameter(
            f"cannot read {str(path)!r}: {exc.strerror}", param_hint=hint
        ) from None

"""What every `accord adviser` command shares: the group, its options, the principal's cases
through `accord.sdk` (a failed request ends the command as for every other, in `errors.py`)
and the reading of JSON files."""

import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from accord.cli.intro_options import principal
from accord.cli.output import print_json
from accord.core.jsonio import JSONError, parse
from accord.sdk import Adviser

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


@contextlib.contextmanager
def adviser(server: str, key: str) -> Iterator[Adviser]:
    """The principal's cases on `server`; a failed request ends the command."""
    with principal(server, key) as you:
        yield you.adviser


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

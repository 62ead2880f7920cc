"""The one place where a command's failure becomes a message (DESIGN.md, Command line).

Every `accord` command runs inside `AccordGroup.invoke`: a failure it knows (a refusal from
the store or a server, a file that cannot be written, a database that cannot be opened) ends
the command with `error: <message> (<code>)` on stderr, then the details that say what to fix,
one per line; under --json the error body itself, on stderr too. Stdout holds only answers,
so `$(accord … --json | jq …)` never mistakes an error for one. Exit 1, or 2 for a usage
mistake; anything else is a bug and keeps its traceback."""

import contextlib
import importlib
import json
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final

import typer
from typer.core import TyperGroup

from accord.cli.output import clean
from accord.core.refusals import Refused

if TYPE_CHECKING:
    from sqlalchemy.exc import SQLAlchemyError

JSON_FLAG: Final = "accord.json"
"""Set in the context's meta (shared by every nested context) by the --json option."""


class Failure(Exception):
    """What a command could not do, said for a person; `code` and `details` as in the API's
    error body when a refusal caused it."""

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        details: Mapping[str, Any] | None = None,
        exit_code: int = 1,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.details: Mapping[str, Any] = dict(details or {})
        self.exit_code = exit_code

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, **self.details}}

    def lines(self) -> list[str]:
        """`error: <message> (<code>)`, then `  <name>: <what>` for each detail."""
        code = f" ({clean(self.code)})" if self.code else ""
        lines = [f"error: {clean(self.message)}{code}"]
        for name, value in self.details.items():
            if isinstance(value, Mapping):
                lines += [f"  {clean(field)}: {_say(why)}" for field, why in value.items()]
            else:
                lines.append(f"  {clean(name)}: {_say(value)}")
        return lines


def _say(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(_say(v) for v in value)
    if isinstance(value, Mapping):
        return clean(json.dumps(value, ensure_ascii=False))
    return clean(value)


def explain(exc: BaseException) -> Failure | None:
    """The failure `exc` is to a person, or None for a bug (which keeps its traceback)."""
    if isinstance(exc, Failure):
        return exc
    if isinstance(exc, Refused):
        refusal = exc.refusal
        return Failure(refusal.message, code=str(refusal.code), details=refusal.details)
    if isinstance(exc, OSError) and exc.filename is not None:
        return Failure(f"{exc.filename}: {exc.strerror or exc}")
    # An error of the SDK or of the store comes from a module already loaded: a command that
    # never loaded it (or `--help`, which ends with an exception too) does not load it here.
    if "accord.sdk" in sys.modules:
        from accord.sdk import AccordError

        if isinstance(exc, AccordError) and exc.is_refusal:
            return Failure(exc.message, code=exc.code, details=exc.details)
        if isinstance(exc, AccordError):
            return Failure(f"{exc.message} ({exc.__cause__ or exc.code})")
    if "accord.store.engine" in sys.modules:
        from accord.store.engine import UnsupportedDatabase

        if isinstance(exc, UnsupportedDatabase):
            return Failure(str(exc), exit_code=2)
    if "sqlalchemy" in sys.modules:
        from sqlalchemy.exc import SQLAlchemyError

        if isinstance(exc, SQLAlchemyError):
            return Failure(f"the database failed: {_first_line(exc)}")
    return None


def _first_line(exc: "SQLAlchemyError") -> str:
    cause = getattr(exc, "orig", None) or exc
    return str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__


def show(failure: Failure, *, as_json: bool) -> None:
    """On stderr as written: no markup, no wrapping, nothing rich would make of it."""
    if as_json and failure.code is not None:
        sys.stderr.write(json.dumps(failure.body(), ensure_ascii=False) + "\n")
        return
    sys.stderr.write("".join(line + "\n" for line in failure.lines()))


def remember_json(ctx: typer.Context, value: bool) -> bool:
    """The --json option's callback: errors, too, are then shown as the API's error body."""
    if value:
        ctx.meta[JSON_FLAG] = True
    return value


@contextlib.contextmanager
def talking_to(server: str) -> Iterator[None]:
    """A failed request to `server` ends the command, saying which server did not answer."""
    from accord.sdk import AccordError

    try:
        yield
    except AccordError as error:
        if error.is_refusal:
            raise
        if error.code == "invalid_response":
            raise Failure(
                f"{server} answered HTTP {error.status} without an Accord body; is it one?"
            ) from error
        raise Failure(
            f"cannot reach the Accord server at {server}: {error.__cause__ or error.message}"
        ) from error


class AccordGroup(TyperGroup):
    """The `accord` command: every subcommand's known failures become messages here.

    A subclass's `lazy` names the commands imported only when asked for (`module:attribute`,
    a Typer app or a command function), so that `accord rooms show` loads neither the server
    nor the store, and `accord --version` nothing at all."""

    lazy: ClassVar[Mapping[str, str]] = {}

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in self.lazy if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.lazy and cmd_name not in self.commands:
            module, _, attribute = self.lazy[cmd_name].partition(":")
            command = _command_of(getattr(importlib.import_module(module), attribute))
            command.name = cmd_name
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: Any) -> Any:  # typer's own vendored click.Context
        try:
            return super().invoke(ctx)
        except Exception as exc:
            failure = explain(exc)
            if failure is None:
                raise
            show(failure, as_json=bool(ctx.meta.get(JSON_FLAG)))
            raise typer.Exit(failure.exit_code) from None


def _command_of(found: Any) -> Any:  # a command of typer's vendored click
    """A Typer app as a group (even with one command, as `add_typer` makes it), or a command
    function as a command."""
    if isinstance(found, typer.Typer):
        return typer.main.get_group(found)
    alone = typer.Typer(add_completion=False)
    alone.command()(found)
    return typer.main.get_command(alone)

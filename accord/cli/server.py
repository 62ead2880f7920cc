"""`accord serve`, `accord sweep` and `accord check`: the commands that run the server and
work on its store."""

import os
from typing import Annotated, Final

import typer
import uvicorn
from uvicorn.config import LOGGING_CONFIG

from accord import __version__
from accord.app.check import check as run_check
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.cli import store
from accord.cli.errors import Failure
from accord.cli.flags import Json
from accord.cli.options import with_settings
from accord.cli.output import err, out, print_json
from accord.store.engine import is_sqlite

LOG_CONFIG: Final = {
    **LOGGING_CONFIG,
    "loggers": {
        **LOGGING_CONFIG["loggers"],
        "accord": {"handlers": ["default"], "level": "WARNING", "propagate": False},
        "accord.access": {"level": "INFO"},
    },
}
"""uvicorn's own logging, and Accord's: warnings, and one line per request at INFO."""


@with_settings
def serve(
    settings: Settings,
    workers: Annotated[
        int,
        typer.Option(
            "--workers", envvar="ACCORD_WORKERS", min=1, help="Processes (PostgreSQL only)."
        ),
    ] = 1,
) -> None:
    """Apply migrations, start the sweeper and serve the API."""
    if workers > 1 and is_sqlite(settings.database):
        raise Failure("--workers above 1 needs PostgreSQL; SQLite has one writer", exit_code=2)
    store.create_or_open(settings).close()  # migrate once, before any worker starts
    os.environ.update(settings.to_env())
    err.print(f"Accord {__version__} on {settings.base_url} ({_describe(settings)})")
    uvicorn.run(
        "accord.serve:from_environment",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=workers,
        http="accord.http.connections:ServeProtocol",  # closes connections slow to send headers
        timeout_keep_alive=settings.keep_alive_timeout,
        log_level="warning",
        log_config=LOG_CONFIG,
        access_log=False,  # Accord logs its own line per request, on `accord.access`
    )


def _describe(settings: Settings) -> str:
    if is_sqlite(settings.database):
        return f"SQLite in {settings.data_dir}"
    return "PostgreSQL"


@with_settings
def sweep(settings: Settings, as_json: Json = False) -> None:
    """One sweep now: record every expiry that is due, close every timed-out session, expire
    every introduction that waited on its people too long, and let the built-in intro agent
    take the turns it has."""
    db = store.existing(settings)
    try:
        swept = Accord(settings, db=db).sweep()
    finally:
        db.close()
    ended = swept.ended
    expired = [e for e in ended if e.envelope.type.endswith(".expired")]
    closed = [e for e in ended if e not in expired]
    result = {
        "expired": [{"protocol": e.protocol, "id": e.id} for e in expired],
        "closed": [
            {"protocol": e.protocol, "id": e.id, "reason": e.envelope.payload.get("reason")}
            for e in closed
        ],
        "opportunities_expired": list(swept.opportunities_expired),
    }
    if as_json:
        print_json(result)
        return
    out.print(f"expired {len(expired)} room(s)" + "".join(f"\n  {e.id}" for e in expired))
    out.print(f"closed {len(closed)} session(s)" + "".join(f"\n  {e.id}" for e in closed))
    introductions = swept.opportunities_expired
    out.print(
        f"expired {len(introductions)} introduction(s) left pending"
        + "".join(f"\n  {i}" for i in introductions)
    )


@with_settings
def check(
    settings: Settings,
    as_json: Json = False,
    repair: Annotated[
        bool, typer.Option("--repair", help="Rewrite projections that disagree with the log.")
    ] = False,
) -> None:
    """Verify every chain and rebuild every projection from the logs; exit 1 on a problem
    (with --repair, a projection rewritten from its log no longer counts as one)."""
    db = store.existing(settings)
    try:
        report = run_check(db, Accord(settings, db=db).tables, repair=repair)
    finally:
        db.close()
    if as_json:
        print_json(report.to_json())
    else:
        for problem in report.problems:
            out.print(f"[red]problem[/red] {problem['id']}: {problem['problem']}", markup=True)
        for fixed in report.repaired:
            out.print(f"[yellow]repaired[/yellow] {fixed['id']}: {fixed['problem']}")
        verdict = "[green]ok[/green]" if report.ok else "[red]problems found[/red]"
        out.print(f"{report.negotiations} negotiation(s) checked: {verdict}")
    if not report.ok:
        raise typer.Exit(1)

"""`accord`: serve, sweep, check, and the per-area command groups."""

import logging
import os
from datetime import UTC, datetime
from typing import Annotated

import typer
import uvicorn

from accord import __version__
from accord.app.check import check as run_check
from accord.app.merchants import Merchants
from accord.app.rooms import Rooms
from accord.app.sessions import Sessions
from accord.app.settings import Settings
from accord.cli import keys, merchants, principals, rooms, sessions
from accord.cli.options import Json, with_settings
from accord.cli.output import err, out, print_json
from accord.cli.verify import verify
from accord.store.database import Database
from accord.store.engine import is_sqlite

app = typer.Typer(
    name="accord",
    help="Accord: an open negotiation server. Agents negotiate, people decide.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(rooms.app)
app.add_typer(keys.app, name="keys")
app.add_typer(merchants.app, name="merchants")
app.add_typer(sessions.app, name="sessions")
app.add_typer(principals.app, name="principals")
app.command()(verify)


def _now() -> datetime:
    return datetime.now(UTC)


@app.command()
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
        err.print("error: --workers above 1 needs PostgreSQL; SQLite has one writer. (usage)")
        raise typer.Exit(2)
    Database(settings.database).close()  # migrate once, before any worker starts
    os.environ.update(settings.to_env())
    err.print(f"Accord {__version__} on {settings.base_url} ({_describe(settings)})")
    uvicorn.run(
        "accord.http.app:from_environment",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=workers,
        log_level="warning",
        access_log=False,
    )


def _describe(settings: Settings) -> str:
    if is_sqlite(settings.database):
        return f"SQLite in {settings.data_dir}"
    return "PostgreSQL"


@app.command()
@with_settings
def sweep(settings: Settings, as_json: Json = False) -> None:
    """One sweep now: record every expiry that is due, close every timed-out session."""
    db = Database(settings.database)
    try:
        expired = Rooms(db, settings, clock=_now).sweep()
        merchants = Merchants(db, settings, clock=_now)
        closed = Sessions(db, settings, clock=_now, merchants=merchants).sweep()
    finally:
        db.close()
    result = {
        "expired": [{"protocol": "rooms", "id": i} for i in expired],
        "closed": [{"protocol": "arbitrated", "id": i, "reason": "timeout"} for i in closed],
    }
    if as_json:
        print_json(result)
        return
    out.print(f"expired {len(expired)} room(s)" + "".join(f"\n  {i}" for i in expired))
    out.print(f"closed {len(closed)} session(s)" + "".join(f"\n  {i}" for i in closed))


@app.command()
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
    db = Database(settings.database)
    try:
        report = run_check(db, settings, repair=repair)
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


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app()

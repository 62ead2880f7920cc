"""`accord keys`: the receipt signing keys in the keyring file (kept outside the database)."""

from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.table import Table

from accord.app.settings import Settings
from accord.cli import store
from accord.cli.options import Json, with_settings
from accord.cli.output import out, print_json
from accord.trust.keys import Keyring, Mode, load_keyring, rotate

app = typer.Typer(help="Receipt signing keys: list them, or rotate one.", no_args_is_help=True)


def _show(keyring: Keyring, as_json: bool) -> None:
    if as_json:
        print_json(keyring.jwks())
        return
    table = Table("kid", "mode", "status", "created", title=str(keyring.path))
    for key in keyring.keys:
        table.add_row(key.kid, key.mode, key.status, key.created_at)
    out.print(table)


@app.command("list")
@with_settings
def list_keys(settings: Settings, as_json: Json = False) -> None:
    """The signing keys: active and retired (all of them published in the JWKS)."""
    _show(load_keyring(store.existing_keyring(settings), now=datetime.now(UTC)), as_json)


@app.command("rotate")
@with_settings
def rotate_key(
    settings: Settings,
    mode: Annotated[
        str, typer.Option("--mode", help="Which key to rotate: test or live.")
    ] = "live",
    as_json: Json = False,
) -> None:
    """Make a new active key; the old one is retired and stays published, so that every
    receipt it signed still verifies."""
    if mode not in ("test", "live"):
        raise typer.BadParameter("test or live", param_hint="--mode")
    chosen: Mode = "test" if mode == "test" else "live"
    keyring = rotate(store.existing_keyring(settings), chosen, now=datetime.now(UTC))
    if not as_json:
        out.print(f"new active {mode} key: {keyring.active(chosen).kid}")
    _show(keyring, as_json)

"""`accord keys`: the receipt signing keys and the webhook key, in the keyring file (kept
outside the database)."""

from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.table import Table

from accord.app.settings import Settings
from accord.cli import store
from accord.cli.flags import Json
from accord.cli.options import with_settings
from accord.cli.output import out, print_json
from accord.trust.keys import Keyring, Mode, Use, load_keyring, rotate

app = typer.Typer(
    help="Receipt signing keys and the webhook key: list them, or rotate one.",
    no_args_is_help=True,
)


def _show(keyring: Keyring, as_json: bool) -> None:
    if as_json:
        print_json(keyring.jwks())
        return
    table = Table("kid", "use", "mode", "status", "created", title=str(keyring.path))
    for key in keyring.keys:
        mode = key.mode if key.use == "receipt" else "both"
        table.add_row(key.kid, key.use, mode, key.status, key.created_at)
    out.print(table)


@app.command("list")
@with_settings
def list_keys(settings: Settings, as_json: Json = False) -> None:
    """The signing keys: active and retired (the receipt keys all published in the JWKS, the
    webhook keys at /.well-known/webhook-keys.json). `--json` prints the JWKS."""
    _show(load_keyring(store.existing_keyring(settings), now=datetime.now(UTC)), as_json)


@app.command("rotate")
@with_settings
def rotate_key(
    settings: Settings,
    mode: Annotated[
        str, typer.Option("--mode", help="Which key to rotate: test or live.")
    ] = "live",
    webhook: Annotated[
        bool,
        typer.Option(
            "--webhook", help="Rotate the webhook signing key (v1a) instead of a receipt key."
        ),
    ] = False,
    as_json: Json = False,
) -> None:
    """Make a new active key; the old one is retired and stays published, so that every
    receipt it signed still verifies (a webhook key goes on signing beside the new one for a
    day)."""
    if mode not in ("test", "live"):
        raise typer.BadParameter("test or live", param_hint="--mode")
    chosen: Mode = "test" if mode == "test" else "live"
    use: Use = "webhook" if webhook else "receipt"
    keyring = rotate(store.existing_keyring(settings), chosen, now=datetime.now(UTC), use=use)
    if not as_json:
        key = keyring.webhook_keys()[-1] if webhook else keyring.active(chosen)
        out.print(f"new active {'webhook' if webhook else mode} key: {key.kid}")
    _show(keyring, as_json)

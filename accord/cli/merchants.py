"""`accord merchants`: tenants and their API keys, administered on the store itself (like
`accord check`). A key is printed once, when it is made; listings show only its metadata."""

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

import typer

from accord.app.identity import KEY_KINDS
from accord.app.merchants import Merchants
from accord.app.settings import Settings
from accord.cli import store
from accord.cli.flags import Json
from accord.cli.options import with_settings
from accord.cli.output import err, out, print_json

app = typer.Typer(
    help="Merchants (tenants) and their API keys, on the store itself: keys are printed once, "
    "when they are made.",
    no_args_is_help=True,
)

Name = Annotated[str, typer.Argument(help="The tenant's name: 1–64 of [A-Za-z0-9._-].")]
T = TypeVar("T")


def _now() -> datetime:
    return datetime.now(UTC)


def _run(settings: Settings, action: Callable[[Merchants], T]) -> T:
    db = store.existing(settings)
    try:
        return action(Merchants(db, settings, clock=_now))
    finally:
        db.close()


def _print_new_keys(made: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(made)
        return
    out.print(f"tenant {made['tenant_id']}")
    for name, key in made["keys"].items():
        out.print(f"  {name:<17} {key}", markup=False, soft_wrap=True)
    err.print("Keep these keys now: Accord stores only their hashes and cannot show them again.")


def _print_tenants(tenants: Sequence[dict[str, Any]]) -> None:
    """Short lines that fit a terminal: the tenant, then one line per key."""
    for tenant in tenants:
        out.print(f"{tenant['name']}  {tenant['tenant_id']}  created {tenant['created_at']}")
        for key in tenant["keys"]:
            retired = f"  retired {key['retired_at']}" if key["retired_at"] else ""
            kind = f"{key['kind']} {key['mode']}"
            out.print(f"  {kind:<16}  created {key['created_at']}{retired}", soft_wrap=True)
    if not tenants:
        err.print("No tenants yet: `accord merchants create NAME` makes one.")


@app.command("create")
@with_settings
def create(settings: Settings, name: Name, as_json: Json = False) -> None:
    """Make a tenant with its four keys (publishable and secret, test and live), printed once:
    `{tenant_id, keys: {publishable_test, publishable_live, secret_test, secret_live}}`."""
    made = _run(settings, lambda merchants: merchants.create_tenant(name))
    _print_new_keys(made, as_json)


@app.command("keys")
@with_settings
def keys(
    settings: Settings,
    name: Name,
    rotate: Annotated[
        str | None,
        typer.Option(
            "--rotate",
            help="Make new keys of this kind (publishable or secret) for both modes and retire "
            "the old ones at once; the new keys are printed once.",
            show_default="no rotation: list the keys' metadata",
        ),
    ] = None,
    as_json: Json = False,
) -> None:
    """A tenant's keys: their kind, mode and dates (never the keys themselves), or with
    --rotate KIND new keys of that kind, which replace the old ones."""
    if rotate is None:
        tenant = _run(settings, lambda merchants: merchants.describe_tenant(name))
        if as_json:
            print_json(tenant)
        else:
            _print_tenants([tenant])
        return
    if rotate not in KEY_KINDS:
        raise typer.BadParameter("publishable or secret", param_hint="--rotate")
    made = _run(settings, lambda merchants: merchants.rotate_keys(name, rotate))
    _print_new_keys(made, as_json)


@app.command("list")
@with_settings
def list_tenants(settings: Settings, as_json: Json = False) -> None:
    """Every tenant with its keys' kind, mode and dates (never the keys themselves):
    `{"tenants": [{tenant_id, name, created_at, keys: [{kind, mode, created_at,
    retired_at}]}]}`."""
    tenants = _run(settings, lambda merchants: merchants.list_tenants())
    if as_json:
        print_json({"tenants": tenants})
    else:
        _print_tenants(tenants)

"""`accord principals`: people and organisations and their keys, administered on the store
itself (like `accord merchants`). A key is printed once, when it is made. `link` is the
person's own: it asks the server, with the owner key, for a code that hands the key on."""

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

import typer

from accord.app.principals import Principals
from accord.app.settings import Settings
from accord.cli import store
from accord.cli.errors import Failure
from accord.cli.flags import Json, Server
from accord.cli.intro_options import DEFAULT_SERVER, principal
from accord.cli.options import with_settings
from accord.cli.output import err, out, print_json, print_link

app = typer.Typer(
    help="Principals (people and organisations) and their owner and agent keys, on the store "
    "itself: keys are printed once, when they are made.",
    no_args_is_help=True,
)

Name = Annotated[str, typer.Argument(help="The principal's name: 1–64 of [A-Za-z0-9._-].")]
T = TypeVar("T")


def _now() -> datetime:
    return datetime.now(UTC)


def _run(settings: Settings, action: Callable[[Principals], T]) -> T:
    db = store.existing(settings)
    try:
        return action(Principals(db, clock=_now))
    finally:
        db.close()


def _print_once(made: dict[str, Any], *, keys: str) -> None:
    for name, value in made.items():
        out.print(f"{name:<13} {value}", markup=False, soft_wrap=True)
    err.print(f"Keep {keys} now: Accord stores only hashes of keys and cannot show them again.")


@app.command("create")
@with_settings
def create(settings: Settings, name: Name, as_json: Json = False) -> None:
    """Make a principal with its owner key (the person) and the key of its `default` agent,
    which is selected; both are printed once: `{principal_id, name, owner_key, agent_key,
    agent_id}`."""
    made = _run(settings, lambda principals: principals.create(name))
    if as_json:
        print_json(made)
        return
    _print_once(made, keys="the owner key and the agent key")


@app.command("agent-key")
@with_settings
def agent_key(
    settings: Settings,
    name: Name,
    agent_id: Annotated[
        str,
        typer.Option(
            "--agent-id",
            help="The agent's id: 1–64 of [a-z0-9_-], not `accord`. A new key for an existing "
            "id replaces its old key at once.",
        ),
    ],
    as_json: Json = False,
) -> None:
    """Make a key for one agent of a principal, printed once: `{principal_id, agent_id,
    agent_key}`. The agent negotiates once the owner selects it (PUT /api/me/agent)."""
    made = _run(settings, lambda principals: principals.agent_key(name, agent_id))
    if as_json:
        print_json(made)
        return
    _print_once(made, keys="the agent key")


@app.command("link")
def link(
    name: Name,
    key: Annotated[
        str,
        typer.Option(
            "--key",
            envvar="ACCORD_KEY",
            help="The principal's owner key (acc_ok_…): only the person hands it on.",
            show_default=False,
        ),
    ],
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """A one-time link (an hour) that signs a browser or the Telegram bot in as the principal's
    owner: their introductions and cases, and confirmations by tap. Asks the server, with the
    owner key: `{code, web_url, telegram_url?, expires_at}`."""
    with principal(server, key) as you:
        me = you.me()
        if me.name != name:
            raise Failure(f"this key is {me.name}'s, not {name}'s: pass {name}'s owner key")
        made = you.link()
    print_link(made, telegram_note="Or link Telegram with it:", as_json=as_json)

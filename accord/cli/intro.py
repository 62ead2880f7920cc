"""`accord intro`: a principal's intro negotiations from a terminal, over HTTP through
`accord.sdk` with one of its keys (spec/intro-api.md, Endpoints). This file holds who you are,
intents, their chat, networks, discovery and opening; the opportunities and their negotiation
are in `intro_negotiation.py`.

Which key may do what is the server's rule (Principals and keys): the CLI sends the key it is
given and shows the refusal it gets, it never picks a key for you."""

from collections.abc import Callable
from typing import Annotated, Any

import typer

from accord.cli import intro_negotiation
from accord.cli.flags import Json, Server
from accord.cli.intro_display import (
    message_line,
    print_candidates,
    print_intent,
    print_intents,
    print_me,
    print_messages,
    print_networks,
    print_opportunities,
    say,
)
from accord.cli.intro_input import parse_constraints, parse_identity
from accord.cli.intro_options import DEFAULT_SERVER, IntentId, Key, principal
from accord.cli.output import err, print_json

app = typer.Typer(
    name="intro",
    help="Intro negotiations over HTTP with a principal key (--key / ACCORD_KEY): intents, "
    "discovery, the agents' negotiation, and your decision.",
    no_args_is_help=True,
)
intents = typer.Typer(name="intents", help="Your intents: what you want.", no_args_is_help=True)
chat = typer.Typer(
    name="chat", help="An intent's chat between you and your agents.", no_args_is_help=True
)
networks = typer.Typer(
    name="networks", help="Networks that share `network` intents.", no_args_is_help=True
)
app.add_typer(intents)
app.add_typer(chat)
app.add_typer(networks)

Constraints = Annotated[
    list[str] | None,
    typer.Option(
        "--constraint",
        "-c",
        help="A limit that matters to fit, once per constraint: 'key op value' (ops eq, in, "
        "gte, lte, between; values as JSON where they read as JSON: 'fee_eur between [50, 120]', "
        "'city eq Lyon'), or {key, op, value} JSON, or a JSON list (inline or a file).",
        show_default=False,
    ),
]
Identity = Annotated[
    list[str] | None,
    typer.Option(
        "--identity",
        help="Shown only once both people accept: field=value (display_name, headline, "
        "contact), once per field, or a JSON object.",
        show_default=False,
    ),
]
Networks = Annotated[
    list[str] | None,
    typer.Option("--network", help="A network id, once per network (with --visibility network)."),
]


def _show(body: dict[str, Any], as_json: bool, human: Callable[[], None]) -> None:
    """The exact body under --json, else what `human` prints for a person."""
    if as_json:
        print_json(body)
    else:
        human()


# -- who you are (first in --help) -------------------------------------------------------------


@app.command()
def me(key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False) -> None:
    """Your principal, your key's level, and the agent that negotiates for you."""
    with principal(server, key) as you:
        body = you.me().to_json()
    _show(body, as_json, lambda: print_me(body))


@app.command()
def agent(
    agent_id: Annotated[
        str,
        typer.Argument(
            metavar="AGENT_ID", help="`accord` (the built-in agent) or one of your agent keys' ids."
        ),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Select the agent that negotiates for you (owner key)."""
    with principal(server, key) as you:
        body = you.select_agent(agent_id).to_json()
    _show(body, as_json, lambda: say(f"selected agent: {body.get('selected_agent_id')}"))


# -- intents -------------------------------------------------------------------------------


@intents.command("create")
def create_intent(
    statement: Annotated[
        str, typer.Argument(metavar="STATEMENT", help="What you want, 1..2,000 characters.")
    ],
    visibility: Annotated[
        str,
        typer.Option(
            "--visibility",
            help="Fixed at creation: public, network (with --network), incognito "
            "(double-blind) or private (your agent's own notes, never discovered).",
        ),
    ],
    key: Key,
    constraint: Constraints = None,
    identity: Identity = None,
    network: Networks = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Post an intent (owner key)."""
    body: dict[str, Any] = {"statement": statement, "visibility": visibility}
    if constraint:
        body["constraints"] = parse_constraints(constraint)
    if identity:
        body["identity"] = parse_identity(identity)
    if network:
        body["networks"] = list(network)
    with principal(server, key) as you:
        made = you.create_intent(body).to_json()
    _show(made, as_json, lambda: print_intent(made["intent"]))


@intents.command("list")
def list_intents(key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False) -> None:
    """Your intents, newest first."""
    with principal(server, key) as you:
        body = you.intents().to_json()
    _show(body, as_json, lambda: print_intents(body["intents"]))


@intents.command("show")
def show_intent(
    intent_id: IntentId, key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False
) -> None:
    """One of your intents."""
    with principal(server, key) as you:
        body = you.intent(intent_id).to_json()
    _show(body, as_json, lambda: print_intent(body["intent"]))


@intents.command("edit")
def edit_intent(
    intent_id: IntentId,
    key: Key,
    statement: Annotated[
        str | None, typer.Option("--statement", help="A new statement.", show_default=False)
    ] = None,
    constraint: Constraints = None,
    no_constraints: Annotated[
        bool, typer.Option("--no-constraints", help="Remove every constraint.")
    ] = False,
    identity: Identity = None,
    network: Networks = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Set members of your intent (owner key).

    Each option given replaces that member whole (--constraint replaces all the constraints);
    the result must be valid as a whole."""
    patch: dict[str, Any] = {}
    if statement is not None:
        patch["statement"] = statement
    if constraint or no_constraints:
        patch["constraints"] = parse_constraints(constraint or [])
    if identity:
        patch["identity"] = parse_identity(identity)
    if network:
        patch["networks"] = list(network)
    if not patch:
        raise typer.BadParameter(
            "say what to change: --statement, --constraint, --no-constraints, --identity or "
            "--network",
            param_hint="options",
        )
    _set(intent_id, patch, key, server, as_json)


def _set(intent_id: str, patch: dict[str, Any], key: str, server: str, as_json: bool) -> None:
    with principal(server, key) as you:
        body = you.edit_intent(intent_id, patch).to_json()
    _show(body, as_json, lambda: print_intent(body["intent"]))


@intents.command("pause")
def pause(
    intent_id: IntentId, key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False
) -> None:
    """Take the intent out of discovery and hold its negotiations (owner key); reversible."""
    _set(intent_id, {"status": "paused"}, key, server, as_json)


@intents.command("activate")
def activate(
    intent_id: IntentId, key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False
) -> None:
    """Make a paused intent active again (owner key)."""
    _set(intent_id, {"status": "active"}, key, server, as_json)


@intents.command("archive")
def archive(
    intent_id: IntentId, key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False
) -> None:
    """End the intent for good (owner key).

    Its open negotiations close and its open opportunities expire."""
    _set(intent_id, {"status": "archived"}, key, server, as_json)


# -- chat ----------------------------------------------------------------------------------


@chat.command("write")
def write(
    intent_id: IntentId,
    message: Annotated[str, typer.Argument(metavar="MESSAGE", help="1..4,000 characters.")],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Write in the intent's chat.

    The owner's message answers the agent's open questions on it, and is new context to
    resume its negotiations with."""
    with principal(server, key) as you:
        body = you.write(intent_id, message).to_json()
    _show(body, as_json, lambda: say(message_line(body["message"])))


@chat.command("read")
def read(
    intent_id: IntentId,
    key: Key,
    after: Annotated[
        str | None,
        typer.Option("--after", help="Only the messages after this one.", show_default=False),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """The intent's chat, oldest first."""
    with principal(server, key) as you:
        body = you.chat(intent_id, after=after).to_json()
    _show(body, as_json, lambda: print_messages(body["messages"]))


# -- networks ------------------------------------------------------------------------------


@networks.command("create")
def create_network(
    name: Annotated[str, typer.Argument(metavar="NAME", help="1..200 characters.")],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Make a network, you its first member (owner key); its invite code is shown only now."""
    with principal(server, key) as you:
        body = you.create_network(name).to_json()
    if as_json:
        print_json(body)
        return
    say(f"network {body.get('network_id')}  {body.get('name')}")
    say(f"invite code: {body.get('invite_code')}")
    err.print("Keep the invite code now: Accord stores only its hash.", markup=False)


@networks.command("list")
def list_networks(key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False) -> None:
    """The networks you belong to."""
    with principal(server, key) as you:
        body = you.networks().to_json()
    _show(body, as_json, lambda: print_networks(body["networks"]))


@networks.command("join")
def join_network(
    invite_code: Annotated[
        str, typer.Argument(metavar="INVITE_CODE", help="The code the network's creator gave you.")
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Join a network (owner key); joining again changes nothing."""
    with principal(server, key) as you:
        body = you.join_network(invite_code).to_json()
    _show(body, as_json, lambda: say(f"member of {body.get('network_id')}  {body.get('name')}"))


# -- discovery and opening -----------------------------------------------------------------


@app.command()
def discover(
    intent_id: IntentId,
    key: Key,
    query: Annotated[
        str | None,
        typer.Option("--query", help="Candidates whose statement shares a word come first."),
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", help="1..30 candidates.", show_default="10")
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """The intents that could fit yours, best first.

    Each with its score, whether the fit is mutual, and the statement once it is (never an
    incognito one)."""
    with principal(server, key) as you:
        body = you.discover(intent_id, query=query, limit=limit).to_json()
    _show(body, as_json, lambda: print_candidates(body["candidates"]))


@app.command("open")
def open_opportunities(
    intent_id: IntentId,
    candidates: Annotated[
        list[str], typer.Argument(metavar="CANDIDATE...", help="1..30 intent ids from discover.")
    ],
    key: Key,
    context: Annotated[
        str | None,
        typer.Option("--context", help="A private note for your own agent (≤ 2,000 characters)."),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Open an opportunity with each candidate: the agents start negotiating.

    You are the initiator, whose agent moves first. A pair has one opportunity, ever: opening
    it again shows it unchanged."""
    with principal(server, key) as you:
        body = you.open(intent_id, candidates, context=context).to_json()
    _show(body, as_json, lambda: print_opportunities(body["opportunities"]))


for group in intro_negotiation.groups:
    app.add_typer(group)
for command in intro_negotiation.commands:
    app.command()(command)

"""`accord agent run`: a built-in agent acts for a seat on a server, through the SDK, until the
negotiation ends or needs its person (spec/agents.md, Command line). It holds the seat's agent
token only: an approve or a walk-away waits for the person, who confirms with `accord rooms
confirm`; run it again after and it goes on from the log."""

import enum
from pathlib import Path
from typing import Annotated, Any, Final

import typer

from accord.adviser.brief import CaseBriefError
from accord.agents.briefs import BriefError, read_brief
from accord.agents.room_agent import RoomAgent
from accord.agents.strategies import DEFAULT, STRATEGIES
from accord.app.llm import ChatModel
from accord.cli.agent_case import CaseLimits
from accord.cli.agent_seat import act, no_veto
from accord.cli.agent_session import run_session
from accord.cli.credentials import DEFAULT_PATH, TokenKind
from accord.cli.demo import say_terms
from accord.cli.errors import Failure
from accord.cli.flags import Json, LlmApiKey, LlmBaseUrl, LlmModel, Server
from accord.cli.output import clean, out, print_json
from accord.cli.room_options import DEFAULT_SERVER, CredentialsPath, RoomOptions, Token
from accord.core.jsonio import JSONError, parse

MAX_MOVES: Final = 1000

app = typer.Typer(help="Built-in agents acting for a seat on a server.", no_args_is_help=True)


class TableKind(enum.StrEnum):
    rooms = "rooms"
    sessions = "sessions"
    intro = "intro"


@app.command()
def run(
    target: Annotated[
        str,
        typer.Argument(
            metavar="ROOM_ID|SKU",
            help="The room to act in; with --table sessions, the SKU to buy.",
        ),
    ],
    brief: Annotated[
        Path | None,
        typer.Option(
            "--brief",
            exists=True,
            dir_okay=False,
            help="JSON. Rooms: {fields: {name: {weight, from, to, steps?} | {weight, "
            "utilities}}, reservation?}; sessions: {ceiling_minor, utilities?, steps?}. "
            "See docs/agents.md.",
            show_default="rooms with --case: the case's limits alone",
        ),
    ] = None,
    case: Annotated[
        str | None,
        typer.Option(
            "--case",
            help="Your adviser case: the agent takes its limits from it (rooms: each field a "
            "topic maps with x_accord.term, from its minimum or your BATNA to its target; "
            "sessions: the ceiling from the topic mapped to price, and the new session is "
            "linked to the case) and approves or accepts no terms the case's deal review "
            "says reject, unless you overrode it. Read with --case-key.",
            show_default=False,
        ),
    ] = None,
    case_key: Annotated[
        str | None,
        typer.Option(
            "--case-key",
            envvar="ACCORD_CASE_KEY",
            help="With --case: a key of the case's principal (an agent key reads the case; "
            "the owner key also links a session it opens).",
            show_default=False,
        ),
    ] = None,
    table: Annotated[
        TableKind,
        typer.Option("--table", help="Which kind of negotiation: rooms, or sessions as a buyer."),
    ] = TableKind.rooms,
    strategy: Annotated[
        str, typer.Option("--strategy", help=f"A built-in strategy: {', '.join(STRATEGIES)}.")
    ] = DEFAULT,
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, max=1000, help="Offers it makes before it stops.")
    ] = 20,
    wait: Annotated[
        float,
        typer.Option("--wait", min=1, help="Seconds to wait for the other side's move."),
    ] = 300,
    seed: Annotated[int, typer.Option("--seed", help="Seeds the strategy's randomness.")] = 0,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            envvar="ACCORD_KEY",
            help="Sessions: the merchant's publishable key the session is opened with.",
            show_default=False,
        ),
    ] = None,
    agent_id: Annotated[
        str, typer.Option("--agent-id", help="Sessions: the buyer agent's name.")
    ] = "accord-agent",
    llm_base_url: LlmBaseUrl = None,
    llm_model: LlmModel = None,
    llm_api_key: LlmApiKey = None,
    server: Server = DEFAULT_SERVER,
    credentials: CredentialsPath = DEFAULT_PATH,
    token: Token = None,
    as_json: Json = False,
) -> None:
    """Act for your seat with a built-in strategy until the room ends or needs you; with
    --table sessions, open a session on a SKU and buy it as the buyer, within your ceiling.

    In a room it uses the seat's agent token (stored by `accord rooms open` or `join`, or --token);
    what needs your confirmation stops it, naming the confirmation. With an LLM endpoint
    (--llm-base-url and --llm-model) its moves carry words the model writes, guarded."""
    if table is TableKind.intro:
        raise Failure(
            "the built-in intro agent runs inside the server: a principal's owner selects it "
            "(agent id `accord`) and it negotiates their introductions; see the README",
            exit_code=2,
        )
    if strategy not in STRATEGIES:
        raise Failure(
            f"unknown strategy {strategy}; the built-in ones are {', '.join(STRATEGIES)}",
            exit_code=2,
        )
    if brief is None and case is None:
        raise Failure("give the agent its brief: --brief FILE, or --case", exit_code=2)
    document = {} if brief is None else _document(brief)
    adviser = None if case is None else CaseLimits.read(case, server, case_key)
    if table is TableKind.sessions:
        if adviser is not None:
            try:
                document = adviser.ceiling(document)
            except CaseBriefError as exc:
                raise Failure(f"the case: {exc}", exit_code=2) from None
        run_session(
            target, document, strategy=strategy, rounds=rounds, seed=seed, key=key,
            agent_id=agent_id, server=server, as_json=as_json, adviser=adviser,
        )  # fmt: skip
        return
    options = RoomOptions(
        server=server,
        server_is_explicit=server != DEFAULT_SERVER,
        credentials=credentials,
        token=token,
        kind=TokenKind.AGENT,
        as_json=as_json,
    )
    steps: list[dict[str, Any]] = []
    model = ChatModel(llm_base_url, llm_model, llm_api_key) if llm_base_url and llm_model else None

    def say(text: str) -> None:
        if not as_json:
            out.print(text, markup=False, soft_wrap=True)

    with options.seat(target) as seat:
        room = seat.view()
        try:
            if adviser is not None:
                document = adviser.brief(room.subject_schema, document)
            agent = RoomAgent(read_brief(room.subject_schema, document), STRATEGIES[strategy],
                              rounds, seed)  # fmt: skip
        except (BriefError, CaseBriefError) as exc:
            raise Failure(f"{brief or 'the case'}: {exc}", exit_code=2) from None
        say(f"{strategy} acts for the {room.seat} of {clean(room.name)} ({room.room_id})")
        stopped, confirmation = "", None
        for _ in range(MAX_MOVES):
            acted = act(
                agent,
                seat,
                None,
                model,
                veto=adviser.veto if adviser is not None else no_veto,
                never_say=adviser.never_say if adviser is not None else frozenset(),
            )
            step = acted.step
            if acted.vetoed is not None:
                stopped, confirmation = "vetoed", None
                say(acted.vetoed)
                break
            if step.kind == "wait":
                if seat.next_event(timeout=wait) is None and not seat.view().your_turn:
                    stopped = "timeout"
                    break
                continue
            if step.kind in ("done", "out_of_rounds"):
                stopped = acted.room["state"] if step.kind == "done" else "out_of_rounds"
                break
            if step.kind == "needs_owner":
                stopped, confirmation = "needs_owner", acted.confirmation_id
                break
            steps.append({"kind": step.kind, "terms": step.terms, "utility": step.utility})
            if step.terms is not None and step.utility is not None:
                say(f"  {step.kind:7} {say_terms(step.terms)}  ({step.utility:.2f})")
            if acted.confirmation_id is not None:
                stopped, confirmation = "needs_owner", acted.confirmation_id
                break
        room = seat.view()
    if as_json:
        room_json = {"id": room.room_id, "name": room.name, "state": room.state}
        print_json(
            {"room": room_json, "steps": steps, "stopped": stopped, "confirmation_id": confirmation}
        )
        return
    if stopped == "vetoed":
        say(
            "It stopped before approving: decide yourself, or override the review first "
            f"(accord adviser override {case})."
        )
    elif stopped == "needs_owner":
        say(f"Its move waits for you: accord rooms confirm {room.room_id} {confirmation}")
    elif stopped == "out_of_rounds":
        say(f"It made its {rounds} offers without agreement; the room is yours again.")
    elif stopped == "timeout":
        say(f"The other side did not move within {wait:.0f} s; run it again to go on.")
    else:
        say(f"The room is {room.state}.")


def _document(brief: Path) -> dict[str, Any]:
    try:
        document = parse(brief.read_bytes())
    except JSONError as exc:
        raise Failure(f"{brief} is not strict JSON ({exc.reason})", exit_code=2) from None
    if not isinstance(document, dict):
        raise Failure(f"{brief} is not a brief: give a JSON object", exit_code=2)
    return document

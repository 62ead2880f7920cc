"""`accord intro` on an opportunity: reading it, the agents' turns, resuming a round, the
agent's questions and the owner's answers, the person's decision, the log and the receipt
(spec/intro-api.md, Opportunities, The negotiation, Log and receipt)."""

from pathlib import Path
from typing import Annotated, Final

import typer

from accord.cli.flags import Json, Server
from accord.cli.intro_display import (
    print_decided,
    print_log,
    print_negotiation,
    print_negotiations,
    print_opportunities,
    print_questions,
    print_receipt,
)
from accord.cli.intro_input import parse_questions
from accord.cli.intro_options import DEFAULT_SERVER, Key, OpportunityId, principal
from accord.cli.output import err, print_json, write_receipt

opportunities = typer.Typer(
    name="opportunities", help="The opportunities you hold a seat in.", no_args_is_help=True
)
negotiation = typer.Typer(
    name="negotiation",
    help="The agents' negotiation on an opportunity: read it, take a turn, resume a round, "
    "its log and receipt.",
    no_args_is_help=True,
)
questions = typer.Typer(
    name="questions",
    help="The agent's questions to its owner on a negotiation, and the owner's answers.",
    no_args_is_help=True,
)
negotiations = typer.Typer(
    name="negotiations", help="Every negotiation you hold a seat in.", no_args_is_help=True
)

DECISIONS: Final = {"accept": "accepted", "reject": "rejected", "withdraw": "expired"}

IntentFilter = Annotated[
    str | None,
    typer.Option("--intent", help="Only those of this intent of yours.", show_default=False),
]


# -- opportunities -------------------------------------------------------------------------


@opportunities.command("list")
def list_opportunities(
    key: Key,
    status: Annotated[
        str | None,
        typer.Option(
            "--status",
            help="negotiating, pending, accepted, rejected or expired.",
            show_default=False,
        ),
    ] = None,
    intent: IntentFilter = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Your opportunities, newest first."""
    with principal(server, key) as you:
        body = you.opportunities(status=status, intent_id=intent).to_json()
    if as_json:
        print_json(body)
        return
    print_opportunities(body["opportunities"])


@opportunities.command("show")
def show_opportunity(
    opportunity_id: OpportunityId,
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """An opportunity, its negotiation and the other side, layer by layer.

    Both decisions show as far as you may see them: theirs once the opportunity is final."""
    with principal(server, key) as you:
        body = you.opportunity(opportunity_id).to_json()
    if as_json:
        print_json(body)
        return
    print_negotiation(body)


# -- the negotiation -----------------------------------------------------------------------


@negotiation.command("show")
def show_negotiation(
    opportunity_id: OpportunityId,
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """The turns, whose turn it is, and the other side's open layers.

    "your turn" lists the actions your seat may take now."""
    with principal(server, key) as you:
        body = you.negotiation(opportunity_id).to_json()
    if as_json:
        print_json(body)
        return
    print_negotiation(body)


@negotiation.command("turn")
def turn(
    opportunity_id: OpportunityId,
    action: Annotated[
        str, typer.Argument(metavar="ACTION", help="propose, counter, accept or decline.")
    ],
    message: Annotated[
        str, typer.Argument(metavar="MESSAGE", help="Free text, 1..4,000 characters.")
    ],
    key: Key,
    expected_turn_count: Annotated[
        int | None,
        typer.Option(
            "--expected-turn-count",
            min=0,
            help="The turn_count you decided from; a turn taken since is refused `raced`.",
            show_default="read from the server just before",
        ),
    ] = None,
    message_id: Annotated[
        str | None,
        typer.Option(
            "--message-id",
            help="Sending the same id and turn again returns the first answer.",
            show_default="a new one",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Take your seat's turn (the selected agent's key)."""
    with principal(server, key) as you:
        if expected_turn_count is None:
            expected_turn_count = you.negotiation(opportunity_id).negotiation.turn_count
        body = you.turn(
            opportunity_id,
            action,
            message,
            expected_turn_count=expected_turn_count,
            message_id=message_id,
        ).to_json()
    if as_json:
        print_json(body)
        return
    print_negotiation(body)


@negotiation.command("resume")
def resume(
    opportunity_id: OpportunityId,
    brief: Annotated[
        str,
        typer.Argument(
            metavar="BRIEF", help="What is new, 1..4,000 characters; kept private to your seat."
        ),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Open the next round after one ended, your seat to move first.

    It needs new context since the round ended: an owner's chat message, an edit of your
    intent, or an answer to a question."""
    with principal(server, key) as you:
        body = you.resume(opportunity_id, brief).to_json()
    if as_json:
        print_json(body)
        return
    print_negotiation(body)


@negotiation.command("log")
def log(
    opportunity_id: OpportunityId,
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """The negotiation's public log, the same for both seats: every envelope, in order."""
    with principal(server, key) as you:
        body = you.log(opportunity_id).to_json()
    if as_json:
        print_json(body)
        return
    print_log(body["envelopes"])


@negotiation.command("receipt")
def receipt(
    opportunity_id: OpportunityId,
    key: Key,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            dir_okay=False,
            help="Write the receipt to this file, and the log beside it as <name>.log.json, "
            "for `accord verify` offline.",
            show_default="none",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """The receipt of a settled negotiation.

    Signed when the agents agreed, unsigned when it closed; `negotiation_open` before."""
    with principal(server, key) as you:
        body = you.receipt(opportunity_id).to_json()
        chain = you.log(opportunity_id).to_json() if output is not None else None
    if output is not None:
        log_path = write_receipt(output, body, chain)
        allow_test = " --allow-test" if body.get("mode") == "test" else ""
        err.print(
            f"wrote {output} and {log_path}; check them with: accord verify {output} "
            f"--log {log_path} --trust-url {server.rstrip('/')}/.well-known/jwks.json"
            f"{allow_test}",
            markup=False,
            soft_wrap=True,
        )
    if as_json:
        print_json(body)
        return
    print_receipt(body)


# -- questions -----------------------------------------------------------------------------


@questions.command("list")
def list_questions(
    opportunity_id: OpportunityId,
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Your seat's questions, with their answers."""
    with principal(server, key) as you:
        body = you.questions(opportunity_id).to_json()
    if as_json:
        print_json(body)
        return
    print_questions(body["questions"])


@questions.command("ask")
def ask(
    opportunity_id: OpportunityId,
    question: Annotated[
        str,
        typer.Argument(
            metavar="QUESTION",
            help="One question (1..500), or a JSON list of 1..3 {question, options?, why}.",
        ),
    ],
    key: Key,
    why: Annotated[
        str | None,
        typer.Option("--why", help="Why the agent needs to know (1..1,000).", show_default=False),
    ] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", help="An answer to choose from, once per option (2..5)."),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Ask your owner (the selected agent's key).

    The seat waits until every question is answered."""
    asked = parse_questions(question, why, option or [])
    with principal(server, key) as you:
        body = you.ask(opportunity_id, asked).to_json()
    if as_json:
        print_json(body)
        return
    print_questions(body["questions"])


@questions.command("answer")
def answer(
    opportunity_id: OpportunityId,
    question_id: Annotated[
        str, typer.Argument(metavar="QUESTION_ID", help="The question's id (questions list).")
    ],
    text: Annotated[
        str,
        typer.Argument(metavar="ANSWER", help="1..2,000 characters, free or an option."),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Answer one of your agent's questions, once (owner key)."""
    with principal(server, key) as you:
        body = you.answer(opportunity_id, question_id, text).to_json()
    if as_json:
        print_json(body)
        return
    print_questions([body["question"]])


# -- the decision and the list -------------------------------------------------------------


def decide(
    opportunity_id: OpportunityId,
    decision: Annotated[
        str,
        typer.Argument(
            metavar="accept|reject|withdraw",
            help="accept the introduction, reject it (final), or withdraw the opportunity "
            "(final: it expires).",
        ),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Your own decision on an opportunity (owner key).

    Any time before it is final. While the agents talk, it ends their negotiation; both
    acceptances make the introduction."""
    status = DECISIONS.get(decision)
    if status is None:
        raise typer.BadParameter("accept, reject or withdraw", param_hint="DECISION")
    with principal(server, key) as you:
        body = you.decide(opportunity_id, status).to_json()
    if as_json:
        print_json(body)
        return
    print_decided(body["opportunity"])


@negotiations.command("list")
def list_negotiations(
    key: Key,
    state: Annotated[
        str | None, typer.Option("--state", help="open or settled.", show_default=False)
    ] = None,
    intent: IntentFilter = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Your negotiations: outcome, round, whose turn."""
    with principal(server, key) as you:
        body = you.negotiations(state=state, intent_id=intent).to_json()
    if as_json:
        print_json(body)
        return
    print_negotiations(body["negotiations"])


groups: Final = (opportunities, negotiation, questions, negotiations)
commands: Final = (decide,)

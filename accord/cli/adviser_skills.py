"""`accord adviser skills | run | reconcile`: the skills that grow a case (spec/adviser-api.md,
Skills and Red team). A run prints what the skill concluded, what it asks, warns and found, any
deliverable, then what applied; a red-team finding's patches wait until `reconcile`."""

from enum import StrEnum
from typing import Annotated, Any

import typer

from accord.cli.adviser_client import CaseId, Key, adviser, app, print_body, read_json
from accord.cli.adviser_display import hint, print_result, question_line, say
from accord.cli.flags import Json, Server
from accord.cli.intro_options import DEFAULT_SERVER
from accord.cli.output import grid


class Decision(StrEnum):
    ACCEPT = "ACCEPT"
    TEST = "TEST"
    REJECT = "REJECT"
    DEFER = "DEFER"


class Draft(StrEnum):
    agenda = "agenda"
    talking_points = "talking_points"
    draft = "draft"


@app.command()
def skills(
    key: Key,
    register: Annotated[
        str | None,
        typer.Option(
            "--register",
            metavar="FILE",
            help="Declare a skill of your own first (owner key): a JSON file (- for stdin) "
            "holding {skill_id: x-…, name, reads, writes, red_team?}; the same id replaces it.",
            show_default=False,
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """The skills you can run: the built-ins F01-F09 and your own, with what each may write."""
    declaration = None if register is None else _declaration(register)
    with adviser(server, key) as you:
        if declaration is not None:
            made = you.declare(declaration)
            if not as_json:
                say(f"registered {made.skill_id}")
        listed = you.skills().to_json()
    print_body(listed, as_json, lambda: _print_skills(listed.get("skills") or []))


def _declaration(file: str) -> dict[str, Any]:
    value = read_json(file, "--register")
    if not isinstance(value, dict):
        raise typer.BadParameter(
            f"{file} must hold a JSON object, the skill {{skill_id, name, reads, writes, "
            "red_team?}",
            param_hint="--register",
        )
    return value


def _print_skills(listed: list[Any]) -> None:
    rows = [
        (
            str(s.get("skill_id")),
            str(s.get("name")) + (" (red team)" if s.get("red_team") else ""),
            ", ".join(s.get("writes") or []) or "nothing",
        )
        for s in listed
    ]
    grid(("SKILL", "NAME", "WRITES"), rows)


@app.command()
def run(
    case_id: CaseId,
    skill_id: Annotated[
        str, typer.Argument(metavar="SKILL", help="F01..F09, or one of yours (adviser skills).")
    ],
    key: Key,
    kind: Annotated[
        Draft | None,
        typer.Option("--kind", help="F07: what to draft.", show_default=False),
    ] = None,
    request: Annotated[
        str | None,
        typer.Option(
            "--request",
            metavar="FILE",
            help="The run's request as JSON (- for stdin): F06 {seeds?, rounds?}, F07 {kind}, "
            "F08 {offer}.",
            show_default=False,
        ),
    ] = None,
    response: Annotated[
        str | None,
        typer.Option(
            "--response",
            metavar="FILE",
            help="Your own skill's SKILL_RESPONSE as JSON (- for stdin), validated like any "
            "skill's.",
            show_default=False,
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Run a skill on a case (owner key): its valid patches make one version.

    Prints the skill's conclusion, the questions it asks, its warnings and findings, what it
    drafted, then each patch: applied, refused (with why) or held until you reconcile its
    finding. --json prints the API's answer, {…Result, response}."""
    asked = None if request is None else read_json(request, "--request")
    if kind is not None:
        asked = {**(asked or {}), "kind": str(kind)}
    made = None if response is None else read_json(response, "--response")
    with adviser(server, key) as you:
        result = you.run(case_id, skill_id, request=asked, response=made).to_json()
    print_body(result, as_json, lambda: _print_run(case_id, result))


def _print_run(case_id: str, result: dict[str, Any]) -> None:
    answer = result.get("response") or {}
    summary = answer.get("summary") or {}
    confidence = summary.get("confidence")
    say(f"{answer.get('skill_id')}: {summary.get('conclusion')}  (confidence {confidence})")
    for question in answer.get("questions") or []:
        say(f"asks     {question_line(question)}")
    for warning in answer.get("warnings") or []:
        say(f"warns    {warning.get('severity')}: {warning.get('warning')}")
    for finding in answer.get("findings") or []:
        say(f"finding  {finding.get('finding_id')}  {finding.get('finding')}")
    for item in answer.get("recommendations") or []:
        say(f"advice   {item.get('recommendation')}: {item.get('rationale')}")
    deliverable = answer.get("deliverable")
    if isinstance(deliverable, dict):
        say(f"--- {deliverable.get('kind')} ---")
        say(str(deliverable.get("content")))
        say("---")
    print_result(case_id, result)
    if result.get("held"):
        hint(f"to apply or drop it: accord adviser reconcile {case_id} FINDING --decision …")


@app.command()
def reconcile(
    case_id: CaseId,
    finding_id: Annotated[
        str, typer.Argument(metavar="FINDING_ID", help="A red-team finding (adviser show).")
    ],
    decision: Annotated[
        Decision,
        typer.Option(
            "--decision",
            help="ACCEPT applies its held patches, REJECT drops them (both final); TEST and "
            "DEFER keep them waiting.",
            show_default=False,
        ),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Reconcile a red-team finding (owner key), in one new version."""
    with adviser(server, key) as you:
        result = you.reconcile(case_id, finding_id, decision.value).to_json()
    print_body(result, as_json, lambda: print_result(case_id, result))

"""`accord adviser`: a principal's private negotiation files (cases), versioned, from a terminal,
over HTTP with one of its keys (spec/adviser-api.md, Cases, Questions, Patches, Closing, Export).
The owner key writes a case; an agent key only reads it. The commands on what the adviser hands
back (questions, answer, export, review, override) are in `adviser_review.py`; what is shown to
a person is in `adviser_display.py`."""

from enum import StrEnum
from typing import Annotated, Any, Final

import typer

from accord.adviser.enums import AnalysisDepth
from accord.cli.adviser_client import CaseId, Key, adviser, print_body, read_json
from accord.cli.adviser_client import app as app
from accord.cli.adviser_display import (
    print_case,
    print_cases,
    print_closed,
    print_history,
    print_result,
    print_version,
    say,
)
from accord.cli.flags import Json, Server
from accord.cli.intro_options import DEFAULT_SERVER

BODY_MEMBERS: Final = frozenset({"based_on_state_version", "patches"})


class Outcome(StrEnum):
    closed = "closed"
    no_deal = "no_deal"


def read_patches(file: str, based_on: int | None) -> tuple[list[Any], int | None]:
    """The patches of FILE (`-`: stdin), and the version they are based on: `--based-on`, else
    the file's `based_on_state_version`, else None (the caller reads the current one). Only the
    shape is read here; each patch is the server's to check."""
    hint = "--file"
    value = read_json(file, hint)
    if value == [] or (isinstance(value, dict) and value.get("patches") == []):
        raise typer.BadParameter(f"{file} holds no patches", param_hint=hint)
    if isinstance(value, list):
        return value, based_on
    if not isinstance(value, dict) or "patches" not in value:
        raise typer.BadParameter(
            f"{file} must hold a JSON list of patches, or {{based_on_state_version, patches}}",
            param_hint=hint,
        )
    extra = sorted(set(value) - BODY_MEMBERS)
    if extra:
        raise typer.BadParameter(
            f"{file} has members other than based_on_state_version and patches: {', '.join(extra)}",
            param_hint=hint,
        )
    if not isinstance(value["patches"], list):
        raise typer.BadParameter(f"{file} holds patches that are not a JSON list", param_hint=hint)
    return value["patches"], based_on if based_on is not None else value.get(
        "based_on_state_version"
    )


# -- commands ----------------------------------------------------------------------------------


@app.command()
def new(
    title: Annotated[str, typer.Argument(metavar="TITLE", help="1..200 characters.")],
    key: Key,
    description: Annotated[
        str | None,
        typer.Option(
            "--description",
            help="What you want from this negotiation, in your words (≤ 4,000 characters); it "
            "also stands as your stated objective.",
            show_default=False,
        ),
    ] = None,
    depth: Annotated[
        AnalysisDepth | None,
        typer.Option(
            "--depth",
            help="How much the adviser keeps: LIGHT raises no material change.",
            show_default="STANDARD",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Open a case at version 1 (owner key)."""
    analysis_depth = None if depth is None else str(depth)
    with adviser(server, key) as you:
        made = you.open(title, description=description, analysis_depth=analysis_depth).to_json()
    print_body(made, as_json, lambda: print_case(made))


@app.command("list")
def list_cases(key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False) -> None:
    """Your cases, last updated first, with how many material changes you have not seen."""
    with adviser(server, key) as you:
        body = you.cases().to_json()
    print_body(body, as_json, lambda: print_cases(body.get("cases") or []))


@app.command()
def show(
    case_id: CaseId,
    key: Key,
    version: Annotated[
        int | None,
        typer.Option(
            "--version",
            min=1,
            help="The case as it was at this version (its state only).",
            show_default="the current version",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """One case, as it stands or as it was.

    Its lifecycle, objective, BATNA and topics; then, for the current version, the open
    questions, the material changes you have not seen and the held patches. --json prints the
    Case, or with --version, {case_id, state_version, state}."""
    with adviser(server, key) as you:
        body = (you.case(case_id) if version is None else you.version(case_id, version)).to_json()
    if version is None:
        print_body(body, as_json, lambda: print_case(body))
    else:
        print_body(body, as_json, lambda: print_version(body))


@app.command()
def history(
    case_id: CaseId, key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False
) -> None:
    """The case's history, oldest first: one event per version, with the pointers it changed."""
    with adviser(server, key) as you:
        body = you.history(case_id).to_json()
    print_body(body, as_json, lambda: print_history(body.get("events") or []))


@app.command()
def patch(
    case_id: CaseId,
    file: Annotated[
        str,
        typer.Option(
            "--file",
            metavar="FILE|-",
            help="JSON: a list of patches {patch_id, operation, path, proposed_value, basis?, "
            "evidence_refs?}, or {based_on_state_version, patches}; - reads stdin. See "
            "docs/adviser.md.",
            show_default=False,
        ),
    ],
    key: Key,
    based_on: Annotated[
        int | None,
        typer.Option(
            "--based-on",
            min=1,
            help="The version the patches were written against; a change since to what they "
            "touch refuses them (stale_state_version).",
            show_default="the file's based_on_state_version, else the current version",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Apply your edits to a case (owner key): the valid patches make one new version.

    Each refused patch is shown with its code and changes nothing; the command then exits 1,
    the others having applied all the same."""
    patches, based = read_patches(file, based_on)
    with adviser(server, key) as you:
        if based is None:
            based = you.case(case_id).state_version
        result = you.patch(case_id, patches, based_on=based).to_json()
    print_body(result, as_json, lambda: print_result(case_id, result))
    if result.get("refused"):
        raise typer.Exit(1)


@app.command()
def seen(
    case_id: CaseId,
    change_id: Annotated[
        str,
        typer.Argument(metavar="CHANGE_ID", help="A material change of the case (adviser show)."),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Mark a material change seen (owner key): it leaves the case's unseen list."""
    with adviser(server, key) as you:
        body = you.seen(case_id, change_id).to_json()
    print_body(body, as_json, lambda: say(f"material change {body.get('change_id')} seen"))


@app.command()
def close(
    case_id: CaseId,
    outcome: Annotated[
        Outcome,
        typer.Option("--outcome", help="closed (a deal was made) or no_deal.", show_default=False),
    ],
    reason: Annotated[
        str,
        typer.Option(
            "--reason", help="Why, kept in the history (1..2,000 characters).", show_default=False
        ),
    ],
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Close a case for good (owner key): it stays readable, and refuses every write after."""
    with adviser(server, key) as you:
        result = you.close(case_id, outcome.value, reason).to_json()
    print_body(result, as_json, lambda: print_closed(case_id, str(outcome), result))


# The commands on what the adviser hands back join the group after these, in `accord adviser
# --help` as in a case's life.
from accord.cli import adviser_link, adviser_review, adviser_skills  # noqa: E402, F401

"""`accord adviser` on what the adviser hands you to review, and your say on it: its open
questions and your answers, the one-page brief, the deal review (F08) of an offer and your
override of it (spec/adviser-api.md, Questions, Export, Deal review (F08)). The options are
`adviser_client.py`'s; what is shown is in `adviser_display.py`."""

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Final

import typer

from accord.cli.adviser_client import CaseId, Key, adviser, app, print_body, read_json
from accord.cli.adviser_display import (
    hint,
    print_answered,
    print_override,
    print_questions,
    print_review,
)
from accord.cli.flags import Json, Server
from accord.cli.intro_options import DEFAULT_SERVER
from accord.cli.output import clean
from accord.core.jsonio import JSONError, parse

OFFER_HINT: Final = "--offer"
BOOLEANS: Final = {"true": True, "yes": True, "false": False, "no": False}


def answer_value(text: str, question: Mapping[str, Any] | None) -> Any:
    """ANSWER as its question's kind takes it: a boolean from true, false, yes or no; a list from
    comma-separated items. Anything else goes as typed, and so does text that does not read as
    its kind: the server's refusal then says what the kind takes."""
    kind = question.get("kind") if question is not None else None
    if kind == "boolean" and text.strip().lower() in BOOLEANS:
        return BOOLEANS[text.strip().lower()]
    items = [item.strip() for item in text.split(",") if item.strip()]
    if kind == "list" and items:
        return items
    return text


def _json_answer(text: str) -> Any:
    try:
        return parse(text)
    except JSONError as exc:
        raise typer.BadParameter(
            f"ANSWER is not JSON: {exc.reason}", param_hint="--json-answer"
        ) from None


def read_offer(
    file: str | None, terms: Sequence[str], text: str | None, conditions: Sequence[str]
) -> dict[str, Any]:
    """The offer of `--offer FILE` (the offer, or a body `{offer}`), or the one the other
    options make. Only its shape is read here; the terms are the server's to check."""
    if file is not None:
        if terms or text is not None or conditions:
            raise typer.BadParameter(
                "give the offer in a file or with --term, --text and --condition, not both",
                param_hint=OFFER_HINT,
            )
        value = read_json(file, OFFER_HINT)
        if isinstance(value, dict) and set(value) == {"offer"}:
            value = value["offer"]
        if not isinstance(value, dict):
            raise typer.BadParameter(
                f"{file} must hold a JSON object, the offer {{terms, text?, conditions?}}",
                param_hint=OFFER_HINT,
            )
        return value
    if not terms and text is None:
        raise typer.BadParameter(
            "name the offer's terms (--term TOPIC=VALUE), give its --text, or read it from "
            "--offer FILE",
            param_hint="--term",
        )
    offer: dict[str, Any] = {"terms": _terms(terms)}
    if text is not None:
        offer["text"] = text
    if conditions:
        offer["conditions"] = list(conditions)
    return offer


def _terms(terms: Sequence[str]) -> dict[str, str]:
    read: dict[str, str] = {}
    for term in terms:
        topic, equals, value = term.partition("=")
        if not equals or not topic.strip():
            raise typer.BadParameter(f"{term!r} is not TOPIC=VALUE", param_hint="--term")
        if topic.strip() in read:
            raise typer.BadParameter(f"the topic {topic.strip()!r} twice", param_hint="--term")
        read[topic.strip()] = value.strip()
    return read


# -- questions and the brief ------------------------------------------------------------------


@app.command()
def questions(
    case_id: CaseId, key: Key, server: Server = DEFAULT_SERVER, as_json: Json = False
) -> None:
    """The case's open questions, one a line.

    Each with its id, its kind (with the choices or the currency), `blocking` when advice waits
    on it, and the question. --json prints the Case's `questions` list."""
    with adviser(server, key) as you:
        asked = you.case(case_id).to_json()["questions"]
    print_body(asked, as_json, lambda: print_questions(case_id, asked))


@app.command()
def answer(
    case_id: CaseId,
    question_id: Annotated[
        str, typer.Argument(metavar="QUESTION_ID", help="An open question (adviser questions).")
    ],
    text: Annotated[
        str,
        typer.Argument(
            metavar="ANSWER",
            help="Of the question's kind: text; one of its choices; an amount like "
            "'EUR 1,250.00'; a number; a date YYYY-MM-DD; true, false, yes or no; or a "
            "comma-separated list.",
        ),
    ],
    key: Key,
    json_answer: Annotated[
        bool,
        typer.Option(
            "--json-answer",
            help="ANSWER is JSON, sent as it is: a list whose items hold commas, say "
            '["Lyon, France", "Paris"].',
        ),
    ] = False,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Answer one of the case's open questions (owner key).

    The answer is your own edit, in one new version; it may close other questions or open new
    ones. Prints what applied, the version, any material change, and the questions now open; --json
    prints the API's answer, {…Result, question}."""
    value = _json_answer(text) if json_answer else text
    with adviser(server, key) as you:
        if not json_answer:
            asked = you.case(case_id).questions
            question = next((q for q in asked if q.get("question_id") == question_id), None)
            value = answer_value(text, question)
        result = you.answer(case_id, question_id, value).to_json()
        still = [] if as_json else you.case(case_id).questions
    print_body(result, as_json, lambda: print_answered(case_id, result, still))
    if result.get("refused"):
        raise typer.Exit(1)


@app.command()
def export(
    case_id: CaseId,
    key: Key,
    version: Annotated[
        int | None,
        typer.Option(
            "--version", min=1, help="The brief of this version.", show_default="the current one"
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            dir_okay=False,
            help="Write the Markdown to this file, as the server sent it, instead of printing it.",
            show_default="print it",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
) -> None:
    """The case's one-page brief, in Markdown.

    Objective, BATNA and WATNA, the critical and high topics, interests, pre-commitment,
    disclosure plan, offers, the last deal review, the next move and (at the current version)
    the open questions. No --json: the answer is Markdown."""
    if output is not None and not output.parent.is_dir():
        raise typer.BadParameter(
            f"the folder {str(output.parent)!r} does not exist", param_hint="--output"
        )
    with adviser(server, key) as you:
        text = you.export(case_id, version=version)
    if output is None:
        sys.stdout.write(clean(text))  # someone else's text, for a terminal
        return
    output.write_text(text, encoding="utf-8")
    hint(f"wrote {output}")


# -- the deal review ---------------------------------------------------------------------------


@app.command()
def review(
    case_id: CaseId,
    key: Key,
    term: Annotated[
        list[str] | None,
        typer.Option(
            "--term",
            metavar="TOPIC=VALUE",
            help="An offered term: a topic's id (adviser show) and its value, written as the "
            "topic's target is ('price=EUR 16,500'). Once per topic; a topic left out is unset.",
            show_default=False,
        ),
    ] = None,
    text: Annotated[
        str | None,
        typer.Option(
            "--text",
            help="The offer as it was made; the review names it by this.",
            show_default=False,
        ),
    ] = None,
    condition: Annotated[
        list[str] | None,
        typer.Option(
            "--condition",
            metavar="TEXT",
            help="What the offer is subject to, once per condition: any makes the hidden "
            "timebomb test conditional.",
            show_default=False,
        ),
    ] = None,
    offer: Annotated[
        str | None,
        typer.Option(
            "--offer",
            metavar="FILE|-",
            help="JSON: the offer {terms: {topic_id: value}, text?, conditions?}, instead of "
            "the options above; - reads stdin.",
            show_default=False,
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Review an offer (owner key): eight tests and a recommendation, in a new version.

    The offer is read against your interests, BATNA, independent criteria, minimums,
    implementation limits and pre-commitment, never your strategy. Prints the recommendation,
    the tests that did not pass first, the conditions to confirm and why; --json prints the
    API's answer, {…Result, deal_review, response}. A recommendation is advice, not a refusal:
    the command exits 0."""
    read = read_offer(offer, term or (), text, condition or ())
    with adviser(server, key) as you:
        result = you.review(case_id, read).to_json()
    print_body(result, as_json, lambda: print_review(case_id, result))


@app.command()
def override(
    case_id: CaseId,
    reason: Annotated[
        str,
        typer.Option(
            "--reason",
            help="Why you accept all the same, kept in the history (1..2,000 characters).",
            show_default=False,
        ),
    ],
    key: Key,
    new_evidence: Annotated[
        str | None,
        typer.Option(
            "--new-evidence",
            help="What you learned that the review did not know (≤ 4,000 characters).",
            show_default=False,
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Accept against the last review's recommendation, on the record (owner key).

    The reason (and any new evidence) is kept on the review and in the history; a new review
    clears it. Refused (nothing_to_override) unless the last review recommends other than
    accept."""
    with adviser(server, key) as you:
        result = you.override(case_id, reason, new_evidence=new_evidence).to_json()
    print_body(result, as_json, lambda: print_override(case_id, result))

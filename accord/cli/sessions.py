"""`accord sessions`: a merchant's arbitrated sessions, over HTTP through `accord.sdk` with its
secret key (spec/arbitrated-rest.md: `GET /v1/sessions`, `/v1/sessions/{id}`, `…/receipt`,
`…/log`)."""

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Final

import typer
from rich.table import Table

from accord.cli.errors import talking_to
from accord.cli.flags import Json, Server
from accord.cli.output import clean, err, out, print_json, write_receipt
from accord.core.money import format_money, is_amount_minor
from accord.sdk import Accord, Merchant

app = typer.Typer(
    name="sessions",
    help="A merchant's arbitrated sessions, over HTTP with its secret key (--key).",
    no_args_is_help=True,
)

DEFAULT_SERVER: Final = "http://127.0.0.1:8000"

Key = Annotated[
    str,
    typer.Option(
        "--key",
        envvar="ACCORD_KEY",
        help="The merchant's secret key (acc_sk_test_… or acc_sk_live_…); its mode is the "
        "mode of the sessions you see.",
        show_default=False,
    ),
]
SessionId = Annotated[str, typer.Argument(help="The session's id (ses_…).")]


@contextlib.contextmanager
def _merchant(server: str, key: str) -> Iterator[Merchant]:
    """The merchant's surface on `server`; a failed request ends the command."""
    url = server.rstrip("/")
    with talking_to(url), Accord(url) as client:
        yield client.merchant(key)


def _say(text: str) -> None:
    """One line for people; what a buyer wrote (a reason, an agent id) is shown, not obeyed."""
    out.print(clean(text), markup=False, soft_wrap=True)


def _money(money: Any) -> str:
    if not isinstance(money, dict) or not is_amount_minor(money.get("amount_minor")):
        return "—"
    return format_money(money["amount_minor"], str(money.get("currency", "")))


def _terms(terms: Any) -> str:
    if not isinstance(terms, dict):
        return "—"
    kinds = [str(i.get("kind")) for i in terms.get("inclusions") or [] if isinstance(i, dict)]
    with_ = f" with {', '.join(kinds)}" if kinds else ""
    return _money(terms.get("price")) + with_


@app.command("list")
def list_sessions(
    key: Key,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=200, help="How many, newest first.")
    ] = 20,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """Your latest sessions in your key's mode, newest first."""
    with _merchant(server, key) as merchant:
        body = merchant.sessions(limit=limit).to_json()
    if as_json:
        print_json(body)
        return
    sessions = body.get("sessions") or []
    if not sessions:
        err.print("no sessions yet")
        return
    grid = Table()
    widest = max(len(str(s.get("session_id"))) for s in sessions)
    grid.add_column("session", no_wrap=True, min_width=widest)  # ids are copied, never cut
    grid.add_column("sku")
    for column in ("state", "mode", "updated"):
        grid.add_column(column, no_wrap=True)
    for s in sessions:
        grid.add_row(
            *(clean(s.get(k) or "") for k in ("session_id", "sku", "state", "mode", "updated_at"))
        )
    out.print(grid, markup=False)


@app.command()
def show(
    session_id: SessionId,
    key: Key,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """A session as the merchant sees it: state, round, the offer on the table, the arbiter's
    last verdict, and every envelope of its log."""
    with _merchant(server, key) as merchant:
        view = merchant.session(session_id).to_json()
    if as_json:
        print_json(view)
        return
    _say(
        f"session {view.get('session_id')}  {view.get('sku')}  {view.get('state')}  "
        f"({view.get('mode')})"
    )
    _say(f"round {view.get('round')} of {view.get('max_rounds')}")
    table = view.get("offer_on_table")
    if isinstance(table, dict):
        _say(f"on the table: {_terms(table.get('terms'))} ({table.get('proposer')})")
    verdict = view.get("last_verdict")
    if isinstance(verdict, dict):
        _say(
            f"last verdict: {verdict.get('verdict')} (score {verdict.get('fairness_score')}, "
            f"round {verdict.get('round')}, {verdict.get('outcome')})"
        )
    close = view.get("close")
    if isinstance(close, dict):
        detail = f": {close['detail']}" if close.get("detail") else ""
        _say(f"closed: {close.get('reason')}{detail}")
    log = view.get("log") or []
    grid = Table(title=f"log ({len(log)} envelopes)")
    for column in ("seq", "type", "from", "round", "detail"):
        grid.add_column(column)
    for envelope in log:
        payload = envelope.get("payload") or {}
        if "terms" in payload:
            detail = _terms(payload["terms"])
        elif "verdict" in payload:
            detail = f"{payload['verdict']} ({payload.get('fairness_score')})"
        else:
            detail = ""
        grid.add_row(
            clean(envelope.get("seq")),
            clean(envelope.get("type")),
            clean((envelope.get("sender") or {}).get("role", "")),
            clean(payload.get("round", "")),
            clean(detail),
        )
    out.print(grid, markup=False)
    if view.get("receipt"):
        _say(f"receipt: accord sessions receipt {view.get('session_id')}")


@app.command()
def receipt(
    session_id: SessionId,
    key: Key,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            dir_okay=False,
            help="Write the receipt to this file, and the session's log beside it as "
            "<name>.log.json, for `accord verify` offline.",
            show_default="none",
        ),
    ] = None,
    server: Server = DEFAULT_SERVER,
    as_json: Json = False,
) -> None:
    """The receipt of an ended session: signed when agreed, unsigned when closed."""
    with _merchant(server, key) as merchant:
        body = merchant.receipt(session_id).to_json()
        log = merchant.log(session_id).to_json() if output is not None else None
    if output is not None:
        log_path = write_receipt(output, body, log)
        url = server.rstrip("/")
        allow_test = " --allow-test" if body.get("mode") == "test" else ""
        err.print(
            f"wrote {output} and {log_path}; check them with: accord verify {output} "
            f"--log {log_path} --trust-url {url}/.well-known/jwks.json{allow_test}",
            markup=False,
            soft_wrap=True,
        )
    if as_json:
        print_json(body)
        return
    signature = body.get("signature") or {}
    chain = body.get("chain") or {}
    _say(f"receipt of {session_id}: {body.get('state')} ({body.get('mode')})")
    _say(f"final terms: {_terms(body.get('final_terms'))}")
    _say(f"signature: {signature.get('status')} ({signature.get('reason')})")
    invariants = body.get("invariants") or {}
    held = sum(1 for ok in invariants.values() if ok)
    _say(f"invariants: {held} of {len(invariants)} hold")
    _say(f"chain: {chain.get('length')} envelopes, head {chain.get('head')}")

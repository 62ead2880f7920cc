"""`accord verify`: the eight checks of docs/receipts.md on a receipt file, offline."""

from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.table import Table

from accord.cli.errors import Failure
from accord.cli.flags import Json
from accord.cli.output import out, print_json
from accord.core.jsonio import JSONError, parse
from accord.trust.verify import TrustedKey, load_trusted, not_a_receipt, verify_receipt

ExistingFile = Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True)]


def _read_json(path: Path, what: str) -> Any:
    try:
        return parse(path.read_bytes())
    except JSONError as exc:
        raise Failure(f"{path} is not {what}: it is not strict JSON ({exc.reason})") from None


def _trusted(trust: Path | None, trust_url: str | None) -> list[TrustedKey]:
    if trust is not None and trust_url is not None:
        raise Failure("give --trust or --trust-url, not both", exit_code=2)
    if trust is not None:
        jwks = _read_json(trust, "a JWKS")
    elif trust_url is not None:
        try:
            response = httpx.get(trust_url, timeout=10, follow_redirects=False)
            response.raise_for_status()
            jwks = parse(response.content)
        except (httpx.HTTPError, JSONError) as exc:
            raise Failure(f"cannot fetch the JWKS at {trust_url}: {exc}") from None
    else:
        return []
    try:
        return load_trusted(jwks)
    except ValueError as exc:
        raise Failure(f"the trusted JWKS is refused: {exc}") from None


def verify(
    receipt: ExistingFile,
    log: Annotated[
        Path | None,
        typer.Option(
            "--log",
            exists=True,
            dir_okay=False,
            help="The negotiation's log: a JSON array of envelopes or {envelopes: [...]}.",
        ),
    ] = None,
    trust: Annotated[
        Path | None,
        typer.Option(
            "--trust", exists=True, dir_okay=False, help="A JWKS file with the keys to pin."
        ),
    ] = None,
    trust_url: Annotated[
        str | None,
        typer.Option(
            "--trust-url",
            help="A JWKS URL with the keys to pin, such as https://host/.well-known/jwks.json.",
        ),
    ] = None,
    allow_test: Annotated[
        bool, typer.Option("--allow-test", help="Accept receipts signed in test mode.")
    ] = False,
    as_json: Json = False,
) -> None:
    """Verify a receipt offline: exit 0 only when it is valid and its signer is pinned.

    Exit 1 when it is not, or when the file is not a receipt at all.

    Trusts no key it is not given: not the receipt's own, not one on this machine."""
    trusted = _trusted(trust, trust_url)
    envelopes = None
    if log is not None:
        raw = _read_json(log, "a log")
        envelopes = raw.get("envelopes") if isinstance(raw, dict) else raw
        if not isinstance(envelopes, list):
            raise Failure(
                f"{log} is not a log: a log is a JSON array of envelopes or {{envelopes: [...]}}"
            )
    body = _read_json(receipt, "a receipt")
    why = not_a_receipt(body)
    if why is not None:
        raise Failure(f"{receipt} is not a receipt: {why}")
    result = verify_receipt(body, trusted=trusted, log=envelopes, allow_test=allow_test)
    if as_json:
        print_json(result.to_json())
    else:
        table = Table("check", "result", "what it found", title=f"receipt {receipt.name}")
        for check in result.checks:
            mark = (
                "[dim]skipped[/dim]"
                if check.skipped
                else ("[green]ok[/green]" if check.ok else "[red]failed[/red]")
            )
            table.add_row(check.id, mark, check.detail)
        out.print(table)
        colour = "green" if result.ok else "red"
        out.print(
            f"[{colour}]{result.status}[/{colour}]: signer {result.signer}"
            + (f" ({result.kid})" if result.kid else "")
        )
    if not result.ok:
        raise typer.Exit(1)

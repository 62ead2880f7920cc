"""Printing for people (rich) or machines (`--json`: exactly the API's JSON on stdout). Stdout
holds only what a command answers; every message about it, errors included, goes to stderr."""

import json
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from accord.sdk import LinkCode

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def clean(text: object) -> str:
    """Text another party wrote, made safe for a terminal: control and format characters
    (escape sequences, bidi overrides) are shown as escapes, not obeyed."""
    value = str(text)
    return "".join(
        ch
        if ch in "\n\t" or unicodedata.category(ch)[0] != "C"
        else ch.encode("unicode_escape").decode()
        for ch in value
    )


def grid(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, ids: int = 1) -> None:
    """A table whose first `ids` columns (ids, copied by people) are never cut."""
    table = Table()
    for index, column in enumerate(columns):
        table.add_column(column, no_wrap=index < ids)
    for row in rows:
        table.add_row(*(clean("—" if value is None else value) for value in row))
    out.print(table, markup=False)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


def print_json(value: Any) -> None:
    sys.stdout.write(dumps(value))


def write_receipt(path: Path, receipt: Any, log: Any) -> Path:
    """Write a receipt to `path` and its log beside it as `<name>.log.json`, for `accord
    verify` offline; returns the log's path. An OSError says which file could not be written."""
    log_path = path.with_name(path.stem + ".log.json")
    path.write_text(dumps(receipt))
    log_path.write_text(dumps(log))
    return log_path


def print_link(made: "LinkCode", *, telegram_note: str, as_json: bool) -> None:
    """A one-time link code: its JSON, or its URLs for a person and how to use them."""
    if as_json:
        print_json(made.to_json())
        return
    out.print(made.web_url, soft_wrap=True, markup=False)
    if made.telegram_url:
        err.print(telegram_note)
        out.print(made.telegram_url, soft_wrap=True, markup=False)
    err.print(f"Open it once, before {made.expires_at:%Y-%m-%d %H:%M} UTC; keep it to yourself.")

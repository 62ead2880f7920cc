"""Printing for people (rich) or machines (`--json`: exactly the API's JSON on stdout);
refusals to stderr as `error: <message> (<code>)`, exit code 1."""

import json
import sys
from typing import Any, NoReturn

import typer
from rich.console import Console

from accord.core.refusals import Refusal

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def fail(refusal: Refusal, *, as_json: bool) -> NoReturn:
    if as_json:
        print_json(
            {"error": {"code": str(refusal.code), "message": refusal.message, **refusal.details}}
        )
    else:
        err.print(f"error: {refusal.message} ({refusal.code})", markup=False)
    raise typer.Exit(1)

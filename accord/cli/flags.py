"""Options that many commands share: the server to talk to, `--json`, the LLM endpoint. Kept
apart from the server's settings (`options.py`), so that a command talking to a server does
not load what serving needs."""

from typing import Annotated

import typer

from accord.cli.errors import remember_json

Server = Annotated[
    str,
    typer.Option("--server", envvar="ACCORD_SERVER", help="The Accord server to talk to."),
]
Json = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print exactly the API's JSON, nothing else (an error: its error body, on stderr).",
        callback=remember_json,
    ),
]

LlmBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--llm-base-url",
        envvar="ACCORD_LLM_BASE_URL",
        help="OpenAI-compatible chat endpoint for the LLM agent, such as http://host/v1.",
        show_default="none: agents decide by rules",
    ),
]
LlmModel = Annotated[
    str | None,
    typer.Option("--llm-model", envvar="ACCORD_LLM_MODEL", help="The model the endpoint runs."),
]
LlmApiKey = Annotated[
    str | None,
    typer.Option(
        "--llm-api-key",
        envvar="ACCORD_LLM_API_KEY",
        help="The endpoint's API key (prefer the variable: a flag shows in the process list).",
    ),
]

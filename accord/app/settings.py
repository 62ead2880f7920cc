"""Operator settings (DESIGN.md, Configuration); adapters fill them from flags and variables."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from accord.protocols.registry import TableSettings
from accord.store.engine import sqlite_url


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("accord-data")
    database_url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str | None = None
    sweep_interval: float = 3600.0
    invite_ttl: int = 259_200
    idle_ttl: int = 604_800
    key_file: Path | None = None
    arbiter_id: str | None = None
    retention_days: int = 90
    ucp_namespace: str | None = None
    rate_limit: int = 0
    max_body_bytes: int = 262_144
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    keep_alive_timeout: int = 5

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
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f"ACCORD_{f.name.upper()}"] = str(value)
        return out

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> "Settings":
        kwargs: dict[str, object] = {}
        for f in fields(cls):
            raw = environ.get(f"ACCORD_{f.name.upper()}")
            if raw is None or raw == "":
                continue
            kwargs[f.name] = _PARSERS.get(f.name, str)(raw)
        return cls(**kwargs)  # type: ignore[arg-type]  # each value parsed to its field's type


_PARSERS: Final[Mapping[str, Callable[[str], object]]] = {
    "data_dir": Path,
    "key_file": Path,
    "port": int,
    "sweep_interval": float,
    "invite_ttl": int,
    "idle_ttl": int,
    "retention_days": int,
    "rate_limit": int,
    "max_body_bytes": int,
    "header_timeout": float,
    "body_timeout": float,
    "keep_alive_timeout": int,
}

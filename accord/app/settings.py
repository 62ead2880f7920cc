"""Operator settings (DESIGN.md, Configuration); adapters fill them from flags and variables."""

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from accord.protocols.rooms.state import RoomPolicy
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
    extra: dict[str, str] = field(default_factory=dict)

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
    def room_policy(self) -> RoomPolicy:
        return RoomPolicy(invite_ttl_seconds=self.invite_ttl, idle_ttl_seconds=self.idle_ttl)

"""What `accord serve` runs: the HTTP API with the other doors served beside it (MCP at
`/mcp`, the person's web pages, the Telegram bot when it has a token). The doors never import
each other; this is where they meet."""

from collections.abc import Callable
from datetime import datetime
from typing import Final

from fastapi import FastAPI

from accord.app.root import Accord, utc_now
from accord.app.settings import Settings
from accord.http.app import DoorFactory, create_app
from accord.mcp.door import McpDoor
from accord.telegram.door import TelegramDoor
from accord.web import adviser, merchant, principal, session, start
from accord.web import pages as web

PAGES: Final = (
    start.router,  # fixed paths (/rooms/new, /rooms/join) before /rooms/{id}
    web.router,
    session.router,
    merchant.router,
    principal.router,
    adviser.router,
)
"""The person's pages."""


def create_server(settings: Settings, *, clock: Callable[[], datetime] = utc_now) -> FastAPI:
    def mcp(accord: Callable[[], Accord]) -> McpDoor:
        return McpDoor(accord, settings)

    def telegram(accord: Callable[[], Accord]) -> TelegramDoor:
        return TelegramDoor(accord, settings)

    doors: tuple[DoorFactory, ...] = (mcp, telegram) if settings.telegram_token else (mcp,)

    return create_app(settings, clock=clock, doors=doors, pages=PAGES)


def from_environment() -> FastAPI:
    """The app for `accord serve`'s worker processes: settings come from ACCORD_* variables."""
    return create_server(Settings())

"""What `accord serve` runs: the HTTP API with the other doors served beside it (MCP at
`/mcp`, the person's web pages, the Telegram bot when it has a token). The doors never import
each other; this is where they meet."""

import gc
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
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

YOUNG_COLLECTION_THRESHOLD: Final = 10_000
"""Net new container objects before the youngest generation is collected (Python's default is
700). Sixteen moves in flight hold a few thousand young objects between them, so at 700 each
of them was traversed several times over before its request ended and freed it."""


def create_server(settings: Settings, *, clock: Callable[[], datetime] = utc_now) -> FastAPI:
    def mcp(accord: Callable[[], Accord]) -> McpDoor:
        return McpDoor(accord, settings)

    def telegram(accord: Callable[[], Accord]) -> TelegramDoor:
        return TelegramDoor(accord, settings)

    doors: tuple[DoorFactory, ...] = (mcp, telegram) if settings.telegram_token else (mcp,)

    return create_app(settings, clock=clock, doors=doors, pages=PAGES)


def from_environment() -> FastAPI:
    """The app for `accord serve`'s worker processes: settings come from ACCORD_* variables;
    the garbage collector is settled once the app has started."""
    app = create_server(Settings())
    starting = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(served: FastAPI) -> AsyncIterator[None]:
        async with starting(served):
            settle_garbage_collector()
            yield

    app.router.lifespan_context = lifespan
    return app


def settle_garbage_collector() -> None:
    """Moves what startup built (modules, schemas, caches, the search index) out of the cyclic
    collector's sight and lets young objects pile up longer before a collection: a full
    collection walked that whole heap, and settling it saved about 4% of a move's
    instructions (benchmarks/README.md). Objects that reference counting frees are freed as
    before."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])

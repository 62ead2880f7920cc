"""The ASGI application: wiring settings, the database, services and routers."""

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence, Sized
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from typing import Any, Protocol

from fastapi import APIRouter, FastAPI, Request
from fastapi_offline import FastAPIOffline
from starlette.types import ASGIApp, Receive, Scope, Send

from accord import __version__
from accord.app.root import Accord, utc_now
from accord.app.settings import Settings
from accord.http import (
    adviser,
    errors,
    intents,
    limits,
    links,
    merchants,
    openapi,
    opportunities,
    principals,
    rooms,
    sessions,
    ucp,
    webhooks,
)
from accord.http.access import AccessLog
from accord.http.auth import RateLimiter
from accord.trust.keys import Keys, keyring_path

log = logging.getLogger("accord.sweeper")


class Door(Protocol):
    """Another door served from the same app at its own path (MCP at `/mcp`): built before the
    app starts, it reaches the application through the accessor it was given, and `running`
    is entered with the app's lifespan."""

    path: str

    def running(self) -> AbstractAsyncContextManager[None]: ...

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None: ...


DoorFactory = Callable[[Callable[[], Accord]], Door]


class DoorRoutes:
    """Requests to a door's path go to the door; every other one to the API."""

    def __init__(self, app: ASGIApp, doors: Sequence[Door]) -> None:
        self._app = app
        self._doors = {door.path: door for door in doors}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            door = self._doors.get(scope["path"].rstrip("/"))
            if door is not None:
                await door(scope, receive, send)
                return
        await self._app(scope, receive, send)


def create_app(
    settings: Settings,
    *,
    clock: Callable[[], datetime] = utc_now,
    doors: Sequence[DoorFactory] = (),
    pages: Sequence[APIRouter] = (),
) -> FastAPI:
    built: list[Door] = []

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        keys = Keys(keyring_path(settings.key_file, settings.data_dir), now=clock())
        accord = Accord(settings, clock=clock, keys=keys)
        app.state.accord = accord
        app.state.rooms = accord.rooms
        app.state.merchants = accord.merchants
        app.state.sessions = accord.sessions
        app.state.principals = accord.principals
        app.state.events = accord.events
        app.state.webhooks = accord.webhooks
        app.state.links = accord.links
        accord.index.load()  # discovery is ready before the first request
        stop = threading.Event()
        sweeper = threading.Thread(
            target=_sweep_forever,
            args=(accord.sweep, settings.sweep_interval, stop),
            daemon=True,
        )
        sweeper.start()
        stop_delivery = asyncio.Event()
        delivery = asyncio.create_task(
            accord.webhook_delivery.run(stop_delivery), name="accord-webhooks"
        )
        try:
            async with contextlib.AsyncExitStack() as running:
                for door in built:
                    await running.enter_async_context(door.running())
                await running.enter_async_context(accord.events.listening())
                yield
        finally:
            stop_delivery.set()
            accord.webhook_delivery.wake()
            try:  # the round under way ends first: its store calls must not outlive the store
                await asyncio.wait_for(delivery, accord.settings.webhook_timeout + 5)
            except TimeoutError:
                log.warning("the webhook worker did not stop in time")
            stop.set()
            sweeper.join(timeout=5)
            accord.close()

    app = FastAPIOffline(  # /docs and /redoc with their scripts served from the package
        title="Accord",
        version=__version__,
        summary="An open negotiation server: agents negotiate, people decide.",
        lifespan=lifespan,
        redirect_slashes=False,  # a trailing slash is `not_found`, with the one error body
        # FastAPI's own OpenTelemetry stays off: its spans and log records hand request
        # bodies (private limits among them) to whatever provider the process has, and even
        # unconfigured it looks the providers up on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    app.state.rate_limiter = RateLimiter(settings.rate_limit)

    def application() -> Accord:
        accord: Accord = app.state.accord
        return accord

    built.extend(factory(application) for factory in doors)
    if built:
        app.add_middleware(DoorRoutes, doors=built)  # inside the limits and the access log
    errors.install(app)
    limits.install(app, settings)
    app.add_middleware(AccessLog)  # outside the limits, so that their refusals are logged too

    @app.get("/healthz", tags=["server"], summary="Liveness")
    async def healthz() -> dict[str, Any]:  # on the event loop: it needs no free worker thread
        return {"status": "ok", "version": __version__}

    @app.get("/.well-known/jwks.json", tags=["trust"], summary="The receipt signing keys")
    def jwks(request: Request) -> dict[str, Any]:
        accord: Accord = request.app.state.accord
        return accord.keys.jwks()

    routers = [
        *(rooms.router, merchants.router, sessions.router, principals.router, intents.router),
        *(opportunities.router, adviser.router, webhooks.router, links.router),
        ucp.create_router(settings),
        *pages,  # the person's door: its pages call the same services
    ]
    for router in routers:
        # One flat table, matched once per request: `include_router` would keep each router
        # as a node of its own, matched twice over on every request to it.
        app.router.routes.extend(router.routes)

    def document() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi.document(
                title=app.title, version=app.version, summary=app.summary, routes=app.routes
            )
        return app.openapi_schema

    app.openapi = document  # type: ignore[method-assign]  # FastAPI's documented override
    return app


def _sweep_forever(sweep: Callable[[], Sized], interval: float, stop: threading.Event) -> None:
    """The sweeper inside `accord serve`: one sweep at start, then one every interval."""
    while not stop.is_set():
        try:
            if ended := sweep():
                log.info("ended %d negotiations or introductions", len(ended))
        except Exception:  # the sweeper must outlive a bad sweep; the next one retries
            log.exception("sweep failed")
        stop.wait(interval)

"""The ASGI application: wiring settings, the database, services and routers."""

import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from fastapi import FastAPI, Request

from accord import __version__
from accord.app.events import Events
from accord.app.merchants import Merchants
from accord.app.rooms import Rooms
from accord.app.sessions import Sessions
from accord.app.settings import Settings
from accord.http import errors, merchants, rooms, sessions, ucp
from accord.http.auth import RateLimiter
from accord.store.database import Database
from accord.trust.keys import Keys, keyring_path

log = logging.getLogger("accord.sweeper")


def utc_now() -> datetime:
    return datetime.now(UTC)


def create_app(settings: Settings, *, clock: Callable[[], datetime] = utc_now) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database(settings.database)
        keys = Keys(keyring_path(settings.key_file, settings.data_dir), now=clock())
        events = Events(db)
        app.state.events = events
        service = Rooms(db, settings, clock=clock, keys=keys, notifier=events.notifier)
        app.state.rooms = service
        app.state.merchants = Merchants(db, settings, clock=clock)
        app.state.sessions = Sessions(
            db,
            settings,
            clock=clock,
            merchants=app.state.merchants,
            keys=keys,
            notifier=events.notifier,
        )
        stop = threading.Event()
        sweeper = threading.Thread(
            target=_sweep_forever,
            args=((service.sweep, app.state.sessions.sweep), settings.sweep_interval, stop),
            daemon=True,
        )
        sweeper.start()
        try:
            async with events.listening():
                yield
        finally:
            stop.set()
            sweeper.join(timeout=5)
            db.close()

    app = FastAPI(
        title="Accord",
        version=__version__,
        summary="An open negotiation server: agents negotiate, people decide.",
        lifespan=lifespan,
    )
    app.state.rate_limiter = RateLimiter(settings.rate_limit)
    errors.install(app)
    app.include_router(rooms.router)
    app.include_router(merchants.router)
    app.include_router(sessions.router)
    app.include_router(ucp.create_router(settings))

    @app.get("/.well-known/jwks.json", tags=["trust"], summary="The receipt signing keys")
    def jwks(request: Request) -> dict[str, Any]:
        rooms: Rooms = request.app.state.rooms
        return rooms.jwks()

    @app.get("/healthz", tags=["server"], summary="Liveness")
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "version": __version__}

    return app


def _sweep_forever(
    sweeps: Sequence[Callable[[], list[str]]], interval: float, stop: threading.Event
) -> None:
    """The sweeper inside `accord serve`: one sweep at start, then one every interval."""
    while not stop.is_set():
        for sweep in sweeps:
            try:
                if ended := sweep():
                    log.info("ended %d negotiations", len(ended))
            except Exception:  # the sweeper must outlive a bad sweep; the next one retries
                log.exception("sweep failed")
        stop.wait(interval)


def from_environment() -> FastAPI:
    """The app for `accord serve`'s worker processes: settings come from ACCORD_* variables."""
    return create_app(Settings.from_env(os.environ))

"""A server shared by a module's tests, for tests that never move its clock: each test still
opens rooms of its own."""

import os
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn

from accord.app.settings import Settings
from accord.http.app import create_app
from tests.conftest import FakeClock, LiveServer, _postgres_schema_url, free_port


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data_dir = tmp_path_factory.mktemp("shared") / "data"
    base = os.environ.get("ACCORD_TEST_DATABASE_URL")
    urls = _postgres_schema_url(base) if base else iter([f"sqlite:///{data_dir / 'accord.db'}"])
    database_url = next(urls)
    port = free_port()
    settings = Settings(
        data_dir=data_dir, database_url=database_url, port=port, sweep_interval=3600
    )
    clock = FakeClock()
    config = uvicorn.Config(
        create_app(settings, clock=clock),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
    )
    uv = uvicorn.Server(config)
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the shared test server did not start")
        time.sleep(0.01)
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", clock, settings)
    finally:
        uv.should_exit = True
        thread.join(timeout=10)
        for _ in urls:  # drops the PostgreSQL schema
            pass


@pytest.fixture(scope="module")
def client(shared_server: LiveServer) -> Iterator[httpx.Client]:
    """One client for a module's tests (making a client costs an SSL context)."""
    with shared_server.client() as client:
        yield client

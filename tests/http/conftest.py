"""A server shared by a module's tests, for tests that never move its clock: each test still
opens rooms of its own."""

import os
from collections.abc import Iterator

import httpx
import pytest

from accord.app.settings import Settings
from tests.conftest import FakeClock, LiveServer, _postgres_schema_url, serve_in_thread


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data_dir = tmp_path_factory.mktemp("shared") / "data"
    base = os.environ.get("ACCORD_TEST_DATABASE_URL")
    urls = _postgres_schema_url(base) if base else iter([f"sqlite:///{data_dir / 'accord.db'}"])
    database_url = next(urls)
    settings = Settings(data_dir=data_dir, database_url=database_url, sweep_interval=3600)
    try:
        with serve_in_thread(settings, FakeClock()) as live:
            yield live
    finally:
        for _ in urls:  # drops the PostgreSQL schema
            pass


@pytest.fixture(scope="module")
def client(shared_server: LiveServer) -> Iterator[httpx.Client]:
    """One client for a module's tests (making a client costs an SSL context)."""
    with shared_server.client() as client:
        yield client

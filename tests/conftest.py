"""Shared fixtures: a fixed clock, a store over SQLite or PostgreSQL, the rooms service, and a
real server on 127.0.0.1.

The store runs on SQLite unless ACCORD_TEST_DATABASE_URL names a PostgreSQL database; then
every test gets a schema of its own, so that runs never meet. A named database that cannot be
reached fails the tests, it never skips them.
"""

import contextlib
import json
import os
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import uvicorn
from hypothesis import settings as hypothesis_settings
from sqlalchemy import create_engine, text

from accord.app.rooms import Rooms
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.http.connections import with_header_timeout
from accord.serve import create_server
from accord.store.database import Database

# Time is measured in benchmarks/, never asserted in tests: a shared machine's pauses must not
# fail an example (hypothesis' default 200 ms deadline does under load).
hypothesis_settings.register_profile("accord", deadline=None, print_blob=True)
hypothesis_settings.load_profile("accord")

START = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


@dataclass
class FakeClock:
    """Time that moves only when a test says so."""

    now: datetime = START
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self) -> datetime:
        with self._lock:
            return self.now

    def advance(self, **delta: float) -> None:
        with self._lock:
            self.now += timedelta(**delta)


@pytest.fixture(autouse=True)
def _no_operator_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings read ACCORD_* variables: a shell's own must not change what a test sees."""
    for name in os.environ:
        if name.startswith("ACCORD_") and not name.startswith("ACCORD_TEST_"):
            monkeypatch.delenv(name)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def _postgres_schema_url(base: str) -> Iterator[str]:
    schema = f"accord_test_{secrets.token_hex(6)}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    separator = "&" if "?" in base else "?"
    try:
        yield f"{base}{separator}options={quote(f'-csearch_path={schema}')}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    base = os.environ.get("ACCORD_TEST_DATABASE_URL")
    if base:
        yield from _postgres_schema_url(base)
    else:
        yield f"sqlite:///{tmp_path / 'data' / 'accord.db'}"


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=database_url)


@pytest.fixture
def db(settings: Settings) -> Iterator[Database]:
    database = Database(settings.database)
    yield database
    database.close()


@pytest.fixture
def accord(db: Database, settings: Settings, clock: FakeClock) -> Accord:
    """Every service, on the test's store and clock."""
    return Accord(settings, clock=clock, db=db)


@pytest.fixture
def rooms(accord: Accord) -> Rooms:
    return accord.rooms


def swept(accord: Accord) -> list[str]:
    """The ids one sweep ended, in the order it ended them."""
    return [ended.id for ended in accord.negotiations.sweep()]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    url: str
    clock: FakeClock
    settings: Settings

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)


@contextlib.contextmanager
def serve_in_thread(settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    """A real uvicorn server on 127.0.0.1 in a thread, with the given clock, on a port of its
    own: the socket is bound here and handed to uvicorn, so that no other process can take the
    port between choosing it and listening on it (`settings.port` is replaced)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        settings = settings.model_copy(update={"port": sock.getsockname()[1]})
        config = uvicorn.Config(
            create_server(settings, clock=clock),
            log_level="warning",
            lifespan="on",
            http=with_header_timeout(settings.header_timeout),  # as `accord serve` runs it
            timeout_keep_alive=settings.keep_alive_timeout,
        )
        uv = uvicorn.Server(config)
        thread = threading.Thread(target=uv.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + 20
            while not uv.started:
                if not thread.is_alive() or time.monotonic() > deadline:
                    raise RuntimeError("the test server did not start")
                time.sleep(0.01)
            yield LiveServer(f"http://127.0.0.1:{settings.port}", clock, settings)
        finally:
            uv.should_exit = True
            thread.join(timeout=10)


@pytest.fixture
def server(settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    """A real uvicorn server on 127.0.0.1, in a thread, with the test's clock."""
    live_settings = settings.model_copy(update=dict(sweep_interval=3600))
    with serve_in_thread(live_settings, clock) as live:
        yield live


class LlmStub:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 for the LLM agent's tests (never a real
    model): what it answers next, as a tool call, and every request it was sent."""

    def __init__(self) -> None:
        self.reply: dict[str, Any] = {}
        self.requests: list[dict[str, Any]] = []


@pytest.fixture(scope="session")
def llm_stub() -> Iterator[tuple[LlmStub, str]]:
    state = LlmStub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, "auth": self.headers.get("Authorization"),
                                   "body": body})  # fmt: skip
            call = {"name": state.reply["name"], "arguments": json.dumps(state.reply["arguments"])}
            answer = json.dumps(
                {"choices": [{"message": {"role": "assistant", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": call}]}}]}
            ).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()

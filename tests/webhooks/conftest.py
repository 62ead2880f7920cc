"""A webhook receiver on 127.0.0.1 that answers as a test tells it, and an Accord server that
may call it (private addresses allowed), on a clock that starts now so that signatures are
checked against their own time."""

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import standardwebhooks.webhooks

from accord.app.settings import Settings
from tests.conftest import FakeClock, LiveServer, serve_in_thread

Plan = Callable[[str, int], int]
"""The status the receiver answers the `n`-th request (from 1) to one path carrying one
webhook-id."""


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    answered: int


@dataclass
class Receiver:
    url: str
    plan: Plan = lambda _id, _n: 204
    requests: list[Received] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, path: str, headers: dict[str, str], body: bytes) -> int:
        with self._lock:
            webhook_id = headers.get("webhook-id", "")
            n = 1 + sum(
                1
                for r in self.requests
                if r.path == path and r.headers.get("webhook-id") == webhook_id
            )
            status = self.plan(webhook_id, n)
            self.requests.append(Received(path, headers, body, status))
            return status

    def at(self, path: str) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def succeeded(self, path: str) -> list[Received]:
        return [r for r in self.at(path) if 200 <= r.answered < 300]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            headers = {name.lower(): value for name, value in self.headers.items()}
            status = state.take(self.path, headers, body)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def now_clock() -> FakeClock:
    return FakeClock(now=datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
def hooked(settings: Settings, now_clock: FakeClock) -> Iterator[LiveServer]:
    """A real server whose delivery worker may call 127.0.0.1."""
    live = settings.model_copy(update=dict(sweep_interval=3600, webhook_allow_private=True))
    with serve_in_thread(live, now_clock) as server:
        yield server


@contextlib.contextmanager
def library_clock(received: Received) -> Iterator[None]:
    """The `standardwebhooks` library checks a timestamp against its own `datetime.now()`; the
    server's clock is a test's, so the library is set to the moment the request arrived."""
    arrived = float(received.headers["webhook-timestamp"])

    class Pinned(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> "Pinned":
            return cls.fromtimestamp(arrived, tz)

    library: Any = standardwebhooks.webhooks
    original = library.datetime
    library.datetime = Pinned
    try:
        yield
    finally:
        library.datetime = original


def eventually(check: Callable[[], bool], *, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not hold in time")
        time.sleep(0.05)

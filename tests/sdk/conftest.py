"""The SDK against a real server on 127.0.0.1 (the root `server` fixture, and the `shop`
fixture's merchant and policy), and against scripted transports for what a server rarely
does on purpose: fail, time out, answer garbage."""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from accord.sdk import Accord
from tests.conftest import LiveServer
from tests.sessions.conftest import POLICY, Shop, shop  # noqa: F401  (the `shop` fixture)

SCHEMA: dict[str, Any] = {"price": {"type": "money", "currency": "EUR"}, "day": {"type": "date"}}
SKU = POLICY["sku"]


def terms(amount: int, day: str = "2026-12-10") -> dict[str, Any]:
    return {"price": {"amount_minor": amount, "currency": "EUR"}, "day": day}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def accord(server: LiveServer) -> Iterator[Accord]:
    with Accord(server.url) as client:
        yield client


Outcome = httpx.Response | Exception


@dataclass
class Script:
    """A transport that answers each request with the next outcome in turn (the last one
    again once they run out), and remembers every request it saw."""

    outcomes: Sequence[Outcome]
    requests: list[httpx.Request] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        outcome = self.outcomes[min(len(self.requests), len(self.outcomes)) - 1]
        if isinstance(outcome, Exception):
            raise outcome
        # A fresh response each time: httpx binds a response to the client that received it.
        return httpx.Response(outcome.status_code, headers=outcome.headers, content=outcome.content)

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


@dataclass
class Waits:
    """The waits between retries, recorded instead of slept; jitter returns its cap."""

    seconds: list[float] = field(default_factory=list)

    def sleep(self, seconds: float) -> None:
        self.seconds.append(seconds)

    async def asleep(self, seconds: float) -> None:
        self.seconds.append(seconds)

    @staticmethod
    def cap(cap: float) -> float:
        return cap


Jitter = Callable[[float], float]

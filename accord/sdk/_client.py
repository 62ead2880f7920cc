"""`Accord` over `httpx.Client` and `AsyncAccord` over `httpx.AsyncClient`: the one place each
sends a request, with the retries `BaseClient` decides."""

import time
from collections.abc import Awaitable, Callable, Mapping
from types import TracebackType
from typing import Any, Self

import anyio
import httpx
from pydantic import BaseModel

from accord.sdk._base import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    BaseClient,
    Call,
    json_of,
)
from accord.sdk._intro import AsyncPrincipal, Principal
from accord.sdk._operations import Operation, ResultT
from accord.sdk._receipts import AsyncReceipts, Receipts
from accord.sdk._rooms import AsyncRooms, Rooms
from accord.sdk._sessions import AsyncMerchant, AsyncSessions, Merchant, Sessions
from accord.sdk._webhooks import AsyncWebhooks, Webhooks


class Accord(BaseClient):
    """Accord's API from synchronous code.

    ```python
    with Accord("http://127.0.0.1:8000") as accord:
        opened = accord.rooms.open({"price": {"type": "money", "currency": "EUR"}})
    ```
    """

    def __init__(
        self,
        base_url: str | httpx.URL,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] | None = None,
        jitter: Callable[[float], float] | None = None,
    ) -> None:
        """`transport` replaces the network (`httpx.MockTransport` in tests); `sleep` and
        `jitter` replace the wait between retries and its random draw (given the cap, they
        return the seconds to wait)."""
        super().__init__(base_url, timeout=timeout, max_retries=max_retries, jitter=jitter)
        self._http = httpx.Client(transport=transport, timeout=self.timeout)
        self._sleep = sleep or time.sleep
        self.rooms = Rooms(self)
        self.sessions = Sessions(self)
        self.receipts = Receipts(self)

    def merchant(self, secret_key: str) -> Merchant:
        """A merchant's own surface, with its secret key: policies, sessions, receipts."""
        return Merchant(self, secret_key)

    def principal(self, key: str) -> Principal:
        """A principal's intro negotiations, with its owner key or one of its agent keys."""
        return Principal(self, key)

    def webhooks(self, credential: str) -> Webhooks:
        """The webhook endpoints of `credential`'s own events."""
        return Webhooks(self, credential)

    def _call(
        self,
        operation: Operation[ResultT],
        *,
        token: str | None = None,
        path: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | BaseModel | None = None,
        params: Mapping[str, str | int] | None = None,
    ) -> ResultT:
        call = self._build(operation, token=token, path=path, body=body, params=params)
        return self._read(call, self._send(call))

    def _send(self, call: Call[Any], *, stream: bool = False) -> httpx.Response:
        """A success, after as many tries as the call allows; its body unread when streaming."""
        attempt = 0
        cause: httpx.TransportError | None
        while True:
            self._opening()
            try:
                response = self._http.send(call.request, stream=stream)
            except httpx.TransportError as exc:
                error, cause = self._transport_error(exc), exc
            else:
                if response.is_success:
                    return response
                response.read()
                response.close()
                error, cause = self._refusal(response, json_of(response)), None
            delay = self._retry_delay(call, attempt, error, cause)
            if delay is None:
                raise error from cause
            self._sleep(delay)
            attempt += 1

    def close(self) -> None:
        self._state_closed()
        self._http.close()

    def __enter__(self) -> Self:
        self._entering()
        self._http.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        self._state_closed()
        self._http.__exit__(exc_type, exc_value, traceback)


class AsyncAccord(BaseClient):
    """Accord's API from asyncio (or trio, through anyio).

    ```python
    async with AsyncAccord("http://127.0.0.1:8000") as accord:
        opened = await accord.rooms.open({"price": {"type": "money", "currency": "EUR"}})
    ```
    """

    def __init__(
        self,
        base_url: str | httpx.URL,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        jitter: Callable[[float], float] | None = None,
    ) -> None:
        """As `Accord`'s; `sleep` is awaited."""
        super().__init__(base_url, timeout=timeout, max_retries=max_retries, jitter=jitter)
        self._http = httpx.AsyncClient(transport=transport, timeout=self.timeout)
        self._sleep = sleep or anyio.sleep
        self.rooms = AsyncRooms(self)
        self.sessions = AsyncSessions(self)
        self.receipts = AsyncReceipts(self)

    def merchant(self, secret_key: str) -> AsyncMerchant:
        return AsyncMerchant(self, secret_key)

    def principal(self, key: str) -> AsyncPrincipal:
        return AsyncPrincipal(self, key)

    def webhooks(self, credential: str) -> AsyncWebhooks:
        return AsyncWebhooks(self, credential)

    async def _call(
        self,
        operation: Operation[ResultT],
        *,
        token: str | None = None,
        path: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | BaseModel | None = None,
        params: Mapping[str, str | int] | None = None,
    ) -> ResultT:
        call = self._build(operation, token=token, path=path, body=body, params=params)
        return self._read(call, await self._send(call))

    async def _send(self, call: Call[Any], *, stream: bool = False) -> httpx.Response:
        attempt = 0
        cause: httpx.TransportError | None
        while True:
            self._opening()
            try:
                response = await self._http.send(call.request, stream=stream)
            except httpx.TransportError as exc:
                error, cause = self._transport_error(exc), exc
            else:
                if response.is_success:
                    return response
                await response.aread()
                await response.aclose()
                error, cause = self._refusal(response, json_of(response)), None
            delay = self._retry_delay(call, attempt, error, cause)
            if delay is None:
                raise error from cause
            await self._sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        self._state_closed()
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        self._entering()
        await self._http.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        self._state_closed()
        await self._http.__aexit__(exc_type, exc_value, traceback)

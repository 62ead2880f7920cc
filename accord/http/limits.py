"""Request bodies have a size and a time limit, enforced as they arrive.

A body whose Content-Length is above `max_bytes` is refused (413 `payload_too_large`) before
the request reaches any route and before a byte of it is read; a body without a length
(chunked) is counted as it streams, and refused as soon as it passes the limit. Once a route
starts reading a body, all of it must arrive within `timeout_seconds`, or the request is
refused (408 `request_timeout`). Both refusals close the connection, since the rest of the body
may still be on its way.
"""

import asyncio
from typing import Final

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from accord.app.settings import Settings
from accord.core.refusals import RefusalCode
from accord.http.errors import error_response

CLOSE: Final = {"Connection": "close"}


def install(app: FastAPI, settings: Settings) -> None:
    app.add_middleware(
        BodyLimits, max_bytes=settings.max_body_bytes, timeout_seconds=settings.body_timeout
    )
    app.add_exception_handler(BodyRefused, _answer)


class BodyRefused(HTTPException):
    """Raised while a body is read: an HTTPException, because whoever reads a body (FastAPI
    too) lets those through, carrying the one error body to answer with."""

    def __init__(self, response: JSONResponse) -> None:
        super().__init__(response.status_code, headers=CLOSE)
        self.response = response


async def _answer(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, BodyRefused)
    return exc.response


class BodyLimits:
    def __init__(self, app: ASGIApp, *, max_bytes: int, timeout_seconds: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_seconds = timeout_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = Headers(scope=scope).get("content-length", "")
        if length.isdigit() and int(length) > self.max_bytes:
            await too_large(self.max_bytes)(scope, receive, send)
            return
        await self.app(scope, self._limited(receive), send)

    def _limited(self, receive: Receive) -> Receive:
        received = 0
        deadline: float | None = None
        complete = False

        async def limited_receive() -> Message:
            nonlocal received, deadline, complete
            if complete:  # the body is in; what follows is the wait for a disconnect
                return await receive()
            if deadline is None:
                deadline = asyncio.get_running_loop().time() + self.timeout_seconds
            try:
                async with asyncio.timeout_at(deadline):  # the server runs on asyncio
                    message = await receive()
            except TimeoutError:
                raise BodyRefused(timed_out(self.timeout_seconds)) from None
            if message["type"] != "http.request":
                complete = True
                return message
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                raise BodyRefused(too_large(self.max_bytes))
            complete = not message.get("more_body", False)
            return message

        return limited_receive


def too_large(max_bytes: int) -> JSONResponse:
    return error_response(
        RefusalCode.PAYLOAD_TOO_LARGE,
        f"The request body is larger than this server takes ({max_bytes} bytes); send less.",
        headers=CLOSE,
        max_bytes=max_bytes,
    )


def timed_out(timeout_seconds: float) -> JSONResponse:
    return error_response(
        RefusalCode.REQUEST_TIMEOUT,
        f"The request body did not arrive within {timeout_seconds:g} seconds; send it again.",
        headers=CLOSE,
    )

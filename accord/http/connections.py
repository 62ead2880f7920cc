"""Connections that hold the server without asking anything of it are closed.

uvicorn closes an idle connection between requests (`timeout_keep_alive`), but has no timeout
for the request headers: a client that connects and sends nothing, or trickles its headers a
byte at a time, keeps the connection for as long as it likes. `HeaderDeadline` is uvicorn's own
HTTP protocol with that timeout added: from the moment a connection opens, and again from the
end of each response, the next request's headers must all arrive within `header_timeout`
seconds, or the connection is closed; so is a connection whose headers pass
`MAX_HEADER_BYTES` (uvicorn's httptools parser keeps any amount). Request bodies have their
own size and time limits, in `accord.http.limits`.
"""

import asyncio
from typing import Any, ClassVar, Final

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from accord.app.settings import Settings

MAX_HEADER_BYTES: Final = 65_536


class HeaderDeadline(AutoHTTPProtocol):  # type: ignore[misc,valid-type]  # uvicorn picks httptools or h11
    header_timeout: ClassVar[float] = Settings.model_fields["header_timeout"].default

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._waiting_since: object = None
        self._header_bytes = 0

    def data_received(self, data: bytes) -> None:
        waiting = self._header_timer is not None and self.cycle is self._waiting_since
        super().data_received(data)
        if waiting and self.cycle is self._waiting_since:  # still no complete request head
            self._header_bytes += len(data)
            if self._header_bytes > MAX_HEADER_BYTES and not self.transport.is_closing():
                self.transport.close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self._await_headers()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        self._cancel_header_timer()
        self._waiting_since, self._header_bytes = self.cycle, 0
        self._header_timer = self.loop.call_later(self.header_timeout, self._expire)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _expire(self) -> None:
        """No request has begun since the timer was set (a request that begins replaces the
        cycle), and the connection is still this protocol's (not upgraded): close it."""
        self._header_timer = None
        transport = self.transport
        if (
            self.cycle is self._waiting_since
            and transport.get_protocol() is self
            and not transport.is_closing()
        ):
            transport.close()


def with_header_timeout(seconds: float) -> type[HeaderDeadline]:
    """The protocol for a server run in this process (tests), with its own timeout."""
    return type("HeaderDeadline", (HeaderDeadline,), {"header_timeout": seconds})


class ServeProtocol(HeaderDeadline):
    """The protocol `accord serve` names for uvicorn (by import path, so that worker processes
    can load it): the timeout comes from ACCORD_HEADER_TIMEOUT, which `serve` sets, as the app
    itself comes from the ACCORD_* variables."""

    header_timeout = Settings().header_timeout

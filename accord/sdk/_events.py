"""A seat's Server-Sent Events (spec/rooms-api.md, Notifications): frames read by the
EventSource rules, a stream that follows its events for as long as it is read and reconnects
after the last event it saw (`Last-Event-ID`), and a wait for the next event with a deadline.

Lines are split at CR, LF and CRLF only, as the SSE format says, and not at the other line
breaks Python knows (U+2028, form feed…), which a party's message may hold.
"""

import json
import re
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Final

import anyio
import httpx

from accord.sdk._base import Call
from accord.sdk._errors import INVALID_RESPONSE, AccordError
from accord.sdk._models import Event

if TYPE_CHECKING:
    from accord.sdk._client import Accord, AsyncAccord

_LINE_END: Final = re.compile(r"\r\n|\r|\n")
# A connection's read timeout never outlasts a wait's deadline by more than this.
SLACK_SECONDS: Final = 1.0

StreamCall = Callable[[int | None, float | None], Call[Any]]
"""Builds the stream's request: resuming after an event id, with a read timeout."""


class _Lines:
    """Text into lines, across chunk boundaries."""

    def __init__(self) -> None:
        self._rest = ""

    def feed(self, text: str) -> list[str]:
        buffered = self._rest + text
        held = "\r" if buffered.endswith("\r") else ""  # it may be the first half of CRLF
        *lines, rest = _LINE_END.split(buffered.removesuffix(held) if held else buffered)
        self._rest = rest + held
        return lines


class _Frames:
    """Lines into events; a blank line ends a frame, `:` starts a comment (a keep-alive)."""

    def __init__(self, server: str) -> None:
        self._server = server
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, line: str) -> Event | None:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        return None

    def _dispatch(self) -> Event | None:
        if not self._data:
            self._event = ""
            return None
        event, data, self._event, self._data = self._event or "message", self._data, "", []
        try:
            payload = json.loads("\n".join(data))
            if self._id is None or not self._id.isdigit() or not isinstance(payload, dict):
                raise ValueError("an Accord event has a numeric id and a JSON object")
        except ValueError as exc:
            raise AccordError(
                INVALID_RESPONSE, f"{self._server} sent an event Accord does not send: {exc}"
            ) from exc
        return Event(id=int(self._id), event=event, data=payload)


def _checked_stream(server: str, response: httpx.Response) -> None:
    kind = response.headers.get("content-type", "").partition(";")[0].strip()
    if kind != "text/event-stream":
        raise AccordError(
            INVALID_RESPONSE,
            f"{server} answered the event stream with {kind or 'no content type'}",
            status=response.status_code,
        )


def _items(server: str, response: httpx.Response) -> Iterator[Event | None]:
    """An event per frame, None per other line (so a caller can look at the clock)."""
    _checked_stream(server, response)
    lines, frames = _Lines(), _Frames(server)
    for text in response.iter_text():
        for line in lines.feed(text):
            yield frames.feed(line)


async def _aitems(server: str, response: httpx.Response) -> AsyncGenerator[Event, None]:
    _checked_stream(server, response)
    lines, frames = _Lines(), _Frames(server)
    async for text in response.aiter_text():
        for line in lines.feed(text):
            if (event := frames.feed(line)) is not None:
                yield event


# -- synchronous ----------------------------------------------------------------------------


def follow(client: "Accord", build: StreamCall, after: int | None) -> Iterator[Event]:
    """Every event after `after`, as it comes, for as long as the caller reads: a stream that
    breaks or ends is opened again after the last event seen. Connecting is retried as any
    read is; a refusal (a bad token, an unknown room) ends it with an AccordError."""
    breaks = 0
    while True:
        response = client._send(build(after, None), stream=True)
        try:
            for item in _items(client.server, response):
                if item is not None:
                    after, breaks = item.id, 0
                    yield item
        except httpx.TransportError:
            pass  # the stream broke: open it again
        finally:
            response.close()
        client._sleep(client._backoff(breaks))
        breaks += 1


def next_event(
    client: "Accord", build: StreamCall, after: int | None, timeout: float
) -> Event | None:
    """The first event after `after`, or None when none comes within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    breaks = 0
    while (remaining := deadline - time.monotonic()) > 0:
        read_timeout = max(remaining, SLACK_SECONDS)
        response = client._send(build(after, read_timeout), stream=True)
        try:
            for item in _items(client.server, response):
                if item is not None:
                    return item
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                if left < read_timeout - SLACK_SECONDS:
                    breaks = 0
                    break  # a keep-alive came: wait again, no longer than the deadline
            else:
                breaks += 1  # the server ended the stream
        except httpx.ReadTimeout:
            return None
        except httpx.TransportError:
            breaks += 1  # the stream broke
        finally:
            response.close()
        if breaks:  # open it again while time remains, not at once
            client._sleep(min(client._backoff(breaks - 1), max(deadline - time.monotonic(), 0)))
    return None


# -- asynchronous ---------------------------------------------------------------------------


async def afollow(
    client: "AsyncAccord", build: StreamCall, after: int | None
) -> AsyncGenerator[Event, None]:
    """As `follow`, for an event loop."""
    breaks = 0
    while True:
        response = await client._send(build(after, None), stream=True)
        try:
            async with aclosing(_aitems(client.server, response)) as items:
                async for event in items:
                    after, breaks = event.id, 0
                    yield event
        except httpx.TransportError:
            pass
        finally:
            await response.aclose()
        await client._sleep(client._backoff(breaks))
        breaks += 1


async def anext_event(
    client: "AsyncAccord", build: StreamCall, after: int | None, timeout: float
) -> Event | None:
    """As `next_event`: the deadline cancels the wait wherever it is."""
    with anyio.move_on_after(timeout):
        async with aclosing(afollow(client, build, after)) as events:
            async for event in events:
                return event
    return None

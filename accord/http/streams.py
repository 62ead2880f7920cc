"""Server-Sent Events over `Events.follow`: one frame per event (`id` the store's global event
id, `event` its kind, `data` its JSON), resumed after `Last-Event-ID`, kept alive by
sse-starlette's pings. Everything a route refuses, it refuses before the stream starts."""

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Final

from fastapi import Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from accord.app.events import Audience, Events
from accord.app.principal_events import ADVISER
from accord.core.refusals import RefusalCode, refuse
from accord.store.events import EventRow

KEEPALIVE_SECONDS: Final = 15
MAX_EVENT_ID: Final = 2**63 - 1  # the store's ids are signed 64-bit integers
SEPARATOR: Final = "\n"
_DIGITS: Final = re.compile(r"[0-9]{1,19}")


def resume_after(last_event_id: str | None) -> int:
    """The event id a stream resumes after: 0 without Last-Event-ID; refused unless it could
    be the id of an event a stream sent."""
    if last_event_id is None:
        return 0
    if _DIGITS.fullmatch(last_event_id) is None or int(last_event_id) > MAX_EVENT_ID:
        raise refuse(
            RefusalCode.INVALID_REQUEST,
            "Last-Event-ID must be the id of an event this stream sent.",
            fields={"Last-Event-ID": "a non-negative integer below 2^63"},
        )
    return int(last_event_id)


def _events(request: Request) -> Events:
    events: Events = request.app.state.events
    return events


def by_kind(row: EventRow) -> str:
    """A frame named for what the row is (`envelope`, `notification`): the rooms' streams."""
    return row.kind


def by_type(row: EventRow) -> str:
    """A frame named for the notification's own `type` (`GET /api/events`)."""
    data = json.loads(row.data)
    kind: str = data["type"]
    return kind


def is_adviser(row: EventRow) -> bool:
    return by_type(row).startswith(ADVISER)


def not_adviser(row: EventRow) -> bool:
    return not is_adviser(row)


def event_stream(
    request: Request,
    audience: Audience,
    after: int,
    *,
    name: Callable[[EventRow], str] = by_kind,
    still_open: Callable[[], bool] | None = None,
    keep: Callable[[EventRow], bool] | None = None,
) -> EventSourceResponse:
    """The audience's events after `after` as they are committed, until the client leaves;
    each frame's `event` is `name(row)`. `still_open` (a credential that can be replaced) is
    asked before each frame: once it says no, the stream ends, and a reconnection is refused
    like any request with that credential. `keep` chooses the events this stream carries of
    those its audience may read."""
    events = _events(request)

    async def frames() -> AsyncIterator[ServerSentEvent]:
        yield ServerSentEvent(comment="accord event stream", sep=SEPARATOR)
        async for row in events.follow(audience, after):
            if still_open is not None and not await asyncio.to_thread(still_open):
                return
            if keep is not None and not keep(row):
                continue
            yield ServerSentEvent(row.data, event=name(row), id=str(row.id), sep=SEPARATOR)

    return EventSourceResponse(
        frames(),
        headers={"Cache-Control": "no-store"},
        ping=KEEPALIVE_SECONDS,
        sep=SEPARATOR,
    )

"""Pages that follow what they show (interfaces.md, Web pages, `GET {page}/events`): an
`event: changed` for each new event of the viewer's own audience (A7) that concerns the page;
the page then fetches its live region again. Nothing of an event's content is sent."""

import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

from sse_starlette import EventSourceResponse, ServerSentEvent

from accord.app.events import Audience, Events
from accord.store.events import EventRow

PING_SECONDS: Final = 15


def changes(
    events: Events,
    audience: Audience,
    after: int,
    concerns: Callable[[EventRow], bool] = lambda _row: True,
) -> EventSourceResponse:
    async def frames() -> AsyncIterator[ServerSentEvent]:
        async for row in events.follow(audience, after):
            if concerns(row):
                yield ServerSentEvent(row.kind, event="changed", id=str(row.id))

    return EventSourceResponse(frames(), headers={"Cache-Control": "no-store"}, ping=PING_SECONDS)


def about(key: str, value: str) -> Callable[[EventRow], bool]:
    """An event whose data names `value` as its `key` (a case's events, by `case_id`)."""

    def concerns(row: EventRow) -> bool:
        data: Any = json.loads(row.data)
        return isinstance(data, dict) and data.get(key) == value

    return concerns

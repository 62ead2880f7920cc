"""`subscriptions/listen` (MCP 2026-07-28; interfaces.md, Resources): a stream that says
`notifications/resources/updated` when the bearer's own audience (A7) has an event for a
resource the client listens to.

Each URI is checked against the bearer before the stream opens, as reading it would be: one
the bearer may not read refuses the whole request, with a message naming no URI (so a refusal
tells nothing of what exists). The events come from the same audience the bearer's `*_wait`
tools read, at agent level; none is replayed (a client listens again and reads again)."""

import asyncio
import json
import re
from collections.abc import Iterable
from typing import Any, Final

from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import (
    SUBSCRIPTION_ID_META_KEY,
    ResourceUpdated,
    event_to_notification,
)
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    SubscriptionFilter,
    SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
)

from accord.app.events import Level, own_audience
from accord.app.identity import Caller, PrincipalCaller, SeatCaller, SessionCaller
from accord.app.principals import Action
from accord.app.root import Accord
from accord.core.refusals import Refused
from accord.mcp.context import Door
from accord.store.events import ENVELOPE, EventRow

STATIC: Final = frozenset({"accord://about", "accord://jwks"})
"""Honoured and never updated."""
URI: Final = re.compile(
    r"accord://(?P<kind>rooms|sessions|opportunities|adviser/cases)/(?P<id>[A-Za-z0-9_-]{1,64})"
    r"(?P<part>/log|/receipt)?"
)
UNREADABLE: Final = "A subscription names a resource this credential cannot read."


def updated(row: EventRow, caller: Caller) -> set[str]:
    """The resources an event of the bearer's audience may have changed."""
    negotiation = row.negotiation_id
    match caller:
        case SeatCaller() if negotiation is not None:
            room = f"accord://rooms/{negotiation}"
            return {room, f"{room}/log", f"{room}/receipt"} if row.kind == ENVELOPE else {room}
        case SessionCaller() if negotiation is not None:
            return {f"accord://sessions/{negotiation}", f"accord://sessions/{negotiation}/receipt"}
        case PrincipalCaller():
            data = json.loads(row.data)
            uris = set()
            if isinstance(data.get("opportunity_id"), str):
                uris.add(f"accord://opportunities/{data['opportunity_id']}")
            if isinstance(data.get("case_id"), str):
                uris.add(f"accord://adviser/cases/{data['case_id']}")
            return uris
    return set()


def check_readable(accord: Accord, token: str | None, caller: Caller | None, uri: str) -> None:
    """Refused (`Refused` or `LookupError`) unless the bearer may read `uri`."""
    if uri in STATIC:
        return
    found = URI.fullmatch(uri)
    if found is None or token is None or caller is None:
        raise LookupError(uri)
    kind, item, part = found.group("kind"), found.group("id"), found.group("part")
    match kind:
        case "rooms":
            accord.rooms.follow(token, item)
        case "sessions" if part != "/log":
            accord.sessions.check_access(token, item, buyer_only=True)
        case "opportunities" if part is None and isinstance(caller, PrincipalCaller):
            accord.opportunities.find(caller, item, Action.READ)
        case "adviser/cases" if part is None and isinstance(caller, PrincipalCaller):
            accord.adviser.get(caller, item)
        case _:
            raise LookupError(uri)


class Listen:
    """The `subscriptions/listen` handler of one tool set's server."""

    def __init__(self, door: Door) -> None:
        self._door = door

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        subscription_id = ctx.request_id
        if subscription_id is None:
            raise MCPError(INVALID_REQUEST, "subscriptions/listen requires a request id")
        accord = self._door.accord()
        token = self._door.bearer_of(ctx.request)
        uris = frozenset(params.notifications.resource_subscriptions or ())
        caller = await asyncio.to_thread(self._checked, accord, token, uris)
        meta: dict[str, Any] = {SUBSCRIPTION_ID_META_KEY: subscription_id}
        honored = SubscriptionFilter(resource_subscriptions=sorted(uris) or None)
        follows = (
            own_audience(caller, Level.AGENT) if caller is not None and uris - STATIC else None
        )
        after = await asyncio.to_thread(accord.events.last_id)
        ack = SubscriptionsAcknowledgedNotificationParams(notifications=honored, _meta=meta)
        await ctx.session.send_notification(
            SubscriptionsAcknowledgedNotification(params=ack), related_request_id=subscription_id
        )
        if caller is not None and follows is not None:
            async for row in accord.events.follow(follows, after):
                for uri in sorted(updated(row, caller) & uris):
                    await ctx.session.send_notification(
                        event_to_notification(ResourceUpdated(uri), meta),
                        related_request_id=subscription_id,
                    )
        else:  # nothing it listens to ever changes: the stream stays open, quiet
            await asyncio.Event().wait()
        return SubscriptionsListenResult(_meta=meta)

    def _checked(self, accord: Accord, token: str | None, uris: Iterable[str]) -> Caller | None:
        try:
            caller = accord.doors.agent(token)
            for uri in uris:
                check_readable(accord, token, caller, uri)
        except (Refused, LookupError):
            raise MCPError(INVALID_PARAMS, UNREADABLE) from None
        return caller

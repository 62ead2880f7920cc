"""A principal's own surface over HTTP (spec/intro-api.md, Endpoints and Events): who am I,
which agent negotiates, and the principal's event stream. The key is checked before the body
is looked at."""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette import EventSourceResponse

from accord.app.events import PrincipalAudience
from accord.app.identity import PrincipalCaller
from accord.app.principals import AGENT_ID, Action, Principals
from accord.core.refusals import Refused
from accord.http import streams
from accord.http.auth import ApiKey
from accord.http.strict import StrictRoute
from accord.store.events import EventRow

router = APIRouter(route_class=StrictRoute, tags=["principals"])


def _principals(request: Request) -> Principals:
    principals: Principals = request.app.state.principals
    return principals


def reader(request: Request, key: ApiKey) -> PrincipalCaller:
    return _principals(request).authorize(key, Action.READ)


def owner(request: Request, key: ApiKey) -> PrincipalCaller:
    return _principals(request).authorize(key, Action.WRITE)


Reader = Annotated[PrincipalCaller, Depends(reader)]
Owner = Annotated[PrincipalCaller, Depends(owner)]


class SelectAgentRequest(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    agent_id: str = Field(
        pattern=f"^{AGENT_ID.pattern}$",
        description="`accord` (the built-in agent) or the id of one of your agent keys.",
    )


@router.get("/api/me", summary="Your principal, your key's level and the selected agent")
def me(request: Request, caller: Reader) -> dict[str, Any]:
    return _principals(request).me(caller)


@router.put("/api/me/agent", summary="Select the agent that negotiates for you (owner key)")
def select_agent(body: SelectAgentRequest, request: Request, caller: Owner) -> dict[str, Any]:
    return _principals(request).select_agent(caller, body.agent_id)


@router.get(
    "/api/events",
    summary="Server-Sent Events for your principal (at your key's level)",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
)
async def principal_events(
    request: Request,
    caller: Reader,
    key: ApiKey,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> Response:
    """An owner key streams every event of its principal; an agent key all but owner-only
    ones. Frames are named for the notification's type. The key is looked up again before
    each frame, so a replaced agent key hears nothing more."""
    # the adviser's events have a stream of their own
    return principal_stream(request, caller, key, last_event_id, keep=streams.not_adviser)


def principal_stream(
    request: Request,
    caller: PrincipalCaller,
    key: str | None,
    last_event_id: str | None,
    *,
    keep: Callable[[EventRow], bool],
) -> EventSourceResponse:
    """The principal's events that `keep` chooses, named for their type; the key is looked up
    again before each frame."""
    after = streams.resume_after(last_event_id)
    principals = _principals(request)

    def still_open() -> bool:
        try:
            principals.authorize(key, Action.READ)
        except Refused:
            return False
        return True

    return streams.event_stream(
        request,
        PrincipalAudience.of(caller),
        after,
        name=streams.by_type,
        still_open=still_open,
        keep=keep,
    )

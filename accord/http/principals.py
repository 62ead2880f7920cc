"""A principal's own surface over HTTP (spec/intro-api.md, Endpoints): who am I, and which agent
negotiates. The key is checked before the body is looked at."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from accord.app.identity import PrincipalCaller
from accord.app.principals import AGENT_ID, Action, Principals
from accord.http.auth import ApiKey
from accord.http.strict import StrictRoute

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

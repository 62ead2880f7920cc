"""Intents, their chat and networks over HTTP (spec/intro-api.md, Endpoints). A route on one
intent finds it for the key before the body is read: an intent that is not the caller's is
`not_found` before its key is `forbidden`, and both before the body is looked at."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from accord.app.identity import PrincipalCaller
from accord.app.intents import Intents
from accord.app.principals import Action, Principals
from accord.http.auth import ApiKey
from accord.http.principals import Owner, Reader
from accord.http.strict import StrictRoute
from accord.protocols.intro.intents import (
    ChatInput,
    IntentInput,
    IntentPatch,
    JoinInput,
    NetworkInput,
)
from accord.protocols.intro.opportunities import DiscoverInput

router = APIRouter(route_class=StrictRoute, tags=["intents"])


def _intents(request: Request) -> Intents:
    intents: Intents = request.app.state.accord.intents
    return intents


def _found(request: Request, key: str | None, intent_id: str, action: Action) -> PrincipalCaller:
    principals: Principals = request.app.state.accord.principals
    caller = principals.authorize(key, Action.READ)
    _intents(request).find(caller, intent_id, action)
    return caller


def intent_reader(request: Request, key: ApiKey, intent_id: str) -> PrincipalCaller:
    return _found(request, key, intent_id, Action.READ)


def intent_owner(request: Request, key: ApiKey, intent_id: str) -> PrincipalCaller:
    return _found(request, key, intent_id, Action.WRITE)


IntentReader = Annotated[PrincipalCaller, Depends(intent_reader)]
IntentOwner = Annotated[PrincipalCaller, Depends(intent_owner)]


@router.post("/api/intents", status_code=201, summary="Post an intent (owner key)")
def create_intent(body: IntentInput, request: Request, caller: Owner) -> dict[str, Any]:
    return _intents(request).create(caller, body)


@router.get("/api/intents", summary="Your intents, newest first")
def list_intents(request: Request, caller: Reader) -> dict[str, Any]:
    return _intents(request).list_own(caller)


@router.get("/api/intents/{intent_id}", summary="One of your intents")
def get_intent(intent_id: str, request: Request, caller: IntentReader) -> dict[str, Any]:
    return _intents(request).get(caller, intent_id)


@router.patch("/api/intents/{intent_id}", summary="Set members of your intent (owner key)")
def patch_intent(
    intent_id: str, body: IntentPatch, request: Request, caller: IntentOwner
) -> dict[str, Any]:
    return _intents(request).patch(caller, intent_id, body)


@router.post(
    "/api/intents/{intent_id}/chat", status_code=201, summary="Write in your intent's chat"
)
def post_message(
    intent_id: str, body: ChatInput, request: Request, caller: IntentReader
) -> dict[str, Any]:
    return _intents(request).post_message(caller, intent_id, body)


@router.get("/api/intents/{intent_id}/chat", summary="Your intent's chat, oldest first")
def list_messages(
    intent_id: str,
    request: Request,
    caller: IntentReader,
    after: Annotated[str | None, Query(description="Only the messages after this one.")] = None,
) -> dict[str, Any]:
    return _intents(request).messages(caller, intent_id, after)


@router.post("/api/intents/{intent_id}/discover", summary="Candidates for your intent")
def discover(
    intent_id: str, body: DiscoverInput, request: Request, caller: IntentReader
) -> dict[str, Any]:
    return _intents(request).discover(caller, intent_id, body)


@router.post("/api/networks", status_code=201, summary="Make a network (owner key)")
def create_network(body: NetworkInput, request: Request, caller: Owner) -> dict[str, Any]:
    return _intents(request).create_network(caller, body)


@router.get("/api/networks", summary="The networks you belong to")
def list_networks(request: Request, caller: Reader) -> dict[str, Any]:
    return _intents(request).list_networks(caller)


@router.post("/api/networks/join", summary="Join a network with its invite code (owner key)")
def join_network(body: JoinInput, request: Request, caller: Owner) -> dict[str, Any]:
    return _intents(request).join_network(caller, body)

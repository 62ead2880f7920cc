"""Rooms over HTTP: exactly the surface of spec/rooms-api.md."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from sse_starlette import EventSourceResponse

from accord.app.events import SeatAudience
from accord.app.rooms import RoomAction, Rooms
from accord.http import streams
from accord.http.auth import Bearer, Public
from accord.http.strict import StrictRoute
from accord.protocols.rooms.moves import (
    ConfirmRequest,
    JoinRequest,
    ListRequest,
    MoveRequest,
    OpenRequest,
)

router = APIRouter(route_class=StrictRoute, tags=["rooms"])


def _rooms(request: Request) -> Rooms:
    rooms: Rooms = request.app.state.rooms
    return rooms


async def seat_token(room_id: str, request: Request, token: Bearer) -> str | None:
    """Checks the credential before the body is looked at (rooms-api.md, Check order:
    unauthenticated → forbidden → room_not_found → invalid_request)."""
    rooms = _rooms(request)
    if rooms.authorize_known(token, room_id) is None:
        await run_in_threadpool(rooms.authorize, token, room_id)
    return token


async def owner_token(room_id: str, request: Request, token: Bearer) -> str | None:
    """The seat's owner credential, before the body is looked at: confirmations are the
    owner's to see and answer."""
    rooms = _rooms(request)
    if rooms.authorize_known(token, room_id, RoomAction.CONFIRM) is None:
        await run_in_threadpool(rooms.authorize, token, room_id, RoomAction.CONFIRM)
    return token


SeatToken = Annotated[str | None, Depends(seat_token)]
OwnerToken = Annotated[str | None, Depends(owner_token)]


@router.post("/v1/rooms", status_code=201, summary="Open a room")
def open_room(body: OpenRequest, request: Request, _public: Public) -> dict[str, Any]:
    return _rooms(request).open(body)


@router.post("/v1/rooms/join", summary="Join a room with its invite")
def join_room(body: JoinRequest, request: Request, _public: Public) -> dict[str, Any]:
    return _rooms(request).join(body)


@router.post("/v1/rooms/list", summary="The rooms some tokens open")
def list_rooms(body: ListRequest, request: Request, _public: Public) -> dict[str, Any]:
    return _rooms(request).list_rooms(body)


@router.get("/v1/rooms/{room_id}", summary="The room as your seat sees it")
def show_room(room_id: str, request: Request, token: SeatToken) -> dict[str, Any]:
    return _rooms(request).show(token, room_id)


@router.post(
    "/v1/rooms/{room_id}/moves",
    summary="Make a move",
    responses={202: {"description": "The move waits for the owner's confirmation."}},
)
async def move(room_id: str, body: MoveRequest, request: Request, token: SeatToken) -> Response:
    answer = await _rooms(request).move_async(token, room_id, body)
    return Response(answer.body, status_code=answer.status, media_type="application/json")


@router.get("/v1/rooms/{room_id}/confirmations", summary="Moves waiting for the owner")
def list_confirmations(room_id: str, request: Request, token: OwnerToken) -> dict[str, Any]:
    return _rooms(request).pending(token, room_id)


@router.post(
    "/v1/rooms/{room_id}/confirmations/{confirmation_id}", summary="Confirm or decline a move"
)
def decide_confirmation(
    room_id: str, confirmation_id: str, body: ConfirmRequest, request: Request, token: OwnerToken
) -> dict[str, Any]:
    return _rooms(request).confirm(token, room_id, confirmation_id, body)


@router.get("/v1/rooms/{room_id}/log", summary="The whole public log")
def room_log(room_id: str, request: Request, token: SeatToken) -> dict[str, Any]:
    return _rooms(request).log(token, room_id)


@router.get("/v1/rooms/{room_id}/receipt", summary="The receipt of a final room")
def room_receipt(room_id: str, request: Request, token: SeatToken) -> dict[str, Any]:
    return _rooms(request).receipt(token, room_id)


@router.get(
    "/v1/rooms/{room_id}/events",
    summary="Server-Sent Events for your seat",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
)
async def room_events(
    room_id: str,
    request: Request,
    token: Bearer,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> Response:
    access = await run_in_threadpool(_rooms(request).follow, token, room_id)
    after = streams.resume_after(last_event_id)
    return streams.event_stream(request, SeatAudience.of(access), after)

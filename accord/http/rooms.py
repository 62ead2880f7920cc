"""Rooms over HTTP: exactly the surface of spec/rooms-api.md."""

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any, Final

from fastapi import APIRouter, Depends, Header, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse

from accord.app.notifier import Notifier
from accord.app.rooms import Rooms
from accord.core.refusals import RefusalCode, refuse
from accord.http.auth import Bearer
from accord.http.strict import StrictRoute
from accord.protocols.rooms.moves import (
    ConfirmRequest,
    JoinRequest,
    ListRequest,
    MoveRequest,
    OpenRequest,
)

router = APIRouter(route_class=StrictRoute, tags=["rooms"])

POLL_SECONDS: Final = 1.0
KEEPALIVE_SECONDS: Final = 15.0


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
    """A seat's owner credential, checked (with the permission) before the body is read."""
    rooms = _rooms(request)
    access = rooms.authorize_known(token, room_id)
    if access is None:
        access = await run_in_threadpool(rooms.authorize, token, room_id)
    if not access.is_owner:
        raise refuse(RefusalCode.FORBIDDEN, "Only the seat's owner can confirm or decline.")
    return token


SeatToken = Annotated[str | None, Depends(seat_token)]
OwnerToken = Annotated[str | None, Depends(owner_token)]


@router.post("/v1/rooms", status_code=201, summary="Open a room")
def open_room(body: OpenRequest, request: Request, _token: Bearer) -> dict[str, Any]:
    return _rooms(request).open(body)


@router.post("/v1/rooms/join", summary="Join a room with its invite")
def join_room(body: JoinRequest, request: Request, _token: Bearer) -> dict[str, Any]:
    return _rooms(request).join(body)


@router.post("/v1/rooms/list", summary="The rooms some tokens open")
def list_rooms(body: ListRequest, request: Request, _token: Bearer) -> dict[str, Any]:
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
    return Response(answer.text, status_code=answer.status, media_type="application/json")


@router.get("/v1/rooms/{room_id}/confirmations", summary="Moves waiting for the owner")
def list_confirmations(room_id: str, request: Request, token: SeatToken) -> dict[str, Any]:
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
    response_class=StreamingResponse,
)
async def room_events(
    room_id: str,
    request: Request,
    token: Bearer,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> StreamingResponse:
    rooms = _rooms(request)
    notifier: Notifier = request.app.state.accord.notifier
    access = await run_in_threadpool(rooms.authorize, token, room_id)
    if last_event_id is not None and not last_event_id.isdigit():
        raise refuse(
            RefusalCode.INVALID_REQUEST,
            "Last-Event-ID must be the id of an event this stream sent.",
            fields={"Last-Event-ID": "a non-negative integer"},
        )
    after = int(last_event_id or 0)

    async def stream() -> AsyncIterator[str]:
        nonlocal after
        wake = notifier.register()
        idle = 0.0
        try:
            yield ": accord event stream\n\n"
            while not await request.is_disconnected():
                wake.clear()
                rows = await run_in_threadpool(rooms.events, access, after)
                for row in rows:
                    yield f"id: {row.id}\nevent: {row.kind}\ndata: {row.data}\n\n"
                    after = row.id
                if rows:
                    idle = 0.0
                    continue
                try:
                    await asyncio.wait_for(wake.wait(), timeout=POLL_SECONDS)
                except TimeoutError:
                    idle += POLL_SECONDS
                    if idle >= KEEPALIVE_SECONDS:
                        idle = 0.0
                        yield ": keep-alive\n\n"
        finally:
            notifier.unregister(wake)

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )

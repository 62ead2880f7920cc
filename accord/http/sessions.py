"""Arbitrated sessions over HTTP: the Valyzen gateway's surface (spec/arbitrated-rest.md), so a
buyer SDK written for that gateway works against Accord with only its base URL and key."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from accord.app.merchants import SECRET_KEY
from accord.app.sessions import OPENERS, Sessions
from accord.http.auth import Bearer
from accord.http.strict import StrictRoute
from accord.protocols.arbitrated.moves import (
    HandoffRequest,
    Move,
    OpenSessionRequest,
    RevealRequest,
)

router = APIRouter(route_class=StrictRoute, tags=["sessions"])


def _sessions(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.sessions
    return sessions


async def buyer_token(session_id: str, request: Request, token: Bearer) -> str | None:
    """The session token, checked before the body is read."""
    await run_in_threadpool(_sessions(request).check_access, token, session_id, buyer_only=True)
    return token


async def reader_token(session_id: str, request: Request, token: Bearer) -> str | None:
    await run_in_threadpool(_sessions(request).check_access, token, session_id, buyer_only=False)
    return token


async def opener_token(request: Request, token: Bearer) -> str | None:
    """A publishable or secret key, checked before the body is read."""
    await run_in_threadpool(_sessions(request).opener, token, allow=OPENERS)
    return token


async def secret_token(request: Request, token: Bearer) -> str | None:
    await run_in_threadpool(_sessions(request).opener, token, allow=SECRET_KEY)
    return token


async def merchant_token(session_id: str, request: Request, token: Bearer) -> str | None:
    """The secret key of the session's tenant and mode, checked before the body is read."""
    await run_in_threadpool(_sessions(request).check_merchant, token, session_id)
    return token


BuyerToken = Annotated[str | None, Depends(buyer_token)]
ReaderToken = Annotated[str | None, Depends(reader_token)]
OpenerToken = Annotated[str | None, Depends(opener_token)]
SecretToken = Annotated[str | None, Depends(secret_token)]
MerchantToken = Annotated[str | None, Depends(merchant_token)]


@router.post("/v1/sessions", status_code=201, summary="Open a session on a SKU")
def open_session(body: OpenSessionRequest, request: Request, token: OpenerToken) -> dict[str, Any]:
    return _sessions(request).open(token, body)


@router.get("/v1/sessions", summary="Your latest sessions (secret key)")
def list_sessions(
    request: Request, token: SecretToken, limit: Annotated[int, Query(ge=1, le=200)] = 20
) -> dict[str, Any]:
    return _sessions(request).list_sessions(token, limit)


@router.get("/v1/sessions/{session_id}", summary="The session, with its whole log")
def show_session(session_id: str, request: Request, token: ReaderToken) -> dict[str, Any]:
    return _sessions(request).show(token, session_id)


@router.post("/v1/sessions/{session_id}/messages", summary="A buyer move")
async def move(session_id: str, body: Move, request: Request, token: BuyerToken) -> Response:
    answer = await _sessions(request).move_async(token, session_id, body)
    return Response(answer.body, status_code=answer.status, media_type="application/json")


@router.get("/v1/sessions/{session_id}/log", summary="The whole chain")
def session_log(session_id: str, request: Request, token: ReaderToken) -> dict[str, Any]:
    return _sessions(request).log(token, session_id)


@router.get("/v1/sessions/{session_id}/receipt", summary="The receipt once ended")
def session_receipt(session_id: str, request: Request, token: ReaderToken) -> dict[str, Any]:
    return _sessions(request).receipt(token, session_id)


@router.post("/v1/sessions/{session_id}/handoff/claim", summary="Claim the merchant's hand-off")
def claim_handoff(session_id: str, request: Request, token: BuyerToken) -> dict[str, Any]:
    return _sessions(request).claim_handoff(token, session_id)


@router.post("/v1/sessions/{session_id}/handoff", summary="Publish a hand-off (secret key)")
def publish_handoff(
    session_id: str, body: HandoffRequest, request: Request, token: MerchantToken
) -> dict[str, Any]:
    return _sessions(request).publish_handoff(token, session_id, body)


@router.post("/v1/sessions/{session_id}/reveal", summary="Open the merchant's commitment")
def merchant_reveal(
    session_id: str, body: RevealRequest, request: Request, token: MerchantToken
) -> dict[str, Any]:
    return _sessions(request).merchant_reveal(token, session_id)

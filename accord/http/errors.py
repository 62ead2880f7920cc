"""One error body everywhere: `{"error": {"code", "message", ...details}}`, one status table."""

import logging
from collections.abc import Mapping
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from accord.core.refusals import RefusalCode, Refused
from accord.http import access

log = logging.getLogger("accord.http")

CHALLENGE: Final = {"WWW-Authenticate": "Bearer"}
"""Sent with every 401 (RFC 6750, section 3): the credential Accord wants is a Bearer token."""

STATUS_BY_CODE: Final[Mapping[RefusalCode, int]] = {
    RefusalCode.UNAUTHENTICATED: 401,
    RefusalCode.FORBIDDEN: 403,
    RefusalCode.MESSAGE_ID_REUSED: 409,
    RefusalCode.ROOM_NOT_FOUND: 404,
    RefusalCode.NOT_FOUND: 404,
    RefusalCode.METHOD_NOT_ALLOWED: 405,
    RefusalCode.INVALID_REQUEST: 400,
    RefusalCode.PAYLOAD_TOO_LARGE: 413,
    RefusalCode.REQUEST_TIMEOUT: 408,
    RefusalCode.INVALID_TERMS: 422,
    RefusalCode.INVALID_DEADLINE: 422,
    RefusalCode.OUTSIDE_OWN_LIMITS: 422,
    RefusalCode.NO_CHANGE: 422,
    RefusalCode.NOT_YOUR_TURN: 409,
    RefusalCode.MOVE_NOT_ALLOWED: 409,
    RefusalCode.STALE_TERMS: 409,
    RefusalCode.RACED: 409,
    RefusalCode.CONFIRMATION_PENDING: 409,
    RefusalCode.CONFIRMATION_NOT_FOUND: 404,
    RefusalCode.ROOM_FINAL: 409,
    RefusalCode.INVITE_INVALID: 410,
    RefusalCode.ROOM_OPEN: 409,
    RefusalCode.RATE_LIMITED: 429,
    RefusalCode.SESSION_NOT_FOUND: 404,
    RefusalCode.SKU_NOT_FOUND: 404,
    RefusalCode.CURRENCY_MISMATCH: 422,
    RefusalCode.NON_MONOTONIC: 422,
    RefusalCode.UNKNOWN_FAIRNESS_PROFILE: 422,
    RefusalCode.UNATTESTED_INCLUSION: 422,
    RefusalCode.PRICE_NOT_ABOVE_INCLUSIONS: 422,
    RefusalCode.NOTHING_TO_ACCEPT: 409,
    RefusalCode.SESSION_ENDED: 409,
    RefusalCode.SESSION_OPEN: 409,
    RefusalCode.HANDOFF_PENDING: 409,
    RefusalCode.HANDOFF_PUBLISHED: 409,
    RefusalCode.NOT_AGREED: 409,
    RefusalCode.EXECUTOR_CHANGED: 409,
    RefusalCode.NOT_A_SEAT: 403,
    RefusalCode.SETTLED: 409,
    RefusalCode.INTENT_INACTIVE: 409,
    RefusalCode.ROUND_OVER: 409,
    RefusalCode.NEEDS_PRINCIPAL: 409,
    RefusalCode.REPEATED_MESSAGE: 422,
    RefusalCode.NO_NEW_CONTEXT: 409,
    RefusalCode.OPPORTUNITY_FINAL: 409,
    RefusalCode.NEGOTIATION_OPEN: 409,
    RefusalCode.CASE_CLOSED: 409,
    RefusalCode.FINDING_FINAL: 409,
    RefusalCode.NOT_LINKED: 409,
    RefusalCode.ALREADY_LINKED: 409,
    RefusalCode.WEBHOOK_NOT_FOUND: 404,
    RefusalCode.LINK_INVALID: 410,
    RefusalCode.QUESTION_NOT_OPEN: 409,
    RefusalCode.NOTHING_TO_OVERRIDE: 409,
    RefusalCode.INTERNAL: 500,
}


def error_body(code: RefusalCode, message: str, **details: Any) -> dict[str, Any]:
    return {"error": {"code": str(code), "message": message, **details}}


def error_response(
    code: RefusalCode, message: str, *, headers: Mapping[str, str] | None = None, **details: Any
) -> JSONResponse:
    status = STATUS_BY_CODE[code]
    if status == 401:
        headers = {**CHALLENGE, **(headers or {})}
    return JSONResponse(error_body(code, message, **details), status_code=status, headers=headers)


def _field_path(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


async def _refused(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refused)
    refusal = exc.refusal
    headers = None
    if "retry_after" in refusal.details:
        headers = {"Retry-After": str(refusal.details["retry_after"])}
    return error_response(refusal.code, refusal.message, headers=headers, **refusal.details)


async def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    fields = {_field_path(tuple(e["loc"])): e["msg"] for e in exc.errors()}
    return error_response(
        RefusalCode.INVALID_REQUEST, "Fix the request: see fields for what is wrong.", fields=fields
    )


async def _http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        if request.url.path.endswith("/") and request.url.path != "/":
            return error_response(
                RefusalCode.NOT_FOUND,
                "No such endpoint: Accord's paths have no trailing slash; see /openapi.json.",
            )
        return error_response(RefusalCode.NOT_FOUND, "No such endpoint; see /openapi.json.")
    if exc.status_code == 405:
        return error_response(
            RefusalCode.METHOD_NOT_ALLOWED,
            "This endpoint does not take that method; see /openapi.json.",
            headers=exc.headers,
        )
    return error_response(RefusalCode.INVALID_REQUEST, str(exc.detail))


async def _internal(request: Request, exc: Exception) -> JSONResponse:
    """Answered outside every other middleware, so it adds the request id itself."""
    log.exception("unhandled error", exc_info=exc)
    return error_response(
        RefusalCode.INTERNAL,
        "Something went wrong on our side; try again.",
        headers={access.HEADER: access.request_id(request.scope)},
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(Refused, _refused)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _internal)

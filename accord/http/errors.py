"""One error body everywhere: `{"error": {"code", "message", ...details}}`, one status table."""

import logging
from collections.abc import Mapping
from typing import Any, Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from accord.core.problems import problems
from accord.core.refusals import RefusalCode, Refused
from accord.core.statuses import STATUS_BY_CODE
from accord.http import access

log = logging.getLogger("accord.http")

CHALLENGE: Final = {"WWW-Authenticate": "Bearer"}
"""Sent with every 401 (RFC 6750, section 3): the credential Accord wants is a Bearer token."""


def error_body(code: RefusalCode, message: str, **details: Any) -> dict[str, Any]:
    return {"error": {"code": str(code), "message": message, **details}}


def error_response(
    code: RefusalCode, message: str, *, headers: Mapping[str, str] | None = None, **details: Any
) -> JSONResponse:
    status = STATUS_BY_CODE[code]
    if status == 401:
        headers = {**CHALLENGE, **(headers or {})}
    return JSONResponse(error_body(code, message, **details), status_code=status, headers=headers)


async def _refused(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refused)
    refusal = exc.refusal
    headers = None
    if "retry_after" in refusal.details:
        headers = {"Retry-After": str(refusal.details["retry_after"])}
    return error_response(refusal.code, refusal.message, headers=headers, **refusal.details)


async def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    fields = problems(exc.errors(), skip=("body", "query", "path", "header"))
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

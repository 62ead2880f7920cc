"""Credentials (a Bearer token; for principals' keys also `x-api-key`) and the per-credential
rate limit."""

import threading
import time
from collections import deque
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param

from accord.core.refusals import RefusalCode, refuse


class _BearerToken(HTTPBearer):
    """HTTPBearer as the OpenAPI document shows it, answering the token itself: FastAPI's
    builds a pydantic model of it on every request, only for the token to be read back."""

    async def __call__(self, request: Request) -> str | None:  # type: ignore[override]
        scheme, token = get_authorization_scheme_param(request.headers.get("Authorization"))
        return token if token and scheme.lower() == "bearer" else None


_scheme = _BearerToken(
    scheme_name="HTTPBearer",
    auto_error=False,
    description="A seat, owner, session, merchant or principal credential.",
)
_api_key_header = APIKeyHeader(
    name="x-api-key", auto_error=False, description="A principal's owner or agent key."
)


class RateLimiter:
    """At most `per_minute` requests per credential in any sliding minute (0: no limit)."""

    def __init__(self, per_minute: int) -> None:
        self._per_minute = per_minute
        self._lock = threading.Lock()
        self._seen: dict[str, deque[float]] = {}

    def check(self, key: str) -> None:
        if self._per_minute <= 0:
            return
        now = time.monotonic()
        with self._lock:
            window = self._seen.setdefault(key, deque())
            while window and window[0] <= now - 60:
                window.popleft()
            if len(window) >= self._per_minute:
                retry_after = max(1, int(60 - (now - window[0])) + 1)
                raise refuse(
                    RefusalCode.RATE_LIMITED,
                    "Too many requests with this credential; wait and try again.",
                    retry_after=retry_after,
                )
            window.append(now)


async def bearer(request: Request, token: Annotated[str | None, Depends(_scheme)]) -> str | None:
    _limit(request, token)
    return token


async def api_key(
    request: Request,
    token: Annotated[str | None, Depends(_scheme)],
    header: Annotated[str | None, Depends(_api_key_header)],
) -> str | None:
    """A key in `Authorization: Bearer` or in `x-api-key` (intro-api.md); the same key in
    both is one key, two different keys open nothing."""
    if token and header and token != header:
        raise refuse(
            RefusalCode.UNAUTHENTICATED,
            "Send one key: Authorization and x-api-key hold two different ones.",
        )
    token = token or header or None
    _limit(request, token)
    return token


async def public(request: Request) -> None:
    """No credential is asked for; the rate limit still counts a Bearer token when one is
    sent (and otherwise the client's address), as on every other route."""
    scheme, token = get_authorization_scheme_param(request.headers.get("Authorization"))
    _limit(request, token if scheme.lower() == "bearer" else None)


def _limit(request: Request, token: str | None) -> None:
    limiter: RateLimiter = request.app.state.rate_limiter
    limiter.check(token or f"ip:{request.client.host if request.client else '-'}")


Bearer = Annotated[str | None, Depends(bearer)]
ApiKey = Annotated[str | None, Depends(api_key)]
Public = Annotated[None, Depends(public)]

"""Strict JSON bodies: duplicate keys, NaN and unsafe integers are refused before a model sees
them (FastAPI's own parser would keep the last duplicate)."""

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from accord.core.jsonio import JSONError, parse
from accord.http.errors import JSON_ERROR


class StrictRequest(Request):
    async def json(self) -> Any:
        """A body that is not strict JSON reads as no body, and the reason is kept for the
        error: refusing it here would answer before the credential is checked, which
        rooms-api.md's check order puts first."""
        if not hasattr(self, "_json"):
            try:
                self._json = parse(await self.body())
            except JSONError as exc:
                self.scope[JSON_ERROR] = exc.reason
                self._json = None
        return self._json


class StrictRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict_handler(request: Request) -> Response:
            return await handler(StrictRequest(request.scope, request.receive))

        return strict_handler

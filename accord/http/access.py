"""Every response carries an `X-Request-Id`, and every request leaves one access log line.

A client's own request id is echoed when it is a plain token (letters, digits, `.`, `_`, `-`,
at most 128); otherwise the server makes one. The line, on the `accord.access` logger, holds
the method, the route's path template (or, for a path no route has, the path as sent, without
its query), the status, the duration and the request id: never a body, a header, a credential
or a query string, which may hold any of those.
"""

import itertools
import logging
import re
import secrets
import time
from typing import Final

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("accord.access")

HEADER: Final = "X-Request-Id"
SCOPE_KEY: Final = "accord.request_id"
_VALID: Final = re.compile(r"[A-Za-z0-9._-]{1,128}")
_PROCESS: Final = secrets.token_hex(6)
_NUMBERS: Final = itertools.count(1)


def _new_id() -> str:
    """Unique across processes and restarts (a random prefix per process, then a counter):
    an id names a request, it guards nothing, so it need not cost a random draw each."""
    return f"{_PROCESS}-{next(_NUMBERS):x}"


def request_id(scope: Scope) -> str:
    """The id of the request `scope` belongs to."""
    return str(scope.get(SCOPE_KEY, ""))


class AccessLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get(HEADER, "")
        rid = given if _VALID.fullmatch(given) else _new_id()
        scope[SCOPE_KEY] = rid
        started = time.perf_counter()
        status: int | None = None

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)[HEADER] = rid
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            status = 500 if status is None else status
            raise
        finally:
            line = {
                "method": scope["method"],
                "path": _path(scope),
                "status": status,
                "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                "request_id": rid,
            }
            shown = (line["method"], line["path"], status or "-", line["duration_ms"], rid)
            log.info("%s %s %s %.1fms %s", *shown, extra=line)


def _path(scope: Scope) -> str:
    """The matched route's template; else the raw path (percent-encoded, so one line)."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    if isinstance(template, str):
        return template
    raw = scope.get("raw_path") or scope["path"].encode()
    return bytes(raw).decode("ascii", "backslashreplace")[:200]

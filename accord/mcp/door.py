"""The MCP door over HTTP (interfaces.md, MCP, Transports): one path, `/mcp`, in front of the
three servers. The optional bearer is resolved (A2) and checked at the agent door (A3) before
MCP sees the request, and picks the tool set. Each server runs stateless streamable HTTP, so
any worker process answers any request and no session is sticky."""

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, Final
from urllib.parse import urlsplit

from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from accord.app.root import Accord
from accord.app.settings import Settings
from accord.core.refusals import RefusalCode, Refused
from accord.mcp.results import error_body
from accord.mcp.servers import Servers, build

PATH: Final = "/mcp"
STATUS: Final = {RefusalCode.UNAUTHENTICATED: 401, RefusalCode.FORBIDDEN: 403}


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """The public host and loopback may call; any other Host is refused (421) against DNS
    rebinding."""
    public = urlsplit(settings.base_url)
    hosts = {public.netloc, f"{public.hostname}:*", "127.0.0.1:*", "localhost:*", "[::1]:*"}
    hosts |= {"127.0.0.1", "localhost", "[::1]", public.hostname or ""}
    origins = {settings.base_url, "http://127.0.0.1:*", "http://localhost:*"}
    return TransportSecuritySettings(
        allowed_hosts=sorted(h for h in hosts if h), allowed_origins=sorted(origins)
    )


class McpDoor:
    path = PATH

    def __init__(self, accord: Callable[[], Accord], settings: Settings) -> None:
        self._accord = accord
        self.servers: Servers = build(accord)
        security = transport_security(settings)
        self._apps: dict[int, ASGIApp] = {
            id(server): server.streamable_http_app(
                streamable_http_path=PATH, stateless_http=True, transport_security=security
            )
            for server in self.servers.all()
        }

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The servers' session managers, entered by the host app's lifespan (a mounted app's
        own lifespan never runs)."""
        async with contextlib.AsyncExitStack() as stack:
            for server in self.servers.all():
                await stack.enter_async_context(server.session_manager.run())
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = _bearer(scope)
        try:
            caller = await asyncio.to_thread(self._accord().doors.agent, token)
        except Refused as refused:
            await _refuse(send, refused)
            return
        server = self.servers.for_caller(caller)
        await self._apps[id(server)](scope, receive, send)


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text: str = bytes(value).decode("latin-1")
            scheme, _, token = text.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return "\x00"  # a credential that is not a Bearer token opens nothing
    return None


async def _refuse(send: Send, refused: Refused) -> None:
    status = STATUS.get(refused.refusal.code, 400)
    headers: list[tuple[bytes, bytes]] = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    body: Any = json.dumps(error_body(refused.refusal)).encode()
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

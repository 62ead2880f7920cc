"""What every tool of the door holds: the application (built once the server has started) and
the connection's bearer, read from the request's `Authorization` over HTTP or given once for a
process over stdio."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mcp.server.mcpserver import Context

from accord.app.identity import Caller
from accord.app.root import Accord
from accord.core.refusals import RefusalCode, refuse


@dataclass(frozen=True)
class Door:
    accord: Callable[[], Accord]
    token: str | None = None
    """The bearer of a process (stdio, or a client in the same process); over HTTP each
    request's own `Authorization` is read instead."""

    def bearer(self, ctx: Context) -> str | None:
        return self.bearer_of(ctx.request_context.request)

    def bearer_of(self, request: object) -> str | None:
        """The bearer of a request as a transport carries it (no headers: the process's)."""
        headers: Mapping[str, str] | None = getattr(request, "headers", None)
        if headers is None:
            return self.token
        scheme, _, token = (headers.get("authorization") or "").partition(" ")
        return token.strip() if scheme.lower() == "bearer" and token.strip() else None

    def credential(self, ctx: Context, given: str | None, *, what: str) -> tuple[str, Caller]:
        """The token a tool acts with (its argument, else the bearer) and whom it stands for,
        once it passes the agent door."""
        token = given or self.bearer(ctx)
        if not token:
            raise refuse(
                RefusalCode.UNAUTHENTICATED,
                f"Give the {what} as an argument, or connect with it as the Bearer credential.",
            )
        caller = self.accord().doors.agent(token)
        assert caller is not None
        return token, caller

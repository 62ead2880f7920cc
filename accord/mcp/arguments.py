"""Malformed arguments are the protocol's error, not the tool's: JSON-RPC `-32602` (invalid
params) naming the fields that do not fit, as for an unknown tool. A tool error is kept for
what the application refuses, whose text is the REST error body a model can act on."""

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, InputRequiredResult
from pydantic import ValidationError

from accord.core.problems import problems


class DoorServer(MCPServer):
    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if self._tool_manager.get_tool(name) is None:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name}")
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise MCPError(
                INVALID_PARAMS,
                f"Invalid arguments for {name}: see data.fields for what does not fit.",
                {"fields": fields(cause)},
            ) from None


def fields(error: ValidationError) -> dict[str, str]:
    """Each argument that does not fit and why, never the value that was sent (it may be a
    credential)."""
    return problems(error, whole="arguments")

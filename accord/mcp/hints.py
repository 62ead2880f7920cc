"""The tools' hints (MCP tool annotations), stated once: they let a client ask its user before
a call; they are not security."""

from typing import Final

from mcp.types import ToolAnnotations

READ: Final = ToolAnnotations(readOnlyHint=True, destructiveHint=False, openWorldHint=False)
WRITE: Final = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=True)
DESTRUCTIVE: Final = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=True)
PRIVATE: Final = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
ONCE: Final = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True)
ONCE_OPEN: Final = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=True
)

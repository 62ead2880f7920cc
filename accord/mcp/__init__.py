"""The MCP door (interfaces.md, MCP): an agent's tools over the official `mcp` SDK, each one
call of the application layer with the credential the agent holds. Three tool sets, chosen by
the bearer: rooms, shop (arbitrated sessions) and principal. Nothing here decides; a refusal
is the REST error body, as a tool error."""

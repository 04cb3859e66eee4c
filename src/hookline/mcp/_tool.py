"""An MCP server's tool as a hookline Tool: ``mcp__<server>__<tool>``.

Being an ordinary Tool, it goes through the whole pipeline: PreToolUse hooks and their
matchers, permission rules (``mcp__orders``, ``mcp__orders__*``, ``mcp__orders__update_order``),
approvals, PostToolUse, the audit and the transcript. Its body is one call to the server.
The output hooks see (``tool_response``) is the list of the server's content blocks, as
Claude Code gives it; the model reads their text. An answer the server marks ``isError``,
and any failure to reach the server, is a failed call whose message the model reads.

Server hints such as ``readOnlyHint`` are not trusted: an MCP tool is never read-only to the
permission layer, so it asks unless a rule or hook allows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookline._errors import ToolError
from hookline._tools.base import Tool
from hookline.mcp._config import safe_name
from hookline.mcp._mcp_client import text_of

if TYPE_CHECKING:
    from hookline._tools.base import ToolContext
    from hookline.mcp._config import ServerConfig
    from hookline.mcp._mcp_client import RemoteTool, Reply
    from hookline.mcp._servers import McpServers


class McpTool(Tool):
    """One tool of one server; calls go through the servers' open connection."""

    #: The connection enforces its own call timeout and says which server did not answer.
    timeout = None

    def __init__(self, servers: McpServers, server: ServerConfig, remote: RemoteTool) -> None:
        self.servers = servers
        self.server = server.name
        self.remote = remote.name
        self.name = server.prefix + safe_name(remote.name)
        self.description = remote.description or f"{remote.name} (MCP server {server.name})"
        self.input_schema = remote.input_schema or {"type": "object", "properties": {}}

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        reply = await self.servers.call(self.server, self.remote, tool_input)
        if reply.is_error:
            raise ToolError(reply.text or f"{self.name} reported an error (no text)")
        return output_of(reply)

    def render(self, output: Any) -> str:
        return text_of(output) if _is_blocks(output) else super().render(output)


def output_of(reply: Reply) -> list[dict[str, Any]]:
    """What hooks see as ``tool_response``: the content blocks."""
    return [dict(block) for block in reply.content]


def _is_blocks(output: Any) -> bool:
    return isinstance(output, list) and all(
        isinstance(b, dict) and isinstance(b.get("type"), str) for b in output
    )

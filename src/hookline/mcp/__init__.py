"""MCP servers as hookline tools: Claude Code's ``.mcp.json`` and ``mcpServers``, over stdio or
streamable HTTP, with the official ``mcp`` SDK (``pip install 'hookline[mcp]'``).

    config      which servers a project declares (``.mcp.json``, settings), checked
    sdk         the one module that speaks to the SDK; its errors become ``ServerError``
    connection  one server held open by a task of its own; failures worded for the model
    tool        ``McpTool``: a server's tool as ``mcp__<server>__<tool>``
    servers     ``McpServers``: an agent's servers, started and stopped with its session

Every MCP tool goes through the tool pipeline like any other, so hooks, matchers, permission
rules, the audit and the transcript apply to it; ``mcp_tool`` hooks
(``hookline._claude.mcp_tool``) call through the same connections.
"""

from hookline.mcp._config import ServerConfig, project_servers
from hookline.mcp._servers import McpServers
from hookline.mcp._tool import McpTool

__all__ = ["McpServers", "McpTool", "ServerConfig", "project_servers"]

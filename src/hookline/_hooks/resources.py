"""What an agent lends the hooks its engine runs: its connections, never anyone else's.

An HTTP hook posts through the pooled HTTP clients of the agent whose engine runs it, and an
``mcp_tool`` hook calls through that agent's MCP servers, once started. The agent owns them,
closes them when it closes, and lends them to its engine (``HookEngine(resources=...)``), which
hands them to each runner's ``run_with``. The hooks layer names what it lends; the runners that
use it (``hookline._claude.http``, ``hookline._claude.mcp_tool``) plug in from the side. So two
agents in one process share no connection: one closing never cuts a hook of the other
mid-request. A subagent runs on its parent's engine, so its hooks use the parent's, which only
the parent closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hookline._support.http_pool import HttpClients


class McpCaller(Protocol):
    """What an ``mcp_tool`` hook calls through: its agent's MCP connections."""

    async def call_text(
        self, server: str, tool: str, arguments: dict[str, Any]
    ) -> tuple[str, bool]:
        """The tool's text output and whether it is an error; a ToolError when the server
        cannot answer."""
        ...


@dataclass(eq=False, slots=True)
class HookResources:
    """An agent's connections, as its hooks reach them. ``http``: the pool HTTP hooks post
    through (None: each request gets a client of its own, closed after it). ``mcp``: the MCP
    servers ``mcp_tool`` hooks call, set while they are started (None: not connected)."""

    http: HttpClients | None = None
    mcp: McpCaller | None = None


def lent(resources: object) -> HookResources:
    """``resources`` as hooks read them; an engine that lends nothing lends an empty set."""
    return resources if isinstance(resources, HookResources) else HookResources()

"""What an agent lends the settings hooks its engine runs: its connections, never anyone else's.

An HTTP hook posts through the pooled HTTP clients of the agent whose engine runs it, and an
``mcp_tool`` hook calls through that agent's MCP servers, once started. The agent owns them,
closes them when it closes, and lends them to its engine (``HookEngine(resources=...)``), which
hands them to each runner's ``run_with``. So two agents in one process share no connection: one
closing never cuts a hook of the other mid-request. A subagent runs on its parent's engine, so
its hooks use the parent's, which only the parent closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookline.claude.http import HttpClients
    from hookline.claude.mcp_tool import McpCaller


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

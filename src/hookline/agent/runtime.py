"""What an agent owns besides its conversation: no process-wide state is shared between agents.

    Agent(model)                                   # makes its own Runtime, closes it on close()
    Agent(model, runtime=Runtime(resolver=mine))   # uses the one given; its owner closes it

A ``Runtime`` holds the HTTP clients the agent's HTTP hooks post through (one pool per event
loop, ``hookline._support.http_pool.HttpClients``) and how the agent opens a store named by a URL or
path, turns a model name into a client and plugs in the audit log. Each of those three is
the default the ``hookline`` package plugs in once (``hookline.agent.plug``) unless the runtime
names its own, which changes nothing for any other agent.

Ownership: an agent closes the runtime it made, on its event loop, when it closes; one it was
given is left to its owner. Its subagents run on its runtime and never close it. The agent's MCP
servers are its own too (made from its ``mcp_servers`` option); it lends them and this pool to
the hooks its engine runs (``hookline.hooks.resources``), so closing one agent never cuts a
connection another agent's hook is using.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hookline._support.http_pool import HttpClients

if TYPE_CHECKING:
    from hookline.agent.model import Resolver
    from hookline.agent.observers import AuditFactory
    from hookline.agent.store import Opener


@dataclass(eq=False)
class Runtime:
    """One agent's connections and plug-ins (None: the package's default)."""

    http: HttpClients = field(default_factory=HttpClients)
    opener: Opener | None = None
    resolver: Resolver | None = None
    audit: AuditFactory | None = None

    async def aclose(self) -> None:
        """Close the running loop's HTTP client (made again if the runtime is used again)."""
        await self.http.aclose()

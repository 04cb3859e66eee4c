"""What an agent owns besides its conversation: no process-wide state is shared between agents.

    Agent(model)                                   # makes its own Runtime, closes it on close()
    Agent(model, runtime=Runtime(resolver=mine))   # uses the one given; its owner closes it

A ``Runtime`` holds the HTTP clients the agent's HTTP hooks post through (one pool per event
loop, ``hookline._support.http_pool.HttpClients``) and its plug-ins: how it opens a store
named by a URL or path, turns a model name into a client, plugs in the audit log and, when
the ``OTEL_*`` variables ask for it, traces (``hookline.telemetry``). Each
plug-in is the runtime's own field; unless the runtime is given another, it is the default in
``DEFAULTS``, which names a function of the plug-in layer beside the agent (``hookline.storage``,
``hookline.models``, ``hookline.audit``) without importing it: the function is imported when
first used. Nothing installs a default for the process, so nothing can swap one under every
agent at once.

Ownership: an agent closes the runtime it made, on its event loop, when it closes; one it was
given is left to its owner. Its subagents run on its runtime and never close it. The agent's MCP
servers are its own too (made from its ``mcp_servers`` option); it lends them and this pool to
the hooks its engine runs (``hookline._hooks.resources``), so closing one agent never cuts a
connection another agent's hook is using.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from hookline._support.http_pool import HttpClients
from hookline._support.named import NamedFunction

if TYPE_CHECKING:
    from hookline._agent.model import Resolver
    from hookline._agent.observers import AuditFactory, TracingFactory
    from hookline._agent.saved.store import Opener

#: The plug-ins a runtime has unless it is given its own, each named where it lives (a layer the
#: agent does not import; ``tests/test_layers.py`` checks each name against the layers).
DEFAULTS: Final = MappingProxyType(
    {
        "opener": NamedFunction("hookline.storage:open_store"),
        "resolver": NamedFunction("hookline.models._choice:model_from_spec"),
        "audit": NamedFunction("hookline.audit._log:agent_audit"),
        "tracing": NamedFunction("hookline.telemetry._environment:from_environment"),
    }
)


@dataclass(eq=False)
class Runtime:
    """One agent's connections and plug-ins."""

    http: HttpClients = field(default_factory=HttpClients)
    #: Opens the store a URL or path (or None: the state folder's) names.
    opener: Opener = DEFAULTS["opener"]
    #: Turns a model name into a client.
    resolver: Resolver = DEFAULTS["resolver"]
    #: Makes the audit log ``audit=True`` plugs into an agent.
    audit: AuditFactory = DEFAULTS["audit"]
    #: Makes the tracing observer when the environment asks for traces (else None).
    tracing: TracingFactory = DEFAULTS["tracing"]
    #: The time now, in seconds since the epoch: when a deferred call's deadline starts, and
    #: what a resume compares it with (``hookline._agent.saved.deadline``). Tests hand in one.
    clock: Callable[[], float] = field(default=time.time)

    async def aclose(self) -> None:
        """Close the running loop's HTTP client (made again if the runtime is used again)."""
        await self.http.aclose()

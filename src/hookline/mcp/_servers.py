"""The MCP servers of one agent: started with its session, stopped with it.

``Agent`` makes one ``McpServers`` from its ``mcp_servers`` option (a mapping of server
entries, a ``.mcp.json`` path, or the configs ``load_project`` found) and calls ``start``
before SessionStart fires and ``close`` after SessionEnd: the servers' tools join the agent's
toolbox as ``mcp__<server>__<tool>``, and the agent lends them to its own ``mcp_tool`` hooks
(``hookline._hooks.resources``): no other agent's hooks reach them. Servers start
concurrently; one that cannot start leaves its tools out and a note for the model saying why,
and the others run.

Timeouts, in seconds, default to Claude Code's environment variables (in milliseconds):
``MCP_TIMEOUT`` for a server to start (30 s), ``MCP_TOOL_TIMEOUT`` for one call (600 s).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from hookline._errors import ConfigError, ToolError
from hookline._settings_layers import SettingsWarning
from hookline.mcp._config import KEY, ServerConfig, parse_servers, read_mcp_json, safe_name
from hookline.mcp._connection import Connection
from hookline.mcp._mcp_client import require_sdk
from hookline.mcp._tool import McpTool

if TYPE_CHECKING:
    from hookline._tools.base import Toolbox
    from hookline.mcp._mcp_client import Reply

#: What ``Agent(mcp_servers=...)`` takes.
McpServersSpec: TypeAlias = (
    "McpServers | Mapping[str, Any] | str | os.PathLike[str] | Iterable[ServerConfig] | None"
)
START_TIMEOUT: Final = 30.0
CALL_TIMEOUT: Final = 600.0


class McpServers:
    """Connections to the configured servers, their tools, and calls to them. One per agent:
    given to two, they share the servers, and whichever closes first stops them."""

    def __init__(
        self,
        configs: Iterable[ServerConfig] = (),
        *,
        start_timeout: float | None = None,
        call_timeout: float | None = None,
    ) -> None:
        self.configs: dict[str, ServerConfig] = {}
        for config in configs:
            self.configs.setdefault(config.name, config)
        if self.configs:
            require_sdk()
        self.start_timeout = start_timeout or _seconds("MCP_TIMEOUT", START_TIMEOUT)
        self.call_timeout = call_timeout or _seconds("MCP_TOOL_TIMEOUT", CALL_TIMEOUT)
        self._connections: dict[str, Connection] = {}

    @classmethod
    def of(
        cls, spec: McpServersSpec, *, cwd: str | os.PathLike[str] | None = None, **timeouts: float
    ) -> McpServers:
        """The servers ``spec`` describes: an ``McpServers`` (as is), a mapping of server
        entries (Claude Agent SDK style), a path to a ``.mcp.json``, or ServerConfigs.
        A bad entry is a ConfigError naming it. ``timeouts``: start_timeout, call_timeout."""
        if isinstance(spec, McpServers):
            return spec
        folder = str(cwd) if cwd is not None else None
        if spec is None:
            configs: Iterable[ServerConfig] = ()
        elif isinstance(spec, str | os.PathLike):
            configs = _from_file(Path(spec))
        elif isinstance(spec, Mapping):
            configs = _checked(parse_servers(dict(spec), file="", key="mcp_servers", cwd=folder))
        else:
            configs = spec
        return cls(configs, **timeouts)

    @property
    def problems(self) -> dict[str, str]:
        """Why each server that is not connected is not."""
        return {
            name: link.problem or "not connected"
            for name, link in self._connections.items()
            if not link.connected
        }

    async def start(self, session_id: str, toolbox: Toolbox | None = None) -> list[str]:
        """Connect every server not connected yet, concurrently, and add their tools to
        ``toolbox`` (a name it has already keeps its tool). Returns a note for the model about
        each server that could not start. Nothing is registered under ``session_id`` (kept for
        earlier callers): whoever starts them lends them to its own hooks, as ``Agent`` does."""
        if not self.configs:
            return []
        waiting = [
            Connection(config, start_timeout=self.start_timeout, call_timeout=self.call_timeout)
            for name, config in self.configs.items()
            if not self._connected(name)
        ]
        self._connections.update((link.name, link) for link in waiting)
        await asyncio.gather(*(link.open() for link in waiting))
        if toolbox is not None:
            for tool in self.tools():
                if tool.name not in toolbox:
                    toolbox.add(tool)
        return self.notes()

    def notes(self) -> list[str]:
        """For the model: each server that could not start, and why."""
        return [
            f"MCP server {name!r} is not available in this session: {why}. Its tools "
            f"({self.configs[name].prefix}*) cannot be called."
            for name, why in self.problems.items()
        ]

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> Reply:
        """Call ``tool`` of ``server``; a ToolError worded for the model if it cannot answer."""
        link = self._connections.get(server) or self._by_safe_name(server)
        if link is None:
            known = ", ".join(self.configs) or "none"
            raise ToolError(f"no MCP server named {server!r} is connected (configured: {known})")
        return await link.call(tool, arguments)

    async def call_text(
        self, server: str, tool: str, arguments: dict[str, Any]
    ) -> tuple[str, bool]:
        """``call`` for an ``mcp_tool`` hook: the text, and whether the tool reported an error."""
        reply = await self.call(server, tool, arguments)
        return reply.text, reply.is_error

    async def close(self) -> None:
        """Stop every server; later calls, a hook's too, fail as not connected."""
        links, self._connections = list(self._connections.values()), {}
        await asyncio.gather(*(link.close() for link in links))

    async def __aenter__(self) -> McpServers:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _connected(self, name: str) -> bool:
        link = self._connections.get(name)
        return link is not None and link.connected

    def _by_safe_name(self, server: str) -> Connection | None:
        return next((c for n, c in self._connections.items() if safe_name(n) == server), None)

    def tools(self) -> list[McpTool]:
        """The tools of every connected server (the first of two with one name)."""
        tools: dict[str, McpTool] = {}
        for link in self._connections.values():
            if link.connected:
                config = self.configs[link.name]
                for remote in link.tools:
                    made = McpTool(self, config, remote)
                    tools.setdefault(made.name, made)
        return list(tools.values())


def _from_file(path: Path) -> list[ServerConfig]:
    found = read_mcp_json(path)
    if found is None:
        raise ConfigError("no such file", file=str(path), key="mcp_servers", fix="check the path")
    if isinstance(found, SettingsWarning):
        raise ConfigError(found.message, file=found.file, key=found.key, fix=found.fix)
    cwd = str(path.resolve().parent)
    return _checked(parse_servers(found.data.get(KEY, {}), file=str(path), cwd=cwd))


def _checked(items: Iterable[ServerConfig | ConfigError]) -> list[ServerConfig]:
    configs = []
    for item in items:
        if isinstance(item, ConfigError):
            raise item
        configs.append(item)
    return configs


def _seconds(variable: str, default: float) -> float:
    """A timeout from ``variable`` (milliseconds, as Claude Code reads it), else ``default``."""
    value = os.environ.get(variable, "")
    try:
        return float(value) / 1000 if value and float(value) > 0 else default
    except ValueError:
        return default

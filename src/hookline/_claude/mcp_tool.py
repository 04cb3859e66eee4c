"""Claude Code ``mcp_tool`` hooks: a handler that calls a tool of a connected MCP server.

    {"type": "mcp_tool", "server": "orders", "tool": "check_refund",
     "input": {"order_id": "${tool_input.order_id}"}, "timeout": 10}

As Claude Code runs them: no process and no new connection, the call goes through the session's
open connection to ``server`` (declared in ``.mcp.json`` or ``mcpServers``). In ``input``,
``${path}`` takes a value from the event's JSON (``tool_input.order_id``, ``session_id``); a
string that is one placeholder keeps the value's JSON type (hookline's reading; in longer text
it is written out, strings as they are). The tool's text is read exactly as a command hook's
stdout on exit 0: a JSON object is the answer, plain text is context on SessionStart and
UserPromptSubmit and nothing elsewhere. A tool answering ``isError``, a server that is not
connected, or one that cannot answer is a failure of kind ``mcp_error``: like any settings
hook it fails open, unless the handler says ``"onFailure": "block"``.

The connections are the agent's: it lends its MCP servers, once started, to the hooks its
engine runs (``hookline._hooks.resources``), so a hook reaches only its own agent's servers, and
another agent closing its own never touches them. Run with none lent (``run`` outside an
engine, or before the servers start), the server is not connected: a failure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Mapping
from typing import TYPE_CHECKING, Any, Final

from hookline._claude.command import CommandHook
from hookline._errors import HookFailure, ToolError
from hookline._hooks.resources import McpCaller as McpCaller
from hookline._hooks.resources import lent
from hookline._hooks.runners import HookRunner
from hookline._support.process import Finished

if TYPE_CHECKING:
    from hookline._decisions import Decision
    from hookline._events import HookEvent

_PLACEHOLDER: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\}")


class McpToolFailed(HookFailure):
    """An ``mcp_tool`` hook's server is not connected, cannot answer, or reported an error."""

    kind = "mcp_error"
    failed = "failed"


class McpToolHook(HookRunner):
    """Calls ``tool`` of ``server`` with ``arguments`` (placeholders filled from the event)."""

    handler = "mcp_tool"
    in_process = False
    inline = False

    def __init__(self, server: str, tool: str, arguments: Mapping[str, Any] | None = None) -> None:
        self.server = server
        self.tool = tool
        self.arguments = dict(arguments or {})
        self.key = ("mcp_tool", server, tool, json.dumps(self.arguments, sort_keys=True))
        #: Reads the tool's text as a command hook's stdout: one reader for both.
        self._stdout = CommandHook(self.describe(), project_dir="")

    def describe(self) -> str:
        return f"mcp_tool {self.server}/{self.tool}"

    async def run(self, event: HookEvent) -> Decision | None:
        return await self._call(event, None)

    def run_with(self, event: HookEvent, resources: object) -> Awaitable[Decision | None]:
        """Calls through the MCP servers of the agent whose engine runs it."""
        return self._call(event, lent(resources).mcp)

    async def _call(self, event: HookEvent, caller: McpCaller | None) -> Decision | None:
        if caller is None:
            raise McpToolFailed(f"MCP server {self.server!r} is not connected in this session")
        arguments = fill(self.arguments, event.to_payload())
        try:
            text, is_error = await caller.call_text(self.server, self.tool, arguments)
        except ToolError as exc:
            raise McpToolFailed(str(exc)) from None
        if is_error:
            raise McpToolFailed(f"{self.tool} returned an error: {text or '(no text)'}")
        return self._stdout._answer(event, Finished(0, text.encode("utf-8", "surrogatepass"), b""))


def fill(value: Any, payload: Mapping[str, Any]) -> Any:
    """``value`` with every ``${path}`` in its strings replaced from ``payload``."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole:
            return _lookup(payload, whole.group(1))
        return _PLACEHOLDER.sub(lambda m: _written(_lookup(payload, m.group(1))), value)
    if isinstance(value, dict):
        return {key: fill(item, payload) for key, item in value.items()}
    if isinstance(value, list):
        return [fill(item, payload) for item in value]
    return value


def _lookup(payload: Mapping[str, Any], path: str) -> Any:
    value: Any = payload
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _written(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

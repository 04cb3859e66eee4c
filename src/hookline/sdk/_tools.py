"""The Claude Agent SDK's in-process MCP tools: ``@tool(name, description, input_schema)``,
``create_sdk_mcp_server`` and the hookline Tools a server's tools become.

An SDK program writes a tool as a handler of one argument, the input dict, returning
``{"content": [blocks], "is_error": bool}``, and registers the server under a key of
``mcp_servers``. Its tools are named ``mcp__<key>__<tool>``: the key, not the server's own
name, as the SDK and Claude Code name them. Each becomes an ordinary hookline Tool, so a call
goes through the whole pipeline (PreToolUse matchers, permission rules such as
``mcp__calc__add`` or ``mcp__calc``, approvals, PostToolUse, the audit). No ``mcp`` package
is involved: a call is a call of the handler, in this process.

* The input is checked against the tool's JSON Schema (``hookline._tools.schema``) before any hook
  sees it and again before the handler runs (a hook may rewrite it). A mismatch is an error
  result the model reads; the handler does not run.
* What the handler raises becomes ``Type: message`` for the model (no traceback); a result with
  ``is_error`` (or the wire spelling ``isError``) is a failed call with its text; anything but a
  dict with a ``content`` list of blocks is a failed call saying what was expected.
* Text blocks join, one a line, as the model's text; other blocks read as ``[image]`` and the
  like, as for hookline's other MCP tools. ``tool_response`` for hooks is the list of blocks.
* A plain (non-async) handler is accepted and runs on one of hookline's worker threads.
* No timeout, as under the SDK (Claude Code waits for an MCP tool as long as it takes).
* ``annotations`` (``readOnlyHint``, ...) are the tool's own claims: kept on the definition,
  never trusted. The permission layer treats every such tool as one that changes things.
"""

from __future__ import annotations

import inspect
import reprlib
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Generic,
    Literal,
    TypeVar,
    overload,
)

from hookline._errors import ConfigError, ToolError, ToolInputError
from hookline._support.frozen import copy_json
from hookline._support.threads import in_thread
from hookline._tools import function
from hookline._tools.base import Tool, ToolContext
from hookline._tools.schema import Check, input_check, json_schema

if TYPE_CHECKING:
    from hookline.sdk._types import McpSdkServerConfig

T = TypeVar("T")
#: A handler: ``async def handler(args) -> dict`` (or a plain function).
Handler = Callable[[Any], Awaitable[dict[str, Any]]] | Callable[[Any], dict[str, Any]]
#: The API's limit on a tool name, ``mcp__<key>__<tool>`` whole.
MAX_NAME: Final = 64
_EXAMPLE: Final = 'tool("add", "Add two numbers", {"a": float, "b": float})'
_RESULT: Final = '{"content": [{"type": "text", "text": "..."}]}'


@dataclass
class SdkMcpTool(Generic[T]):
    """One tool of an in-process server, as ``@tool(...)`` makes it (the SDK's fields)."""

    name: str
    description: str
    input_schema: type[T] | dict[str, Any]
    handler: Callable[[T], Awaitable[dict[str, Any]]]
    annotations: Any = None


class SdkMcpServer:
    """An in-process MCP server: a name, a version, its tools, each input schema built once."""

    def __init__(self, name: str, version: str, tools: Iterable[SdkMcpTool[Any]]) -> None:
        self.name = name
        self.version = version
        self.tools = tuple(tools)
        #: Each tool's JSON Schema and its input check, by tool name.
        self.compiled: dict[str, tuple[dict[str, Any], Check]] = {}
        for definition in self.tools:
            if not isinstance(definition, SdkMcpTool):
                raise ConfigError(
                    f"{definition!r} in the tools of server {name!r} is not an SDK MCP tool",
                    key="tools",
                    fix=f"decorate its handler with @{_EXAMPLE}",
                )
            if definition.name in self.compiled:
                raise ConfigError(
                    f"server {name!r} has two tools named {definition.name!r}",
                    key="tools",
                    fix="give each tool of a server its own name",
                )
            self.compiled[definition.name] = compiled(definition)

    def __repr__(self) -> str:
        names = ", ".join(t.name for t in self.tools)
        return f"SdkMcpServer({self.name!r}, {self.version!r}, tools=[{names}])"


def create_sdk_mcp_server(
    name: str, version: str = "1.0.0", tools: list[SdkMcpTool[Any]] | None = None
) -> McpSdkServerConfig:
    """An in-process server for ``mcp_servers``: ``{"type": "sdk", "name", "instance"}``."""
    return {"type": "sdk", "name": name, "instance": SdkMcpServer(name, version, tools or [])}


def sdk_server_tools(key: str, config: Mapping[str, Any]) -> list[Tool]:
    """The hookline Tools of the server registered under ``mcp_servers[key]``."""
    server = config.get("instance") if isinstance(config, Mapping) else None
    where = f"mcp_servers.{key}"
    if not isinstance(server, SdkMcpServer):
        raise ConfigError(
            f"{server!r} is not an in-process server hookline can run",
            key=where,
            fix="make it with create_sdk_mcp_server(name, tools=[...])",
        )
    _check_name(key, what="server key", key=where)
    return [SdkServerTool(key, t, *server.compiled[t.name]) for t in server.tools]


class SdkServerTool(Tool):
    """One in-process tool as a hookline Tool: ``mcp__<key>__<tool>``. Never ``read_only``,
    whatever its annotations claim (a permission tier must not trust a tool's word)."""

    timeout = None

    def __init__(
        self, key: str, definition: SdkMcpTool[Any], schema: dict[str, Any], check: Check
    ) -> None:
        self.name = f"mcp__{key}__{definition.name}"
        if len(self.name) > MAX_NAME:
            raise ConfigError(
                f"the tool name {self.name} is {len(self.name)} characters, over {MAX_NAME}",
                key=f"mcp_servers.{key}",
                fix="shorten the server key or the tool name",
            )
        self.description = definition.description
        self.input_schema = schema
        self.definition = definition
        self._check = check

    def prepare(self, raw: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        self._checked(raw)
        return raw

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        self._checked(tool_input)  # again: a hook may have rewritten it
        result = await _handled(self.definition.handler, copy_json(tool_input))
        blocks = _content(result, self.name)
        if result.get("is_error") or result.get("isError"):
            raise ToolError(_text(blocks) or f"{self.name} reported an error (no text)")
        return blocks

    def render(self, output: Any) -> str:
        if isinstance(output, list) and all(isinstance(b, Mapping) for b in output):
            return _text(output)
        return super().render(output)  # a PostToolUse hook replaced the blocks

    def _checked(self, tool_input: Any) -> None:
        if problem := self._check(tool_input):
            raise ToolInputError(f"Invalid input for {self.name}: {problem}")


# -- the decorator ----------------------------------------------------------------------------


@overload
def tool(
    fn: Callable[..., Any],
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | Literal[function._Default.TOKEN] | None = function.DEFAULT,
    read_only: bool = False,
) -> function.FunctionTool: ...
@overload
def tool(
    name: str, description: str, input_schema: type | dict[str, Any], annotations: Any = None
) -> Callable[[Handler], SdkMcpTool[Any]]: ...
@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    timeout: float | Literal[function._Default.TOKEN] | None = function.DEFAULT,
    read_only: bool = False,
) -> Callable[[Callable[..., Any]], function.FunctionTool]: ...


def tool(*args: Any, **kwargs: Any) -> Any:
    """Make a tool, in either style. The SDK's, by a name first (or an ``input_schema``):
    ``@tool("add", "Add two numbers", {"a": float})`` on ``async def handler(args) -> dict``
    gives an ``SdkMcpTool`` for ``create_sdk_mcp_server``. Otherwise hookline's own, of a typed
    function: ``@tool`` or ``@tool(name="mcp__orders__refund")`` (``hookline._tools.function``).
    """
    if (args and isinstance(args[0], str)) or "input_schema" in kwargs:
        return _sdk_style(*args, **kwargs)
    return function.tool(*args, **kwargs)


def _sdk_style(*args: Any, **kwargs: Any) -> Callable[[Handler], SdkMcpTool[Any]]:
    try:
        bound = inspect.signature(_decorator).bind(*args, **kwargs)
    except TypeError as exc:
        raise ConfigError(f"tool{_call_repr(args, kwargs)}: {exc}", fix=_EXAMPLE) from None
    return _decorator(*bound.args, **bound.kwargs)


def _decorator(
    name: str, description: str, input_schema: Any, annotations: Any = None
) -> Callable[[Handler], SdkMcpTool[Any]]:
    def decorate(handler: Handler) -> SdkMcpTool[Any]:
        made = SdkMcpTool(name, description, input_schema, handler, annotations)  # type: ignore[arg-type]
        compiled(made)  # a mistake is reported where the tool is written
        return made

    return decorate


def _call_repr(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    shown = [reprlib.repr(a) for a in args] + [f"{k}={reprlib.repr(v)}" for k, v in kwargs.items()]
    return f"({', '.join(shown)})"


def compiled(definition: SdkMcpTool[Any]) -> tuple[dict[str, Any], Check]:
    """The tool's JSON Schema and its input check; a ConfigError for a malformed tool."""
    _check_name(definition.name, what="tool name", key="tools")
    label = f"tool {definition.name!r}"
    if not isinstance(definition.description, str):
        raise ConfigError(f"{label} has no description", key="tools", fix=_EXAMPLE)
    if not callable(definition.handler):
        why = f"{label} has {definition.handler!r} as its handler, which is not callable"
        raise ConfigError(why, key="tools", fix="decorate an async def handler(args) -> dict")
    schema = json_schema(definition.input_schema, label)
    return schema, input_check(schema, label)


def _text(blocks: list[dict[str, Any]]) -> str:
    """Content blocks as the model reads them, as for hookline's other MCP tools (imported
    here: ``hookline.mcp`` is loaded only by programs that use MCP, as ``hookline.tool`` is
    imported by every program with a tool of its own)."""
    from hookline.mcp._mcp_client import text_of

    return text_of(blocks)


def _check_name(name: Any, *, what: str, key: str) -> None:
    from hookline.mcp._config import safe_name  # as _text says

    if not isinstance(name, str) or not name:
        raise ConfigError(f"a {what} is empty", key=key, fix=f"name it, as in {_EXAMPLE}")
    if safe_name(name) != name:
        raise ConfigError(
            f"the {what} {name!r} has characters the model API refuses in tool names",
            key=key,
            fix=f"use only letters, digits, _ and - (as in {safe_name(name)!r})",
        )


# -- running the handler ----------------------------------------------------------------------


async def _handled(handler: Handler, args: dict[str, Any]) -> Any:
    """What the handler returns; what it raises, as a ToolError ``Type: message``. A plain
    function runs on a worker thread (a coroutine it returns is awaited here)."""
    try:
        if _is_async(handler):
            return await handler(args)  # type: ignore[misc]
        result = await in_thread(handler, args)
        return await result if inspect.isawaitable(result) else result
    except Exception as exc:
        said = str(exc)
        raise ToolError(f"{type(exc).__name__}: {said}" if said else type(exc).__name__) from None


def _is_async(handler: Handler) -> bool:
    call = getattr(handler, "__call__", None)  # noqa: B004 - an object with an async __call__
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(call)


def _content(result: Any, name: str) -> list[dict[str, Any]]:
    """The result's content blocks (resource links and text resources as text, as the SDK
    gives them to Claude Code); a ToolError saying what was expected for anything else."""
    content = result.get("content") if isinstance(result, Mapping) else None
    if not isinstance(content, list) or not all(_is_block(b) for b in content):
        raise ToolError(
            f"{name} returned {reprlib.repr(result)}; a tool handler returns a dict with a "
            f"content list of blocks, as {_RESULT}"
        )
    return [_as_text(block) for block in content]


def _is_block(block: Any) -> bool:
    if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
        return False
    return block["type"] != "text" or isinstance(block.get("text"), str)


def _as_text(block: Mapping[str, Any]) -> dict[str, Any]:
    if block["type"] == "resource_link":
        parts = [str(block[k]) for k in ("name", "uri", "description") if block.get(k)]
        return {"type": "text", "text": "\n".join(parts) or "Resource link"}
    resource = block.get("resource")
    if block["type"] == "resource" and isinstance(resource, Mapping) and "text" in resource:
        return {"type": "text", "text": str(resource["text"])}
    return dict(copy_json(dict(block)))

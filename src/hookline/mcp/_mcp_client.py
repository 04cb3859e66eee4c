"""The only module that speaks to the ``mcp`` SDK: open a session, list tools, call one.

Whatever the SDK or its transports raise (``MCPError``, ``OSError``, httpx errors, pydantic
errors for an answer out of the protocol's schema, exception groups from its task groups) is
turned into one ``ServerError`` here, worded for the model in one line. The SDK is an optional
dependency: without it, opening a session is a ConfigError with the install hint.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TextIO

from hookline._errors import ConfigError, HooklineError

if TYPE_CHECKING:
    from mcp import ClientSession

    from hookline.mcp._config import ServerConfig

INSTALL_HINT: Final = "pip install 'hookline[mcp]'"
#: Pages of tools/list read at most (a server that keeps answering with a cursor is cut off).
_MAX_PAGES: Final = 100


class ServerError(HooklineError):
    """An MCP server could not be reached, or answered with an error or out of schema."""


class ServerGone(ServerError):
    """The connection to the server closed: it exited, or dropped the link."""


@dataclass(frozen=True, slots=True)
class RemoteTool:
    """A tool as its server lists it."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Reply:
    """A server's answer to one tools/call: its content blocks as JSON, and whether it is an
    error the tool reported (``isError``)."""

    content: tuple[dict[str, Any], ...]
    is_error: bool = False

    @property
    def text(self) -> str:
        return text_of(self.content)


def text_of(blocks: Iterable[Mapping[str, Any]]) -> str:
    """Content blocks as text: text blocks joined by newlines, others as ``[image]`` and the
    like (as Claude Code reads a tool's output for an ``mcp_tool`` hook)."""
    return "\n".join(
        str(block.get("text", "")) if block.get("type") == "text" else f"[{block.get('type')}]"
        for block in blocks
    )


def require_sdk() -> None:
    """A ConfigError with the install hint when the ``mcp`` SDK is missing."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        why = "MCP servers need the mcp SDK, which is not installed"
        raise ConfigError(why, key="mcpServers", fix=INSTALL_HINT) from None


@asynccontextmanager
async def open_session(config: ServerConfig, errlog: TextIO) -> AsyncIterator[ClientSession]:
    """A session with the server, initialised; the server (stdio) stops when it closes.
    ``errlog`` receives a stdio server's stderr."""
    require_sdk()
    from mcp import ClientSession, Implementation

    from hookline._support.version import __version__

    async with AsyncExitStack() as stack:
        try:
            read, write = await stack.enter_async_context(await _transport(config, stack, errlog))
            info = Implementation(name="hookline", version=__version__)
            session = await stack.enter_async_context(ClientSession(read, write, client_info=info))
            await session.initialize()
        except Exception as exc:
            raise ServerError(describe(exc)) from None
        yield session


async def _transport(config: ServerConfig, stack: AsyncExitStack, errlog: TextIO) -> Any:
    if config.transport == "stdio":
        from mcp import StdioServerParameters, stdio_client

        # The SDK adds a small environment (HOME, PATH, USER, SHELL, TERM, LOGNAME): none of
        # hookline's own credentials, unless a setting passes one on or the entry names it.
        env = {**config.passthrough, **config.env}
        params = StdioServerParameters(
            command=config.command, args=list(config.args), env=env, cwd=config.cwd
        )
        return stdio_client(params, errlog=errlog)
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = await stack.enter_async_context(create_mcp_http_client(headers=dict(config.headers)))
    return streamable_http_client(config.url, http_client=http)


async def list_tools(session: ClientSession) -> tuple[RemoteTool, ...]:
    """Every tool the server offers (all pages)."""
    from mcp.types import PaginatedRequestParams

    tools: list[RemoteTool] = []
    cursor: str | None = None
    try:
        for _ in range(_MAX_PAGES):
            params = PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await session.list_tools(params=params)
            tools += (RemoteTool(t.name, t.description or "", t.input_schema) for t in page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
    except Exception as exc:
        raise ServerError(f"listing its tools failed: {describe(exc)}") from None
    return tuple(tools)


async def call_tool(session: ClientSession, name: str, arguments: dict[str, Any]) -> Reply:
    """One tools/call; a ServerError when the server cannot answer or answers out of schema."""
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    try:
        result = await session.call_tool(name, arguments)
        blocks = tuple(_json(block) for block in result.content)
    except MCPError as exc:
        gone = exc.code == CONNECTION_CLOSED
        raise (ServerGone if gone else ServerError)(describe(exc)) from None
    except Exception as exc:
        raise ServerError(describe(exc)) from None
    return Reply(blocks, result.is_error)


def _json(block: Any) -> dict[str, Any]:
    data: dict[str, Any] = block.model_dump(mode="json", by_alias=True, exclude_none=True)
    return data


def describe(exc: BaseException) -> str:
    """One line saying what went wrong: the innermost errors of an exception group, each as
    ``Type: message`` (an ``MCPError`` by its message alone)."""
    leaves = list(_leaves(exc))
    parts = dict.fromkeys(_one(leaf) for leaf in leaves)
    return "; ".join(parts) or type(exc).__name__


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _one(exc: BaseException) -> str:
    from mcp import MCPError

    if isinstance(exc, MCPError):
        return exc.message
    text = " ".join(str(exc).split())
    if len(text) > 300:
        text = text[:300] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__

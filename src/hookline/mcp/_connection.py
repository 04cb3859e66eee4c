"""One MCP server, held open for a session by a task of its own.

The SDK's transports are task-scoped contexts (they must be left in the task that entered
them), while an agent starts, calls and closes from whatever task it is awaited in. So each
server gets one holder task: it opens the session, lists the tools, says it is ready, and
keeps the session open until ``close``; calls from any task go through the open session. What
happens to the server is kept as ``problem`` and worded for the model:

* it cannot start (no such command, it exits, it does not answer within ``start_timeout``);
* it dies or drops the connection mid-run (the call under way and every later one fail);
* a call takes longer than ``call_timeout`` (that call fails; the server stays usable).

A stdio server's stderr goes to a temporary file; its last line explains a failed start.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from typing import TYPE_CHECKING, Any, Final, TextIO

import hookline.mcp._mcp_client as mcp_client
from hookline._errors import ConfigError, ToolError

if TYPE_CHECKING:
    from mcp import ClientSession

    from hookline.mcp._config import ServerConfig
    from hookline.mcp._mcp_client import RemoteTool, Reply

#: Characters of a stdio server's stderr kept to explain why it stopped.
_STDERR_TAIL: Final = 300


class Connection:
    """A connection to one server: ``open``, then ``call`` from any task, then ``close``."""

    def __init__(self, config: ServerConfig, *, start_timeout: float, call_timeout: float) -> None:
        self.config = config
        self.start_timeout = start_timeout
        self.call_timeout = call_timeout
        self.tools: tuple[RemoteTool, ...] = ()
        #: Why the server cannot be used now; None while it is connected (or not yet opened).
        self.problem: str | None = None
        self._session: ClientSession | None = None
        self._holder: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._stderr: TextIO | None = None  # a stdio server's stderr, while it runs

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def connected(self) -> bool:
        return self._session is not None

    async def open(self) -> None:
        """Start the server and list its tools; on failure ``problem`` says why."""
        self._holder = asyncio.create_task(self._hold(), name=f"mcp server {self.name}")
        try:
            async with asyncio.timeout(self.start_timeout):
                await self._ready.wait()
        except TimeoutError:
            self.problem = f"it did not answer within {self.start_timeout:g}s of starting"
            await self.close()

    async def call(self, tool: str, arguments: dict[str, Any]) -> Reply:
        """One call; a ToolError worded for the model when the server cannot answer."""
        session = self._session
        if session is None:
            raise ToolError(self._down())
        try:
            async with asyncio.timeout(self.call_timeout):
                return await mcp_client.call_tool(session, tool, arguments)
        except TimeoutError:
            raise ToolError(
                f"MCP server {self.name!r} did not answer {tool} within {self.call_timeout:g}s; "
                "the call may still be running there"
            ) from None
        except mcp_client.ServerGone as exc:
            self._gone(str(exc))
            raise ToolError(self._down()) from None
        except mcp_client.ServerError as exc:
            raise ToolError(f"MCP server {self.name!r} failed on {tool}: {exc}") from None

    async def close(self) -> None:
        """Stop the server (a stdio process exits: the SDK closes its stdin, then signals it)."""
        self._stop.set()
        holder, self._holder = self._holder, None
        if holder is not None and not holder.done():
            holder.cancel()  # only reached when the start timed out: stop waiting for it
            with contextlib.suppress(asyncio.CancelledError):
                await holder
        elif holder is not None:
            await holder

    async def _hold(self) -> None:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr:
            self._stderr = stderr
            try:
                await self._serve(stderr)
            except (ConfigError, mcp_client.ServerError) as exc:
                self.problem = self.problem or self._with_stderr(str(exc))
            except Exception as exc:  # the transport failed under the open session
                self.problem = self.problem or self._with_stderr(mcp_client.describe(exc))
            finally:
                self._session, self._stderr = None, None
                self.problem = self.problem or "it was stopped"
                self._ready.set()

    async def _serve(self, stderr: TextIO) -> None:
        async with mcp_client.open_session(self.config, stderr) as session:
            self.tools = await mcp_client.list_tools(session)
            self._session = session
            self._ready.set()
            await self._stop.wait()

    def _gone(self, detail: str) -> None:
        """The connection closed under a call: no more calls; the holder lets go of it."""
        if self._session is not None:
            self._session = None
            self.problem = self._with_stderr(f"the connection closed ({detail}); did it exit?")
            self._stop.set()

    def _down(self) -> str:
        why = self.problem or "it is not connected"
        return f"MCP server {self.name!r} is not available: {why}"

    def _with_stderr(self, message: str) -> str:
        """``message``, and the last line the server wrote to stderr, if any."""
        stderr = self._stderr
        if stderr is None or stderr.closed:
            return message
        stderr.flush()
        stderr.seek(0)
        lines = [line.strip() for line in stderr.read().splitlines() if line.strip()]
        if not lines:
            return message
        return f"{message} (its stderr: {lines[-1][-_STDERR_TAIL:]})"

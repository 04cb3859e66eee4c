"""``ClaudeSDKClient`` and ``query``: the Agent SDK's way to run an agent, on hookline's loop.

The SDK starts a Claude Code process and reads its stream-json lines back as message objects.
hookline runs the agent in this process instead, and its messages come the same way: the lines
``hookline run --output-format stream-json`` prints (``hookline._claude.stream_json``), read
into the SDK's types (``hookline.sdk._parse``) as they happen. So a program that iterates
``receive_response()`` sees ``SystemMessage`` (init), ``AssistantMessage`` and ``UserMessage``
(tool results) in order, then one ``ResultMessage``.

    async with ClaudeSDKClient(options=ClaudeAgentOptions(allowed_tools=["Bash"])) as client:
        await client.query("Run: echo hello")
        async for message in client.receive_response():
            ...

Prompts are answered one after another, in the order ``query`` was given them.
``interrupt()`` stops the prompt being answered: a call in flight is cancelled (its process
killed), the model is told the calls it asked for were interrupted, and the response ends with
a ``ResultMessage`` whose subtype is ``error_during_execution``. A problem hookline cannot run
with (an option it does not support, an audit record it cannot write) is raised from
``receive_messages`` / ``receive_response``, never swallowed.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import hookline.sdk._updates as updates
from hookline._agent.model import StreamingModelClient
from hookline._claude import structured
from hookline._claude.stream_json import (
    ClaudeStream,
    TimedModel,
    Timing,
    result_object,
    text_delta,
    user_text,
)
from hookline._errors import ConfigError
from hookline.sdk._build import build, model_for, resumes
from hookline.sdk._errors import CLIConnectionError
from hookline.sdk._options import ClaudeAgentOptions
from hookline.sdk._parse import parse_message
from hookline.sdk._types import (
    AssistantMessage,
    ContentBlock,
    Message,
    ResultMessage,
    TextBlock,
    ThinkingBlock,
)

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._agent.model import ModelClient
    from hookline._events import PermissionMode

#: The prompt forms ``query`` takes: text, or the SDK's stream of user-message dicts.
Prompt = str | AsyncIterable[Mapping[str, Any]]


class ClaudeSDKClient:
    """A conversation with an agent built from ``options``: ``query`` to send a prompt,
    ``receive_response`` to read what comes of it."""

    def __init__(self, options: ClaudeAgentOptions | None = None, transport: Any = None) -> None:
        if transport is not None:
            raise ConfigError(
                "hookline runs the agent in this process, so it takes no transport",
                key="transport",
                fix="leave transport out",
            )
        self.options = options or ClaudeAgentOptions()
        self._agent: Agent | None = None
        self._prompts: asyncio.Queue[str] = asyncio.Queue()
        self._out: asyncio.Queue[Message | BaseException] = asyncio.Queue()
        self._serving: asyncio.Task[None] | None = None
        self._answering: asyncio.Task[None] | None = None

    async def connect(self, prompt: Prompt | None = None) -> None:
        """Build the agent (a ConfigError for what hookline cannot honour); then ``query``
        ``prompt``, when given."""
        if self._agent is None:
            self._agent = build(self.options, interrupt=self._interrupt)
            if resumes(self.options):
                await self._agent.start("resume")
            self._serving = asyncio.create_task(self._serve())
        if prompt is not None:
            await self.query(prompt)

    async def query(self, prompt: Prompt, session_id: str = "default") -> None:
        """Send a prompt (or each user message of a stream) to be answered in turn."""
        self._connected()
        async for text in _texts(prompt):
            self._prompts.put_nowait(text)

    async def receive_messages(self) -> AsyncIterator[Message]:
        """Every message, as it comes, until the client disconnects."""
        self._connected()
        while True:
            item = await self._out.get()
            if isinstance(item, BaseException):
                raise item
            yield item

    async def receive_response(self) -> AsyncIterator[Message]:
        """The messages of the prompt being answered, up to and with its ``ResultMessage``."""
        async for message in self.receive_messages():
            yield message
            if isinstance(message, ResultMessage):
                return

    async def interrupt(self) -> None:
        """Stop the prompt being answered; its response ends with an error result."""
        self._connected()
        self._interrupt()

    async def set_permission_mode(self, mode: PermissionMode) -> None:
        """Judge later calls in ``mode`` (events report it too)."""
        updates.set_mode(self._connected(), mode)

    async def set_model(self, model: str | ModelClient | None = None) -> None:
        """Answer later prompts with ``model`` (PreModelSwitch hooks may refuse: a ConfigError
        says why)."""
        agent = self._connected()
        switched = await agent.switch_model(model_for(model, self.options.env))
        if not switched.switched:
            raise ConfigError(f"the model switch was refused: {switched.reason}", key="model")

    async def disconnect(self) -> None:
        """Stop answering and end the session (SessionEnd hooks run)."""
        agent, self._agent = self._agent, None
        for task in (self._serving, self._answering):  # the run unwinds before the session ends
            if task is not None:
                _stop(task)
                with suppress(asyncio.CancelledError):
                    await task
        if agent is not None:
            await agent.close()

    async def __aenter__(self) -> ClaudeSDKClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.disconnect()

    # -- inside ---------------------------------------------------------------------------------

    def _connected(self) -> Agent:
        if self._agent is None:
            raise CLIConnectionError("Not connected. Call connect() first.")
        return self._agent

    def _interrupt(self) -> None:
        if self._answering is not None:
            _stop(self._answering)

    async def _serve(self) -> None:
        """Answer prompts one after another, for as long as the client is connected."""
        try:
            while True:
                prompt = await self._prompts.get()
                self._answering = asyncio.create_task(self._answer(prompt))
                await asyncio.wait({self._answering})
        finally:
            self._interrupt()

    async def _answer(self, prompt: str) -> None:
        """Run ``prompt``; each line of its stream joins the output as an SDK message."""
        agent = self._connected()
        timing = Timing(agent)
        try:
            stream = ClaudeStream(
                agent, self._emit, own=False, hook_events=self.options.include_hook_events
            )
            with agent.observe(stream), self._partial(agent):
                result = await agent.run(prompt)
        except asyncio.CancelledError:  # interrupt(): the response still ends with a result
            self._emit(_interrupted(agent, timing))
            return
        except Exception as exc:  # said where the program reads, not lost in a task
            self._out.put_nowait(exc)
            return
        finally:
            if agent.model is timing.model:  # not if set_model switched it meanwhile
                agent.model = timing.model.model
        line = result_object(result, timing=timing, max_turns=agent.options.max_turns)
        self._emit(structured.settle(line, agent))

    @contextmanager
    def _partial(self, agent: Agent) -> Iterator[None]:
        """With ``include_partial_messages``: the model's text as ``StreamEvent`` text deltas,
        as it writes it (when its client streams; hookline's Anthropic and OpenAI ones do)."""
        model = agent.model.model if isinstance(agent.model, TimedModel) else agent.model
        if not self.options.include_partial_messages or not isinstance(model, StreamingModelClient):
            yield
            return
        sink = model.on_text
        model.on_text = lambda piece: self._emit(text_delta(agent.session.id, piece))
        try:
            yield
        finally:
            model.on_text = sink

    def _emit(self, line: dict[str, Any]) -> None:
        message = parse_message(line)
        if isinstance(message, AssistantMessage) and message.parent_tool_use_id is not None:
            message = self._subagents(message)
        if message is not None:
            self._out.put_nowait(message)

    def _subagents(self, message: AssistantMessage) -> AssistantMessage | None:
        """A subagent's reply, as the SDK streams it: its tool calls only (enough to show
        progress), unless ``forward_subagent_text``; None when nothing is left."""
        if self.options.forward_subagent_text:
            return message
        calls: list[ContentBlock] = [
            b for b in message.content if not isinstance(b, TextBlock | ThinkingBlock)
        ]
        return replace(message, content=calls) if calls else None


async def query(
    *, prompt: Prompt, options: ClaudeAgentOptions | None = None, transport: Any = None
) -> AsyncIterator[Message]:
    """Answer ``prompt`` (or each message of a stream) in a fresh session, yielding every
    message; the session ends when the last response does (or when the caller stops).

    A text prompt's session ends before its ``ResultMessage`` is yielded: a caller that stops
    reading there (``break``) leaves nothing open. Cleanup after a ``break`` runs only when
    the generator is closed, which a closing event loop may never finish."""
    client = ClaudeSDKClient(options, transport)
    await client.connect()
    try:
        async for text in _texts(prompt):
            await client.query(text)
            async for message in client.receive_response():
                if isinstance(prompt, str) and isinstance(message, ResultMessage):
                    await client.disconnect()
                yield message
    finally:
        await client.disconnect()


def _stop(task: asyncio.Task[None]) -> None:
    """Cancel ``task`` once: a second cancel would cut short the cleanup the first began."""
    if not task.done() and not task.cancelling():
        task.cancel()


async def _texts(prompt: Prompt) -> AsyncIterator[str]:
    """The prompt's text, or each streamed user message's."""
    if isinstance(prompt, str):
        yield prompt
        return
    async for message in prompt:
        yield user_text(message)


def _interrupted(agent: Agent, timing: Timing) -> dict[str, Any]:
    """The result line of a response an interrupt ended."""
    return {
        "type": "result",
        "subtype": "error_during_execution",
        "is_error": True,
        **timing.figures(),
        "num_turns": 0,
        "result": None,
        "session_id": agent.session.id,
        "stop_reason": "interrupted",
        "total_cost_usd": 0,
        "usage": {},
        "uuid": str(uuid.uuid4()),
        "errors": ["interrupted"],
    }

"""``--output-format json`` and ``stream-json`` in ``claude -p``'s shapes, so a script written
for Claude Code reads hookline's output unchanged.

json prints one result object: Claude Code's keys (``type: "result"``, ``subtype``,
``is_error``, ``result``, ``session_id``, ``num_turns``, ``duration_ms``, ``duration_api_ms``,
``total_cost_usd``, ``permission_denials``, ``usage``, ``modelUsage``, ``uuid``, and
``errors`` when the run failed) with hookline's own fields beside them (``stop_reason``,
``final_text``, ``tool_calls``, ``hook_runs``, ...). stream-json prints Claude Code's messages
as they happen: a ``system``/``init`` line first, an ``assistant`` line per model reply, a
``user`` line per message of tool results, both in the Anthropic Messages shape, and the
result object last; hookline's own ``event``, ``hook_run`` and ``tool_call`` lines come
between them.

hookline does not price model calls: ``total_cost_usd`` is always 0. ``num_turns`` counts
model calls as Claude Code does, one more when the turn limit ended the run.

A prompt streamed in (``--input-format stream-json``, the SDK's ``query`` given an iterable) is a
``user`` message of text: ``user_text``. The CLI and the SDK surface both speak this format;
each passes its own way of writing a line (``emit``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final

from hookline._agent.messages import Message, ToolResultBlock, Usage
from hookline._agent.observers import Observer
from hookline._agent.subagent_types import AGENT_TOOL
from hookline._agent.transcript import tool_use_result
from hookline._errors import ConfigError
from hookline._events import HookEvent
from hookline._hooks.engine import HookRun
from hookline._tools.base import ToolResult

if TYPE_CHECKING:
    from hookline import Agent, RunResult
    from hookline._agent.model import ModelClient
    from hookline._agent.session import Session
    from hookline._tools.pipeline import ToolStarted

#: hookline's stop reasons that Claude Code reports as a failed run, by its subtype.
_FAILED: Final = {
    "max_turns": "error_max_turns",
    "model_error": "error_during_execution",
    "compaction_failed": "error_during_execution",
}

#: hookline's stop reasons that Claude Code reports as a ``terminal_reason`` (those observed).
_TERMINAL: Final = {"hook_stopped": "hook_stopped", "model_error": "api_error"}


class TimedModel:
    """A model that adds up how long its calls took (``duration_api_ms``)."""

    def __init__(self, model: ModelClient) -> None:
        self.model, self.name, self.api_ms = model, model.name, 0.0

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        started = time.monotonic()
        try:
            return await self.model.complete(messages, tools, system=system)
        finally:
            self.api_ms += (time.monotonic() - started) * 1000

    async def aclose(self) -> None:
        close = getattr(self.model, "aclose", None)
        if close is not None:
            await close()


class Timing:
    """How long a run takes, and how much of that its model calls take: it times ``agent``'s
    model from now on."""

    def __init__(self, agent: Agent) -> None:
        self.started = time.monotonic()
        self.model = TimedModel(agent.model)
        agent.model = self.model

    def figures(self) -> dict[str, int]:
        wall = (time.monotonic() - self.started) * 1000
        return {"duration_ms": round(wall), "duration_api_ms": round(self.model.api_ms)}


def result_object(result: RunResult, *, timing: Timing, max_turns: int) -> dict[str, Any]:
    """``claude -p``'s result object for ``result``, with hookline's own fields after it."""
    subtype = _FAILED.get(result.stop_reason, "success")
    own = result.to_dict()
    own.pop("usage")  # Claude Code's is always an object
    usage = result.usage or Usage()
    data: dict[str, Any] = {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        **timing.figures(),
        "num_turns": result.model_calls + (result.stop_reason == "max_turns"),
        "result": result.final_text,
        "session_id": result.session_id,
        "total_cost_usd": 0,
        "usage": usage.to_dict(),
        "modelUsage": {timing.model.name: _model_usage(usage)},
        "permission_denials": [
            {"tool_name": r.call.name, "tool_use_id": r.call.id, "tool_input": r.call.input}
            for r in result.tool_calls
            if r.permission == "deny"
        ],
        "uuid": str(uuid.uuid4()),
    }
    if terminal := _TERMINAL.get(result.stop_reason):
        data["terminal_reason"] = terminal
    if result.stop_reason == "max_turns":
        data["errors"] = [f"Reached maximum number of turns ({max_turns})"]
    elif subtype != "success":
        data["errors"] = [result.stop_detail or result.stop_reason]
    return {**data, **own}


def text_delta(session_id: str, piece: str) -> dict[str, Any]:
    """A piece of the model's text as the ``stream_event`` line Claude Code prints for it (the
    Anthropic API's ``content_block_delta``), with ``--include-partial-messages``."""
    delta = {"type": "text_delta", "text": piece}
    return {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": 0, "delta": delta},
        "session_id": session_id,
        "parent_tool_use_id": None,
        "uuid": str(uuid.uuid4()),
    }


def _model_usage(usage: Usage) -> dict[str, int]:
    """One model's line of ``modelUsage``, in Claude Code's keys. hookline prices nothing and
    does not know the model's window: those are 0."""
    return {
        "inputTokens": usage.input_tokens,
        "outputTokens": usage.output_tokens,
        "cacheReadInputTokens": usage.cache_read_input_tokens,
        "cacheCreationInputTokens": usage.cache_creation_input_tokens,
        "webSearchRequests": 0,
        "costUSD": 0,
        "contextWindow": 0,
        "maxOutputTokens": 0,
    }


class ClaudeStream(Observer):
    """stream-json: Claude Code's ``system``/``init``, ``assistant`` and ``user`` lines, and
    hookline's ``event``, ``hook_run`` and ``tool_call`` lines, in the order things happen."""

    def __init__(
        self,
        agent: Agent,
        emit: Callable[[dict[str, Any]], None],
        *,
        own: bool = True,
        hook_events: bool = False,
    ) -> None:
        """``emit`` takes each line; ``own``: hookline's lines too;
        ``hook_events``: Claude Code's ``hook_started`` / ``hook_response`` lines for each run."""
        self._agent, self._emit, self._started = agent, emit, False
        self._hook_events = hook_events
        self._own: Callable[[object], None] = StreamView(emit) if own else _skip
        #: The Agent call whose subagent is working now (subagents run one at a time): the
        #: ``parent_tool_use_id`` of its lines, as Claude Code marks a subagent's.
        self._delegating: str | None = None
        #: Finished calls whose results are not streamed yet, by tool_use id.
        self._outputs: dict[str, ToolResult] = {}
        #: Who a hook's ``systemMessage`` is from: the event its runs answer (``PreToolUse:Bash``).
        self._saying = ""

    def restart(self) -> None:
        """The next response starts with its own ``system``/``init`` line, as Claude Code
        starts each response to a streamed prompt."""
        self._started = False

    def tool_started(self, session: Session, started: ToolStarted) -> None:
        if started.call.name == AGENT_TOOL and session.scope.agent_id is None:
            self._delegating = started.call.id

    def event(self, session: Session, event: HookEvent) -> None:
        self._begin(session)
        self._own(event)
        tool = getattr(event, "tool_name", None)
        self._saying = f"{event.name}:{tool}" if tool else event.name

    def hook_run(self, session: Session, run: HookRun) -> None:
        self._begin(session)
        self._own(run)
        if self._hook_events:
            for line in _hook_lines(run, self._saying):
                self._emit({**line, **_ids(session)})
        for said in run.answer.system_message:  # a hook's systemMessage, as Claude Code shows it
            line = {"content": f"{self._saying} says: {said}", "level": "notice"}
            self._emit({"type": "system", "subtype": "informational", **line, **_ids(session)})

    def tool_finished(self, session: Session, result: ToolResult) -> None:
        self._begin(session)
        self._own(result)
        if result.call.id == self._delegating:
            self._delegating = None
        self._outputs[result.call.id] = result  # for its line in the stream

    def model_called(self, session: Session, reply: Message, model: str) -> None:
        self._begin(session)
        body = {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": model,
            **reply.to_dict(),
            "stop_reason": None,  # as Claude Code streams it
            "stop_sequence": None,
            "usage": (reply.usage or Usage()).to_dict(),
        }
        self._emit(_message("assistant", body, session, self._parent(session)))

    def message(self, session: Session, message: Message) -> None:
        """Tool results, a line each with its structured output (``tool_use_result``), as
        Claude Code streams them; the prompt is not. A hook's note beside the results rides
        on the last of them."""
        results = [b for b in message.content if isinstance(b, ToolResultBlock)]
        if message.role != "user" or not results:
            return
        self._begin(session)
        notes = [b for b in message.content if not isinstance(b, ToolResultBlock)]
        for block in results:
            shown = [block, *notes] if block is results[-1] else [block]
            body = {"role": "user", "content": [b.to_dict() for b in shown]}
            line = _message("user", body, session, self._parent(session))
            done = self._outputs.pop(block.tool_use_id, None)
            line["tool_use_result"] = tool_use_result(block, done)
            self._emit(line)

    def _parent(self, session: Session) -> str | None:
        """The Agent call a subagent's line belongs to; None for the main conversation's."""
        return self._delegating if session.scope.agent_id is not None else None

    def _begin(self, session: Session) -> None:
        """The ``system``/``init`` line, before anything else."""
        if self._started:
            return
        self._started = True
        self._emit(
            {
                "type": "system",
                "subtype": "init",
                "cwd": str(session.cwd),
                "session_id": session.id,
                "tools": [spec["name"] for spec in self._agent.offered()],
                "model": self._agent.model.name,
                "permissionMode": session.scope.permission_mode or "default",
                "uuid": str(uuid.uuid4()),
            }
        )


class StreamView:
    """hookline's own stream-json lines: one per event, hook run and tool result, as it
    happens (messages are Claude Code's ``assistant`` and ``user`` lines: ``ClaudeStream``)."""

    def __init__(self, emit: Callable[[dict[str, Any]], None]) -> None:
        self._emit = emit

    def __call__(self, item: object) -> None:
        if isinstance(item, HookEvent):
            line = {"type": "event", "event": item.name, "payload": item.to_payload()}
        elif isinstance(item, HookRun):
            line = {"type": "hook_run", **item.to_dict()}
        elif isinstance(item, ToolResult):
            line = {"type": "tool_call", **item.to_dict()}
        else:
            return
        self._emit(line)


def user_text(message: Mapping[str, Any]) -> str:
    """The text of one streamed message ``{"type": "user", "message": {"content": ...}}``."""
    body = message.get("message") if isinstance(message, Mapping) else None
    content = body.get("content") if isinstance(body, Mapping) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(b, Mapping) and b.get("type") == "text" for b in content
    ):
        return "\n".join(str(b.get("text", "")) for b in content)
    raise ConfigError(
        f"a streamed prompt must be a user message of text, not {message!r}",
        key="prompt",
        fix='yield {"type": "user", "message": {"role": "user", "content": "..."}} (hookline '
        "takes text content only)",
    )


#: How a hook that failed ended, in Claude Code's words (``outcome``): "error" for the rest.
_OUTCOMES: Final = {"timeout": "cancelled", "cancelled": "cancelled"}


def _hook_lines(run: HookRun, name: str) -> list[dict[str, Any]]:
    """A hook run as Claude Code's ``hook_started`` and ``hook_response`` lines (both sent when
    it has answered). hookline does not keep a hook's raw output, so ``output`` and ``stdout``
    are empty and ``stderr`` holds its error, if any."""
    head = {"type": "system", "hook_id": str(uuid.uuid4()), "hook_name": name}
    head["hook_event"] = run.event
    outcome = "success" if run.failure is None else _OUTCOMES.get(run.failure, "error")
    said: dict[str, Any] = {"output": "", "stdout": "", "stderr": run.error or ""}
    said["exit_code"] = int(outcome != "success")
    return [
        {**head, "subtype": "hook_started"},
        {**head, "subtype": "hook_response", **said, "outcome": outcome},
    ]


def _ids(session: Session) -> dict[str, str]:
    return {"session_id": session.id, "uuid": str(uuid.uuid4())}


def _skip(item: object) -> None:
    """No line for hookline's own events, hook runs and tool calls."""


def _message(
    kind: str, body: dict[str, Any], session: Session, parent: str | None
) -> dict[str, Any]:
    return {
        "type": kind,
        "message": body,
        "parent_tool_use_id": parent,
        "session_id": session.id,
        "uuid": str(uuid.uuid4()),
        "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }

"""``Tracing``: an observer that turns what an agent does into OpenTelemetry spans.

    invoke_agent hookline          a session, from its first step to its close (or a pause: a
    ├── hook UserPromptSubmit      resume is a span of its own): gen_ai.conversation.id
    ├── chat MODEL                 one model call: gen_ai.request.model, gen_ai.usage.*
    └── execute_tool NAME          one tool call, from its PreToolUse event to its result
        ├── hook PreToolUse        each hook run: hookline.hook.* (decision, reason, failure)
        └── hook PostToolUse

A hook run's span takes the time the engine gave the hook (it ends when the hook answered);
a model call's starts when the conversation's last message joined it (the prompt, or the
tool results) and ends with the reply. Strings a user could have put a secret in (reasons,
errors, a tool's input, hook names, which are often command lines) pass the same redactor as
the audit's; a tool's input is clipped as the audit clips it. Every span carries the policy
digest (the ``hookline.policy.digest`` attribute) when one is known (``hookline run`` sets it).

At the end of each run, a pause and the close, the provider is flushed, so a short-lived
process loses no span.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from time import time_ns
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from hookline._agent.observers import Observer
from hookline.audit._redact import Redactor, clip

if TYPE_CHECKING:
    from opentelemetry.trace import Span, TracerProvider

    from hookline._agent.messages import Message
    from hookline._agent.result import RunResult
    from hookline._agent.saved.state import Turn
    from hookline._agent.session import Session
    from hookline._events import HookEvent
    from hookline._hooks.engine import HookRun
    from hookline._tools.approvals import Approval, ApprovalRequest
    from hookline._tools.base import ToolResult
    from hookline._tools.pipeline import ToolStarted

#: Characters of a string kept in a span's tool input (the audit's preview length).
PREVIEW = 200
#: How long a flush at the end of a run may wait for the exporter.
FLUSH_MS = 5000


class Tracing(Observer):
    """Spans for each session, model call, tool call and hook run."""

    def __init__(
        self,
        provider: TracerProvider | None = None,
        *,
        redactor: Redactor | None = None,
        policy_digest: str | None = None,
    ) -> None:
        from hookline._support.version import __version__

        self.provider = provider if provider is not None else trace.get_tracer_provider()
        self.tracer = self.provider.get_tracer("hookline", __version__)
        self.redactor = redactor if redactor is not None else Redactor()
        #: The digest of the policy the agent runs under (``hookline policy``), on every span.
        self.policy_digest = policy_digest
        self._runs: dict[str, Span] = {}
        self._calls: dict[tuple[str, str], Span] = {}
        self._last_message: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"Tracing({self.provider!r})"

    # -- what an agent does -------------------------------------------------------------------

    def event(self, session: Session, event: HookEvent) -> None:
        run = self._run(session)
        tool_use_id = getattr(event, "tool_use_id", None)
        if tool_use_id is not None and (session.id, tool_use_id) not in self._calls:
            name = str(getattr(event, "tool_name", "") or "tool")
            self._calls[session.id, tool_use_id] = self._call_span(run, name, tool_use_id)

    def hook_run(self, session: Session, run: HookRun) -> None:
        parent = self._calls.get((session.id, run.tool_use_id or "")) or self._run(session)
        end = time_ns()
        attributes = hook_attributes(run, self._redacted)
        span = self._start(
            f"hook {run.event}", parent, attributes, start=end - round(run.duration_ms * 1e6)
        )
        hook_status(span, run, attributes)
        span.end(end_time=end)

    def tool_started(self, session: Session, started: ToolStarted) -> None:
        span = self._call(session, started.call.name, started.call.id)
        shown = clip(self.redactor.redact(started.input), PREVIEW)
        span.set_attribute("hookline.tool.input", json.dumps(shown, default=str))
        if started.origin:
            span.set_attribute("hookline.permission.origin", started.origin)

    def tool_finished(self, session: Session, result: ToolResult) -> None:
        key = (session.id, result.call.id)
        span = self._calls.pop(key, None)
        if span is None:  # no event of it was seen: it started as long ago as it took
            start = time_ns() - round(result.duration_ms * 1e6)
            span = self._call_span(self._run(session), result.call.name, result.call.id, start)
        _set(span, {
            "hookline.tool.status": result.status,
            "hookline.tool.duration_ms": round(result.duration_ms, 3),
            "hookline.permission": result.permission,
            "hookline.permission.origin": result.origin,
            "hookline.tool.reason": self._redacted(result.reason),
            "hookline.tool.approver": self._redacted(result.approver),
        })  # fmt: skip
        if result.status == "failed":
            span.set_status(Status(StatusCode.ERROR, self._redacted(result.reason) or "failed"))
        span.end()

    def approval_answered(
        self, session: Session, request: ApprovalRequest, answer: Approval
    ) -> None:
        span = self._calls.get((session.id, request.tool_use_id)) or self._run(session)
        said = {
            "hookline.approval.behavior": answer.permission,
            "hookline.approval.approver": self._redacted(answer.approver),
            "hookline.approval.message": self._redacted(answer.message),
            "hookline.approval.asked_by": self._redacted(request.source),
        }
        span.add_event("approval", {k: v for k, v in said.items() if v is not None})

    def model_called(self, session: Session, reply: Message, model: str) -> None:
        run = self._run(session)
        model_name = self._redacted(model) or "model"
        start = self._last_message.get(session.id)
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": model_name,
            "hookline.model.tool_calls": len(reply.tool_calls),
        }
        if reply.usage is not None:
            attributes["gen_ai.usage.input_tokens"] = reply.usage.input_tokens
            attributes["gen_ai.usage.output_tokens"] = reply.usage.output_tokens
        self._start(f"chat {model_name}", run, attributes, start=start).end()

    def message(self, session: Session, message: Message) -> None:
        self._run(session)
        self._last_message[session.id] = time_ns()

    def paused(self, session: Session, turn: Turn) -> None:
        self._end_run(session, {"hookline.stop_reason": "tool_deferred"})

    def run_ended(self, session: Session, turn: Turn, result: RunResult) -> None:
        """The session goes on (another prompt, its close): its span stays open; what ended
        is flushed."""
        span = self._runs.get(session.id)
        if span is not None:
            _set(span, {"hookline.stop_reason": result.stop_reason})
        self._flush()

    def closed(self, session: Session) -> None:
        self._end_run(session, {})

    # -- helpers ------------------------------------------------------------------------------

    def _run(self, session: Session) -> Span:
        """The session's span, started now if none is open."""
        span = self._runs.get(session.id)
        if span is None:
            scope = session.scope
            span = self._runs[session.id] = self._start("invoke_agent hookline", None, {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.conversation.id": session.id,
                "hookline.user": self._redacted(scope.user),
                "hookline.tenant": self._redacted(scope.tenant),
                "hookline.cwd": self._redacted(str(session.cwd)),
            })  # fmt: skip
        return span

    def _call(self, session: Session, tool: str, tool_use_id: str) -> Span:
        key = (session.id, tool_use_id)
        span = self._calls.get(key)
        if span is None:
            span = self._calls[key] = self._call_span(self._run(session), tool, tool_use_id)
        return span

    def _call_span(self, run: Span, tool: str, tool_use_id: str, start: int | None = None) -> Span:
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.id": tool_use_id,
        }
        return self._start(f"execute_tool {tool}", run, attributes, start=start)

    def _start(
        self,
        name: str,
        parent: Span | None,
        attributes: dict[str, Any],
        *,
        start: int | None = None,
    ) -> Span:
        context = trace.set_span_in_context(parent) if parent is not None else None
        said = {k: v for k, v in attributes.items() if v is not None and v != ""}
        if self.policy_digest:
            said["hookline.policy.digest"] = self.policy_digest
        return self.tracer.start_span(name, context=context, attributes=said, start_time=start)

    def _end_run(self, session: Session, attributes: dict[str, Any]) -> None:
        """End the session's span, and those of its calls still open (paused, cut off)."""
        for key in [key for key in self._calls if key[0] == session.id]:
            self._calls.pop(key).end()
        span = self._runs.pop(session.id, None)
        self._last_message.pop(session.id, None)
        if span is not None:
            _set(span, attributes)
            span.end()
        self._flush()

    def _flush(self) -> None:
        flush = getattr(self.provider, "force_flush", None)
        if flush is not None:
            flush(FLUSH_MS)

    def _redacted(self, value: str | None) -> str | None:
        if value is None:
            return None
        shown = self.redactor.redact(value)
        return shown if isinstance(shown, str) else str(shown)


def hook_attributes(run: HookRun, redacted: Callable[[str | None], str | None]) -> dict[str, Any]:
    """A hook run's span attributes, what a user could have put a secret in ``redacted``."""
    return {
        "hookline.hook.event": run.event,
        "hookline.hook.name": redacted(run.hook),
        "hookline.hook.source": redacted(run.source),
        "hookline.hook.handler": run.handler,
        "hookline.hook.kind": run.kind,
        "hookline.hook.decision": run.decision or "none",
        "hookline.hook.permission": run.answer.permission,
        "hookline.hook.reason": redacted(run.reason),
        "hookline.hook.failure": run.failure,
        "hookline.hook.error": redacted(run.error),
        "hookline.hook.duration_ms": round(run.duration_ms, 3),
        "hookline.hook.shadow": True if run.shadow else None,
    }


def hook_status(span: Span, run: HookRun, attributes: dict[str, Any]) -> None:
    """A failed hook run's span is an error, saying its failure kind and error."""
    if run.failure:
        error = attributes["hookline.hook.error"] or ""
        span.set_status(Status(StatusCode.ERROR, f"{run.failure}: {error}"))


def _set(span: Span, attributes: dict[str, Any]) -> None:
    for key, value in attributes.items():
        if value is not None and value != "":
            span.set_attribute(key, value)

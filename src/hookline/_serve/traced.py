"""OpenTelemetry traces of ``hookline serve``: a span for each hook call it judged, with a child
span for each hook run that judged it.

    serve PreToolUse               one served hook call, from its event read to its ruling:
    ├── hook PreToolUse            the host, the event, the tool, the decision and where it
    └── hook PermissionRequest     came from, the caller (agent, tenant, user), the policy digest

A call that waited for a person (``--asks inbox``: ``hookline._serve.asks``) is traced around
its wait: its span lasts until the answer and carries it (``hookline.live_ask.*``: the ask's
id, the answer, who gave it and how), and a call a session grant let run says so
(``hookline.session_grant``).

Tracing is on when it is for an agent (``hookline.telemetry``: the standard ``OTEL_*``
variables, with the SDK installed: ``pip install 'hookline[otel]'``); ``from_environment``
gives None otherwise, having imported nothing, and the app then does nothing more per call than
see that it has no ``ServedTracing``. With one, each request's rules (``hookline._serve.judge``:
the server's judge, or the floored pair) are wrapped by ``rules``: the wrapper times the
ruling and turns it into spans. Every string a person, a model or a host could have put a secret
in (the reason, the failure, a tool's input, hook names and errors, the caller's names) passes
the audit writer's redactor first, as the ``served`` record's do.

The host's hook runs are not timed one by one by the judge: each child span lasts as long as its
run took, the runs of one event side by side from the ruling's start, the next event's after
them (a PermissionRequest's hooks run after the PreToolUse's), none past the ruling's end.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from time import time_ns
from typing import TYPE_CHECKING, Any, Final

from hookline._serve.asks import Asking
from hookline.audit._redact import clip

if TYPE_CHECKING:
    from hookline._hooks.engine import HookRun
    from hookline._serve.gate import Caller
    from hookline._serve.judge import Rules, Ruling
    from hookline.audit._redact import Redactor

#: Characters of a string kept in a span's tool input (the audit's preview length).
PREVIEW: Final = 200
#: How long closing waits for the exporter to send what is left.
FLUSH_MS: Final = 5000


def from_environment(redactor: Redactor) -> ServedTracing | None:
    """The server's tracing, as the ``OTEL_*`` variables configure it (None: nothing asks for
    traces, or the SDK is missing, which a warning has said)."""
    from hookline.telemetry._environment import tracer_provider

    provider = tracer_provider()
    return None if provider is None else ServedTracing(provider, redactor)


class ServedTracing:
    """Spans for each served hook call into ``provider``, redacted by ``redactor``."""

    def __init__(self, provider: Any, redactor: Redactor) -> None:
        from hookline._support.version import __version__

        self.provider, self.redactor = provider, redactor
        self.tracer = provider.get_tracer("hookline", __version__)

    def rules(self, rules: Rules, *, host: str, caller: Caller, policy: str | None) -> Rules:
        """``rules``, traced: each ruling of this request a span with its hook runs."""
        return Traced(rules, self, host, caller, policy)

    def served(
        self,
        ruling: Ruling,
        payload: Mapping[str, Any],
        *,
        host: str,
        caller: Caller,
        policy: str | None,
        start: int,
        end: int,
        asking: Asking | None = None,
    ) -> None:
        """The spans of one ruling, from ``start`` to ``end`` (nanoseconds since the epoch);
        ``asking``: the request's live asks, when a person may have answered it."""
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind, Status, StatusCode

        decision = ruling.decision
        attributes = {
            "hookline.serve.host": host,
            "hookline.event": ruling.event,
            "gen_ai.tool.name": ruling.tool,
            "gen_ai.tool.call.id": ruling.tool_use_id,
            "gen_ai.conversation.id": ruling.session_id,
            "hookline.cwd": self._redacted(ruling.cwd),
            "hookline.decision": decision.label or "none",
            "hookline.permission": decision.permission,
            "hookline.permission.origin": ruling.origin,
            "hookline.reason": self._redacted(decision.reason),
            "hookline.failure": self._redacted(ruling.failure),
            "hookline.policy.digest": policy,
            "client.address": caller.peer,
            **{f"hookline.{k}": self._redacted(v) for k, v in _who(caller).items()},
            **self._asked(asking),
        }
        tool_input = payload.get("tool_input")
        if isinstance(tool_input, dict):
            shown = clip(self.redactor.redact(tool_input), PREVIEW)
            attributes["hookline.tool.input"] = json.dumps(shown, default=str)
        span = self.tracer.start_span(
            f"serve {ruling.event}",
            kind=SpanKind.SERVER,
            attributes=_said(attributes),
            start_time=start,
        )
        if ruling.failure:
            span.set_status(Status(StatusCode.ERROR, attributes["hookline.failure"] or ""))
        context = trace.set_span_in_context(span)
        for run, (begun, ended) in zip(ruling.runs, _placed(ruling.runs, start, end), strict=True):
            self._hook_run(run, context, policy, begun, ended)
        span.end(end_time=end)

    def failed(self, error: BaseException, *, host: str, start: int) -> None:
        """A span for a call whose ruling raised (a body that is no event): its error."""
        from opentelemetry.trace import SpanKind, Status, StatusCode

        attributes = {"hookline.serve.host": host}
        span = self.tracer.start_span(
            "serve", kind=SpanKind.SERVER, attributes=attributes, start_time=start
        )
        said = self._redacted(str(error)) or type(error).__name__
        span.set_status(Status(StatusCode.ERROR, said))
        span.end()

    def close(self) -> None:
        """Send what is left (the end of a server, or of a worker)."""
        flush = getattr(self.provider, "force_flush", None)
        if flush is not None:
            flush(FLUSH_MS)

    def _hook_run(
        self, run: HookRun, context: Any, policy: str | None, start: int, end: int
    ) -> None:
        from hookline.telemetry._spans import hook_attributes, hook_status

        attributes = hook_attributes(run, self._redacted)
        attributes["hookline.policy.digest"] = policy
        span = self.tracer.start_span(
            f"hook {run.event}", context=context, attributes=_said(attributes), start_time=start
        )
        hook_status(span, run, attributes)
        span.end(end_time=end)

    def _asked(self, asking: Asking | None) -> dict[str, Any]:
        """What a span says of the live ask its call waited on, or of the grant that let it
        run (nothing, for neither)."""
        if asking is None:
            return {}
        said: dict[str, Any] = {"hookline.session_grant": True if asking.granted else None}
        asked = asking.asked or {}
        for key in ("id", "permission", "via", "failure"):
            said[f"hookline.live_ask.{'answer' if key == 'permission' else key}"] = asked.get(key)
        said["hookline.live_ask.by"] = self._redacted(asked.get("by"))
        return said

    def _redacted(self, value: str | None) -> str | None:
        if value is None:
            return None
        shown = self.redactor.redact(value)
        return shown if isinstance(shown, str) else str(shown)


class Traced:
    """A request's rules whose rulings are traced (``Rules``)."""

    def __init__(
        self, rules: Rules, tracing: ServedTracing, host: str, caller: Caller, policy: str | None
    ) -> None:
        self.inner, self.tracing = rules, tracing
        self.host, self.caller, self.policy = host, caller, policy

    async def rule(self, payload: Mapping[str, Any]) -> Ruling:
        start = time_ns()
        try:
            ruling = await self.inner.rule(payload)
        except Exception as exc:
            self.tracing.failed(exc, host=self.host, start=start)
            raise
        self.tracing.served(
            ruling,
            payload,
            host=self.host,
            caller=self.caller,
            policy=self.policy,
            start=start,
            end=time_ns(),
            asking=self.inner if isinstance(self.inner, Asking) else None,
        )
        return ruling


def _who(caller: Caller) -> dict[str, str]:
    """The caller's names a span carries: ``agent`` (its token's), ``tenant``, ``user``."""
    return {k: v for k, v in caller.fields().items() if k in ("agent", "tenant", "user")}


def _placed(runs: tuple[HookRun, ...], start: int, end: int) -> list[tuple[int, int]]:
    """Each run's start and end: one event's runs side by side, the next event's after the
    longest of them, none past ``end``."""
    placed, at, event, longest = [], start, None, 0
    for run in runs:
        if run.event != event:
            at, event, longest = at + longest, run.event, 0
        took = max(0, round(run.duration_ms * 1e6))
        begun = min(at, end)
        placed.append((begun, min(begun + took, end)))
        longest = max(longest, took)
    return placed


def _said(attributes: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in attributes.items() if v is not None and v != ""}

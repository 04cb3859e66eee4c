"""``hookline.telemetry.Tracing``: the spans of a run, read back from the SDK's in-memory
exporter: their tree, their attributes (decision, reason, failure, policy digest), the hook
runs' times as the engine measured them, and secrets redacted as the audit redacts them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="pip install 'hookline[otel]'")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import hookline
from hookline import Agent, Decision, ScriptedModel
from hookline.telemetry import Tracing, tracing_of

SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
DIGEST = "ab" * 32


@hookline.tool
def echo(text: str) -> str:
    """Say it."""
    return text


def fails(event: Any) -> None:
    raise RuntimeError(f"cannot reach the vault with {SECRET}")


def traced(tmp_path: Path) -> tuple[list[ReadableSpan], str]:
    """A run of two calls (one a hook denies, quoting a secret) under ``Tracing``."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"id": "c1", "name": "echo", "input": {"text": "hi"}}]},
        {"tool_calls": [{"id": "c2", "name": "echo", "input": {"text": SECRET}}]},
        {"text": "done"},
    ]
    agent = Agent(ScriptedModel(script), tools=[echo], cwd=tmp_path)
    agent.registry.add(
        "PreToolUse",
        lambda e: Decision.deny(f"no keys: {e.tool_input['text']}") if "sk-" in str(e.tool_input)
        else None,
        name="no_keys",
    )  # fmt: skip
    agent.registry.add("PostToolUse", fails, name="vault", kind="observer")
    with agent.observe(Tracing(provider, policy_digest=DIGEST)):
        agent.run_sync("go")
    return list(exporter.get_finished_spans()), agent.session.id


def named(spans: list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [span for span in spans if span.name == name]


def test_a_run_is_a_tree_of_model_tool_and_hook_spans(tmp_path: Path) -> None:
    spans, session_id = traced(tmp_path)
    (run,) = named(spans, "invoke_agent hookline")
    assert run.parent is None and run.attributes["gen_ai.conversation.id"] == session_id
    assert run.attributes["hookline.stop_reason"] == "end_turn"
    models = [span for span in spans if span.name.startswith("chat ")]
    assert len(models) == 3
    assert all(span.parent.span_id == run.context.span_id for span in models)
    echoes = named(spans, "execute_tool echo")
    calls = {span.attributes["gen_ai.tool.call.id"]: span for span in echoes}
    assert calls["c1"].attributes["hookline.tool.status"] == "executed"
    assert calls["c2"].attributes["hookline.tool.status"] == "blocked"
    assert calls["c2"].attributes["hookline.permission"] == "deny"
    pre = {span.parent.span_id: span for span in named(spans, "hook PreToolUse")}
    denied = pre[calls["c2"].context.span_id]
    assert denied.attributes["hookline.hook.decision"] == "deny"
    assert denied.attributes["hookline.hook.name"] == "no_keys"
    assert pre[calls["c1"].context.span_id].attributes["hookline.hook.decision"] == "none"
    assert all(span.attributes["hookline.policy.digest"] == DIGEST for span in spans)


def test_a_failed_hook_is_an_error_span_with_its_failure_kind(tmp_path: Path) -> None:
    spans, _ = traced(tmp_path)
    (post,) = named(spans, "hook PostToolUse")  # only the call that ran has one
    assert post.attributes["hookline.hook.failure"] == "exception"
    assert post.status.status_code is StatusCode.ERROR
    assert "RuntimeError" in post.attributes["hookline.hook.error"]


def test_a_hook_span_takes_the_time_the_engine_measured(tmp_path: Path) -> None:
    spans, _ = traced(tmp_path)
    for span in named(spans, "hook PreToolUse"):
        took = span.attributes["hookline.hook.duration_ms"]
        assert abs((span.end_time - span.start_time) - took * 1e6) <= 1000  # rounding, in ns
        parent = next(s for s in spans if s.context.span_id == span.parent.span_id)
        assert parent.start_time <= span.start_time and span.end_time <= parent.end_time


def test_no_span_carries_a_secret_in_clear(tmp_path: Path) -> None:
    spans, _ = traced(tmp_path)
    values = [str(value) for span in spans for value in span.attributes.values()]
    values += [span.status.description or "" for span in spans]
    assert not [value for value in values if SECRET in value]
    redacted = [value for value in values if "sk-ant-api03-…[REDACTED]" in value]
    assert len(redacted) >= 3  # the deny reason, the vault's error, the call's input


def test_an_agent_untraced_has_no_tracing_observer(tmp_path: Path, monkeypatch) -> None:
    for name in ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
                 "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    agent = Agent(ScriptedModel([{"text": "ok"}]), cwd=tmp_path)
    assert tracing_of(agent) is None

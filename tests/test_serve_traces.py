"""``hookline serve``'s traces: a span per served hook call with its caller, decision, origin,
policy digest and tool input (redacted as the ``served`` record is), and a child span per hook
run that judged it; read back from the SDK's in-memory exporter, the calls made in process
(``served_traffic``). With tracing off, nothing of OpenTelemetry is imported."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="pip install 'hookline[otel]'")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from hookline._decisions import Decision
from hookline._hooks.engine import HookRun
from hookline._hooks.wire import answer_for
from hookline._serve import traced
from hookline._serve.app import asked_by
from hookline._serve.asks import Asks, AskSettings
from hookline._serve.gate import Caller
from hookline._serve.judge import Ruling
from hookline._serve.traced import ServedTracing
from hookline.audit._redact import Redactor
from hookline.audit._writer import JSONL_NAME, AuditWriter
from hookline.storage import SqliteStore
from served_traffic import SECRET, policy_folder, serve_traffic


@pytest.fixture
def traced_traffic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[ReadableSpan], list[dict[str, Any]]]:
    """The spans of the traffic, and its ``served`` records."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKLINE_MANAGED_SETTINGS_DIR", str(tmp_path / "managed"))
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    folder = policy_folder(tmp_path)
    serve_traffic(folder, tracing=ServedTracing(provider, Redactor(())))
    lines = (folder / ".hookline" / "state" / JSONL_NAME).read_text().splitlines()
    records = [r for r in map(json.loads, lines) if r["kind"] == "served"]
    return list(exporter.get_finished_spans()), records


def served_spans(spans: list[ReadableSpan]) -> list[ReadableSpan]:
    return sorted((s for s in spans if s.name.startswith("serve ")), key=lambda s: s.start_time)


def children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    return [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]


def test_each_served_call_is_a_span_saying_who_asked_and_what_was_decided(traced_traffic) -> None:
    spans, records = traced_traffic
    served = served_spans(spans)
    assert len(served) == len(records) == 6
    for span, record in zip(served, records, strict=True):
        said, data = dict(span.attributes or {}), record["data"]
        assert span.kind == SpanKind.SERVER and span.name == f"serve {record['event']}"
        assert said["hookline.serve.host"] == data["host"]
        assert said["gen_ai.tool.name"] == record["tool"]
        assert said["gen_ai.conversation.id"] == record["session_id"]
        assert said["hookline.permission"] == record["permission"]
        assert said["hookline.decision"] == record["decision"]
        assert said["hookline.permission.origin"] == data["origin"]
        assert said["hookline.policy.digest"] == data["policy"]
        assert (said["hookline.agent"], said["hookline.tenant"], said["hookline.user"]) == (
            data["agent"],
            data["tenant"],
            data["user"],
        )
        assert span.start_time is not None and span.end_time is not None
        assert span.start_time <= span.end_time
    write = dict(served[0].attributes or {})
    assert (write["hookline.serve.host"], write["hookline.decision"]) == ("claude-code", "deny")
    assert write["hookline.reason"] == records[0]["data"]["reason"]
    assert "[REDACTED]" in write["hookline.reason"]
    assert json.loads(str(write["hookline.tool.input"]))["content"] == "x"
    gemini = dict(served[2].attributes or {})
    assert (gemini["hookline.serve.host"], gemini["gen_ai.tool.name"]) == ("gemini", "Write")


def test_each_hook_run_that_judged_a_call_is_a_child_span_inside_it(traced_traffic) -> None:
    spans, records = traced_traffic
    for span, record in zip(served_spans(spans), records, strict=True):
        runs = children(spans, span)
        assert [r.name for r in runs] == [f"hook {h['event']}" for h in record["data"]["hooks"]]
        for run, kept in zip(runs, record["data"]["hooks"], strict=True):
            said = dict(run.attributes or {})
            assert said["hookline.hook.name"] == kept["hook"]
            assert said["hookline.hook.decision"] == kept.get("decision", "none")
            assert said["hookline.policy.digest"] == record["data"]["policy"]
            assert run.context.trace_id == span.context.trace_id
            assert span.start_time <= run.start_time <= run.end_time <= span.end_time
    deny = dict(children(spans, served_spans(spans)[0])[0].attributes or {})
    assert deny["hookline.hook.decision"] == "deny" and "[REDACTED]" in deny["hookline.hook.reason"]


def test_no_span_holds_a_secret_in_clear(traced_traffic) -> None:
    spans, _ = traced_traffic
    assert spans
    for span in spans:
        assert SECRET not in json.dumps(dict(span.attributes or {}), default=str)
        assert SECRET not in (span.status.description or "")


def test_a_ruling_that_raises_is_an_error_span(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    class Broken:
        async def rule(self, payload: Any) -> Any:
            raise ValueError(f"no event here, only {SECRET}")

    rules = ServedTracing(provider, Redactor(())).rules(
        Broken(), host="codex", caller=Caller("127.0.0.1"), policy=None
    )
    with pytest.raises(ValueError, match="no event here"):
        asyncio.run(rules.rule({}))
    (span,) = exporter.get_finished_spans()
    assert span.name == "serve" and span.status.status_code == StatusCode.ERROR
    assert SECRET not in (span.status.description or "")


def test_one_events_runs_side_by_side_the_next_events_after_them() -> None:
    def run(event: str, ms: float) -> HookRun:
        return HookRun(event, "h", "s", "gate", Decision(), ms)

    runs = (run("PreToolUse", 2), run("PreToolUse", 5), run("PermissionRequest", 1))
    start, end = 1_000_000_000, 1_000_000_000 + 7_000_000
    assert traced._placed(runs, start, end) == [
        (start, start + 2_000_000),
        (start, start + 5_000_000),
        (start + 5_000_000, start + 6_000_000),
    ]
    late = traced._placed((run("PreToolUse", 50),), start, end)  # never past the ruling's end
    assert late == [(start, end)]


def test_with_no_otel_variable_nothing_of_opentelemetry_is_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in [n for n in os.environ if n.startswith("OTEL_")]:
        monkeypatch.delenv(name)
    for name in [n for n in sys.modules if n == "opentelemetry" or n.startswith("opentelemetry.")]:
        monkeypatch.delitem(sys.modules, name)
    assert traced.from_environment(Redactor(())) is None
    assert not [n for n in sys.modules if n.startswith("opentelemetry")]


def test_a_call_that_waited_for_a_person_is_traced_to_the_answer_and_names_it(
    tmp_path: Path,
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    store = SqliteStore(tmp_path / "store.db")
    audit = AuditWriter(None, jsonl_path=tmp_path / JSONL_NAME)
    asks = Asks(AskSettings("inbox", 60.0, "deny"), store, audit)
    said = Decision("ask", "deploys need a person")
    ruling = Ruling("PreToolUse", said, answer_for("PreToolUse", said), origin="rule",
                    session_id="s1", tool="Bash", tool_use_id="t1")  # fmt: skip

    class Ruled:
        async def rule(self, payload: Any) -> Ruling:
            return ruling

    caller = Caller("127.0.0.1")
    rules = ServedTracing(provider, Redactor(())).rules(
        asks.around(Ruled(), caller, "claude-code"), host="claude-code", caller=caller, policy=None
    )

    async def go() -> tuple[Ruling, int]:
        waiting = asyncio.ensure_future(rules.rule({"tool_input": {"command": "deploy prod"}}))
        while not (found := await asyncio.to_thread(store.waiting_asks)):
            await asyncio.sleep(0.01)  # until the ask is in the store
        answered_at = time.time_ns()
        assert store.answer_ask(found[0].id, {"permission": "allow", "by": "ann", "via": "inbox"})
        asks.answered(found[0].id)
        return await waiting, answered_at

    done, answered_at = asyncio.run(go())
    assert done.decision.permission == "allow"
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert span.end_time is not None and span.end_time >= answered_at  # the wait is inside
    assert attributes["hookline.permission"] == "allow"
    assert attributes["hookline.live_ask.answer"] == "allow"
    assert (attributes["hookline.live_ask.by"], attributes["hookline.live_ask.via"]) == (
        "ann",
        "inbox",
    )
    assert store.get_ask(str(attributes["hookline.live_ask.id"])) is not None
    assert asked_by(rules) is not None and asked_by(asks.around(Ruled(), caller, "x")) is not None
    store.close()

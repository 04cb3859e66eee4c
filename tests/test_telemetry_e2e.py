"""Traces from ``hookline run`` as the ``OTEL_*`` variables configure them, received by a real
OTLP/HTTP endpoint on 127.0.0.1 (a small server here that decodes each export request with
opentelemetry-proto); a bad exporter is one line; without the SDK the run goes on, saying how
to install it."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="pip install 'hookline[otel]'")
pytest.importorskip("opentelemetry.proto", reason="pip install opentelemetry-proto")

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from cli_runner import HOOKLINE, src_env

SECRET = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
HOOKS = f"""
from hookline import Decision

def register(registry):
    registry.add("PreToolUse", lambda event: Decision.deny("keys stay out: {SECRET}"),
                 matcher="Read", name="no_env")
"""


class Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP traces endpoint: each request decoded and kept with its raw bytes."""

    server: _Server

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.received.append((self.path, self.headers.get("Content-Type"), body, request))
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    received: list[tuple[str, str | None, bytes, ExportTraceServiceRequest]]


@contextmanager
def receiver() -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), Receiver)
    server.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def run(project: Path, env: dict[str, str], *args: str, code: str | None = None):
    """``hookline run "read .env" --model rules --hooks hooks.py`` in ``project``, with no
    ``OTEL_*`` variable but ``env``'s; ``code`` runs first in the process, when given."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    argv = ["run", "read .env", "--model", "rules", "--hooks", "hooks.py", *args]
    command = [*HOOKLINE, *argv]
    if code is not None:
        start = f"{code}\nfrom hookline._cli.main import main\nmain({argv!r})"
        command = [sys.executable, "-c", start]
    with_src = src_env(env)
    full = {**{k: v for k, v in with_src.items() if not k.startswith("OTEL_")}, **env}
    assert set(clean) <= set(full)
    return subprocess.run(command, cwd=project, env=full, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".env").write_text(f"KEY={SECRET}\n")
    (tmp_path / "hooks.py").write_text(HOOKS)
    return tmp_path


def attributes(span: Any) -> dict[str, Any]:
    return {kv.key: getattr(kv.value, kv.value.WhichOneof("value")) for kv in span.attributes}


def test_a_run_sends_its_spans_to_the_otlp_endpoint(project: Path) -> None:
    with receiver() as server:
        done = run(
            project, {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_port}"}
        )
    assert done.returncode == 0, done.stderr
    assert server.received, "no export request reached the receiver"
    assert {(path, kind) for path, kind, _, _ in server.received} == {
        ("/v1/traces", "application/x-protobuf")
    }
    assert not [body for _, _, body, _ in server.received if SECRET.encode() in body]
    spans, resources = [], []
    for *_, request in server.received:
        for resource_spans in request.resource_spans:
            resources.append(attributes(resource_spans.resource))
            for scope in resource_spans.scope_spans:
                assert scope.scope.name == "hookline"
                spans.extend(scope.spans)
    assert all(resource["service.name"] == "hookline" for resource in resources)
    by_name = {span.name: span for span in spans}
    assert {"invoke_agent hookline", "execute_tool Read", "hook PreToolUse"} <= set(by_name)
    hook = attributes(by_name["hook PreToolUse"])
    assert hook["hookline.hook.decision"] == "deny" and hook["hookline.hook.name"] == "no_env"
    assert hook["hookline.hook.reason"] == "keys stay out: sk-ant-api03-…[REDACTED]"
    assert by_name["hook PreToolUse"].parent_span_id == by_name["execute_tool Read"].span_id
    assert len({span.trace_id for span in spans}) == 1
    hooks = str(project / "hooks.py")  # as run makes it: absolute
    policy = subprocess.run([*HOOKLINE, "policy", "--json", "--hooks", hooks], cwd=project,
                            env=src_env(), capture_output=True, text=True, timeout=60)  # fmt: skip
    digest = json.loads(policy.stdout)["policy"]
    assert {attributes(span).get("hookline.policy.digest") for span in spans} == {digest}


def test_an_exporter_hookline_cannot_make_is_one_line(project: Path) -> None:
    done = run(project, {"OTEL_TRACES_EXPORTER": "zipkin"})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "hookline: error: OTEL_TRACES_EXPORTER: 'zipkin' is not a span exporter hookline can "
        "make (fix: otlp, console or none)"
    ]


def test_without_the_sdk_the_run_goes_on_and_says_how_to_install_it(project: Path) -> None:
    with receiver() as server:
        endpoint = f"http://127.0.0.1:{server.server_port}"
        done = run(project, {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint},
                   code="import sys; sys.modules['opentelemetry.sdk'] = None")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "pip install 'hookline[otel]'" in done.stderr
    assert server.received == []

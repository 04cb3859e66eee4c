"""``hookline serve`` sends its traces where the ``OTEL_*`` variables say: a real server process
on 127.0.0.1 answers a call, and a real OTLP/HTTP endpoint (``test_telemetry_e2e``'s receiver)
gets the call's span and its hook run's, redacted, by the time the server has stopped; with
several workers too (each sends its own before it ends). An exporter hookline cannot make stops
the start in one line."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import httpx
import pytest

pytest.importorskip("opentelemetry.sdk.trace", reason="pip install 'hookline[otel]'")
pytest.importorskip("opentelemetry.proto", reason="pip install opentelemetry-proto")

from cli_runner import HOOKLINE, src_env
from served_traffic import SECRET, claude_call, policy_folder
from test_telemetry_e2e import attributes, receiver


def without_otel(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in src_env().items() if not k.startswith("OTEL_")}
    return {**env, **extra}


def serve_and_call(policy: Path, env: dict[str, str], *args: str) -> str:
    """``hookline serve`` for ``policy`` answers one Write (its hook denies it, quoting a key),
    then stops on SIGTERM; its stderr."""
    command = [*HOOKLINE, "serve", "--cwd", str(policy), "--port", "0", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)  # fmt: skip
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert " on " in first, process.stderr.read() if process.stderr else first
        where = first.split(" on ", 1)[1].strip()
        body = claude_call(policy, "d0bec9ad-936a-48ca-a213-75c3297749fd", "Write",
                           {"file_path": str(policy / "a.txt"), "content": "x"})  # fmt: skip
        answer = httpx.post(where, json=body, timeout=60).json()
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return err


@pytest.mark.parametrize("workers", [1, 2])
def test_a_served_call_reaches_the_otlp_endpoint_as_spans(tmp_path: Path, workers: int) -> None:
    policy = policy_folder(tmp_path)
    with receiver() as server:
        endpoint = f"http://127.0.0.1:{server.server_port}"
        env = without_otel({"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "HOME": str(tmp_path)})
        serve_and_call(policy, env, "--workers", str(workers))
    assert server.received, "no export request reached the receiver"
    assert not [body for _, _, body, _ in server.received if SECRET.encode() in body]
    spans, services = [], set()
    for *_, request in server.received:
        for resource_spans in request.resource_spans:
            services.add(attributes(resource_spans.resource)["service.name"])
            for scope in resource_spans.scope_spans:
                spans.extend(scope.spans)
    assert services == {"hookline"}
    (served,) = [span for span in spans if span.name == "serve PreToolUse"]
    said = attributes(served)
    assert (said["hookline.serve.host"], said["gen_ai.tool.name"]) == ("claude-code", "Write")
    assert said["hookline.decision"] == "deny" and "[REDACTED]" in said["hookline.reason"]
    assert len(said["hookline.policy.digest"]) == 64
    (hook,) = [span for span in spans if span.parent_span_id == served.span_id]
    assert hook.name == "hook PreToolUse"
    assert attributes(hook)["hookline.hook.name"].endswith("guard.py:no_writes")


def test_an_exporter_hookline_cannot_make_stops_the_start_in_one_line(tmp_path: Path) -> None:
    policy = policy_folder(tmp_path)
    env = without_otel({"OTEL_TRACES_EXPORTER": "zipkin", "HOME": str(tmp_path)})
    done = subprocess.run([*HOOKLINE, "serve", "--cwd", str(policy), "--port", "0"], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "hookline: error: OTEL_TRACES_EXPORTER: 'zipkin' is not a span exporter hookline can "
        "make (fix: otlp, console or none)"
    ]

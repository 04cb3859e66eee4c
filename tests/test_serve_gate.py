"""Who is asking, against a real server on 127.0.0.1: a request without a valid token is refused
unjudged and on record; a valid one is judged and its record names the agent, tenant, user and
session; revocation counts from the next request; a token over its rate is refused (on a clock
the test moves); Gemini CLI's installed line carries the token from its environment."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._hosts.gemini import GEMINI_PATH
from hookline._hosts.gemini_settings import command
from hookline._project import load_project
from hookline._serve import tokens
from hookline._serve.app import create_app
from hookline._serve.break_glass import break_glass
from hookline._serve.gate import Gate
from hookline._serve.judge import Judge
from hookline._serve.rate import Limits, Quiet
from hookline._serve.tokens import TokenFile, tokens_path
from hookline.audit._writer import JSONL_NAME, AuditWriter
from test_hosts_gemini import before_tool
from test_serve import payload, running, tool_call, work_folder

#: A PreToolUse hook for every tool that leaves a mark when it runs: proof of being judged.
#: (Beside the call's folder: the module is loaded once, by the first test that loads it.)
MARKER = """
from pathlib import Path

def mark(event):
    (Path(event.cwd).parent / "judged").write_text(event.tool_name)
    return None
"""
SESSION = "d0bec9ad-936a-48ca-a213-75c3297749fd"


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    hooks = {"PreToolUse": [{"hooks": [{"type": "python", "callable": "marker:mark"}]}]}
    (folder / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    (folder / "marker.py").write_text(MARKER)
    return folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return work_folder(tmp_path)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def alice(state: Path) -> str:
    return tokens.add(tokens_path(state), "alice-laptop", tenant="acme", user="alice")


def gated(state: Path, *, required: bool = False, clock: Clock | None = None) -> Gate:
    """The gate ``hookline serve`` builds, on ``clock`` (rate 1 a second, bursts of 2)."""
    at = clock or Clock()
    limits = Limits(1.0, 2, clock=at)
    return Gate(
        TokenFile(tokens_path(state)), required=required, limits=limits, quiet=Quiet(clock=at)
    )


@pytest.fixture
def endpoint(policy: Path, state: Path, alice: str) -> Iterator[str]:
    with running(policy, state, gate=gated(state), glass_dir=state) as where:
        yield where


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def read_call(workspace: Path) -> dict[str, Any]:
    return tool_call(workspace, "Read", {"file_path": str(workspace / "notes.txt")})


def records(state: Path) -> list[dict[str, Any]]:
    lines = (state / JSONL_NAME).read_text().splitlines()
    return [json.loads(line) for line in lines]


def denied(answer: httpx.Response) -> str:
    """The reason of a PreToolUse deny."""
    assert answer.status_code == 200, answer.text
    said = answer.json()["hookSpecificOutput"]
    assert said["permissionDecision"] == "deny", said
    reason: str = said["permissionDecisionReason"]
    return reason


def test_a_tool_call_without_a_token_is_denied_unjudged_and_on_record(
    endpoint: str, policy: Path, state: Path, workspace: Path, alice: str
) -> None:
    reason = denied(httpx.post(endpoint, json=read_call(workspace)))
    assert "refused this call: the hook sent no token" in reason
    assert not (policy.parent / "judged").exists()  # no hook of the policy ran
    [refused] = records(state)
    assert refused["kind"] == "refused"
    assert (refused["session_id"], refused["event"], refused["tool"]) == (
        SESSION,
        "PreToolUse",
        "Read",
    )
    assert refused["data"] == {
        "host": "claude-code",
        "reason": "missing",
        "why": "the hook sent no token (Authorization: Bearer)",
        "peer": "127.0.0.1",
    }
    assert alice not in (state / JSONL_NAME).read_text()


def test_a_valid_token_is_judged_and_its_record_says_who_asked(
    endpoint: str, policy: Path, state: Path, workspace: Path, alice: str
) -> None:
    answer = httpx.post(endpoint, json=read_call(workspace), headers=bearer(alice))
    assert answer.json()["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert (policy.parent / "judged").read_text() == "Read"
    [served] = records(state)
    assert served["kind"] == "served"
    assert served["session_id"] == SESSION
    said = served["data"]
    assert (said["host"], said["agent"], said["tenant"], said["user"], said["peer"]) == (
        "claude-code",
        "alice-laptop",
        "acme",
        "alice",
        "127.0.0.1",
    )
    assert alice not in (state / JSONL_NAME).read_text()


def test_a_revoked_token_is_refused_from_the_next_request_without_a_restart(
    endpoint: str, policy: Path, state: Path, workspace: Path, alice: str
) -> None:
    first = httpx.post(endpoint, json=read_call(workspace), headers=bearer(alice))
    assert first.json()["hookSpecificOutput"]["permissionDecision"] == "allow"
    (policy.parent / "judged").unlink()
    tokens.revoke(tokens_path(state), "alice-laptop")
    reason = denied(httpx.post(endpoint, json=read_call(workspace), headers=bearer(alice)))
    assert "the token alice-laptop was revoked" in reason
    assert not (policy.parent / "judged").exists()
    refused = records(state)[-1]
    assert (refused["kind"], refused["data"]["reason"], refused["data"]["agent"]) == (
        "refused",
        "revoked",
        "alice-laptop",
    )


def test_a_token_added_while_it_serves_counts_at_once(
    endpoint: str, state: Path, workspace: Path
) -> None:
    bob = tokens.add(tokens_path(state), "bob")
    answer = httpx.post(endpoint, json=read_call(workspace), headers=bearer(bob))
    assert answer.json()["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_token_the_server_never_made_is_refused(
    endpoint: str, policy: Path, state: Path, workspace: Path
) -> None:
    forged = "hl_" + "x" * 43
    reason = denied(httpx.post(endpoint, json=read_call(workspace), headers=bearer(forged)))
    assert "not one of this server's" in reason
    assert not (policy.parent / "judged").exists()
    assert records(state)[-1]["data"]["reason"] == "unknown"
    assert forged not in (state / JSONL_NAME).read_text()


def test_another_event_without_a_token_is_a_401_and_a_permission_request_a_deny(
    endpoint: str, workspace: Path
) -> None:
    stop = httpx.post(endpoint, json=payload(workspace, "Stop", stop_hook_active=False))
    assert stop.status_code == 401
    assert stop.headers["www-authenticate"] == "Bearer"
    asked = tool_call(workspace, "Bash", {"command": "touch x"})
    permission = httpx.post(endpoint, json={**asked, "hook_event_name": "PermissionRequest"})
    decision = permission.json()["hookSpecificOutput"]["decision"]
    assert decision["behavior"] == "deny"
    assert "no token" in decision["message"]
    junk = httpx.post(endpoint, content=b"not json")
    assert junk.status_code == 401


def test_a_token_over_its_rate_is_refused_until_the_bucket_fills_again(
    policy: Path, state: Path, workspace: Path, alice: str
) -> None:
    """Rate 1 a second, bursts of 2, on a clock the test moves: two calls pass, the third is
    refused (a tool call with a deny, another event with a 429); a second later one passes."""
    clock = Clock()
    with running(policy, state, gate=gated(state, clock=clock)) as where:
        for _ in range(2):
            httpx.post(where, json=read_call(workspace), headers=bearer(alice)).raise_for_status()
        reason = denied(httpx.post(where, json=read_call(workspace), headers=bearer(alice)))
        assert "alice-laptop is over its rate (1 calls a second, bursts of 2)" in reason
        stop = payload(workspace, "Stop", stop_hook_active=False)
        over = httpx.post(where, json=stop, headers=bearer(alice))
        assert (over.status_code, over.headers["retry-after"]) == (429, "1")
        clock.now += 1.0
        again = httpx.post(where, json=read_call(workspace), headers=bearer(alice))
        assert again.json()["hookSpecificOutput"]["permissionDecision"] == "allow"
    kinds = [r["kind"] for r in records(state)]
    assert kinds == ["served", "served", "refused", "served"]  # the second refusal, within
    # seconds of the first, is counted, not recorded
    assert records(state)[2]["data"]["reason"] == "rate-limited"


def test_a_flood_of_refusals_is_on_record_once_with_how_many_were_left_off(
    policy: Path, state: Path, workspace: Path, alice: str
) -> None:
    clock = Clock()
    with running(policy, state, gate=gated(state, clock=clock)) as where:
        for _ in range(4):
            denied(httpx.post(where, json=read_call(workspace)))
        clock.now += 10
        denied(httpx.post(where, json=read_call(workspace)))
    refused = [r["data"] for r in records(state)]
    assert [r["reason"] for r in refused] == ["missing", "missing"]
    assert "left_off" not in refused[0]
    assert refused[1]["left_off"] == 3


def test_a_server_beyond_loopback_refuses_a_call_without_a_token_even_with_none_made(
    policy: Path, state: Path, workspace: Path
) -> None:
    with running(policy, state, gate=gated(state, required=True)) as where:
        reason = denied(httpx.post(where, json=read_call(workspace)))
    assert "no token" in reason
    assert not (policy.parent / "judged").exists()


def test_a_loopback_server_with_no_tokens_answers_anyone_here_as_before(
    policy: Path, state: Path, workspace: Path
) -> None:
    with running(policy, state, gate=gated(state)) as where:
        answer = httpx.post(where, json=read_call(workspace))
    assert answer.json()["hookSpecificOutput"]["permissionDecision"] == "allow"
    [served] = records(state)
    assert served["data"]["peer"] == "127.0.0.1"
    assert "agent" not in served["data"]


def test_a_tokens_file_that_cannot_be_read_refuses_everyone(
    endpoint: str, policy: Path, state: Path, workspace: Path, alice: str
) -> None:
    tokens_path(state).write_text("{not json")
    reason = denied(httpx.post(endpoint, json=read_call(workspace), headers=bearer(alice)))
    assert "cannot read its tokens" in reason
    assert str(state) not in reason  # the detail is on record, not told to whoever asked
    refused = records(state)[-1]["data"]
    assert refused["reason"] == "unreadable"
    assert "cannot read the tokens" in refused["detail"]
    assert not (policy.parent / "judged").exists()


def test_health_answers_anyone_and_shows_a_glass_to_this_machine(
    endpoint: str, state: Path
) -> None:
    break_glass(state, 5, "testing")
    health = httpx.get(endpoint.removesuffix(CLAUDE_CODE_PATH) + "/health")
    assert health.status_code == 200
    assert health.json()["ok"] is True
    assert "break_glass" in health.json()  # from 127.0.0.1: this machine


def test_gemini_before_tool_without_a_token_is_a_deny_and_its_line_sends_the_token_from_env(
    endpoint: str, policy: Path, workspace: Path, alice: str
) -> None:
    """The exact line ``hookline install gemini --token-env`` writes, run by bash: without the
    variable, a deny Gemini reads (exit 0, nothing judged); with it, judged."""
    gemini = endpoint.removesuffix(CLAUDE_CODE_PATH) + GEMINI_PATH
    call = {**before_tool("read_file", {"file_path": "notes.txt"}), "cwd": str(workspace)}
    line = command(gemini, "GEMINI_CLI_HOOKLINE_TOKEN")
    env = {k: v for k, v in os.environ.items() if k != "GEMINI_CLI_HOOKLINE_TOKEN"}
    without = _run(line, call, env)
    assert without.returncode == 0, without.stderr
    said = json.loads(without.stdout)
    assert said["decision"] == "deny"
    assert "no token" in said["reason"]
    assert not (policy.parent / "judged").exists()
    with_token = _run(line, call, {**env, "GEMINI_CLI_HOOKLINE_TOKEN": alice})
    assert with_token.returncode == 0, with_token.stderr
    assert json.loads(with_token.stdout).get("decision") != "deny"
    assert (policy.parent / "judged").read_text() == "Read"
    after = {**call, "hook_event_name": "AfterTool", "tool_response": {"llmContent": "hi"}}
    assert _run(line, after, env).returncode == 2  # a 401: the line blocks


def _run(line: str, sent: dict[str, Any], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", line], input=json.dumps(sent), capture_output=True, text=True,
        env=env, timeout=60,
    )  # fmt: skip


def test_health_tells_a_caller_from_elsewhere_only_that_its_token_is_refused(
    policy: Path, state: Path, alice: str
) -> None:
    """From another machine (the test client's address is no loopback) a revoked token, an
    unknown one and none at all all read ``refused``; a valid one reads ``accepted``. Whether a
    token was ever the server's is told to this machine only."""
    old = tokens.add(tokens_path(state), "old-ci")
    assert tokens.revoke(tokens_path(state), "old-ci")
    with AuditWriter.open(state) as audit:
        app = create_app(Judge(load_project(policy, trust=True)), audit, gate=gated(state))
        with TestClient(app) as client:
            said = {
                name: client.get("/health", headers=headers).json()["token"]
                for name, headers in {
                    "revoked": bearer(old),
                    "unknown": bearer("hl_" + "x" * 43),
                    "none": {},
                    "valid": bearer(alice),
                }.items()
            }
    assert said == {
        "revoked": "refused",
        "unknown": "refused",
        "none": "refused",
        "valid": "accepted",
    }

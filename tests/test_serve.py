"""``hookline serve`` answering Claude Code HTTP hooks: a real uvicorn server on 127.0.0.1,
driven with httpx, with payloads shaped as the real CLI sends them."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import httpx
import pytest

from cli_runner import HOOKLINE, src_env
from hookline._project import load_project
from hookline._serve.app import CLAUDE_CODE_PATH, create_app
from hookline._serve.gate import Gate
from hookline._serve.judge import Judge
from hookline._serve.projects import Projects
from hookline._serve.server import Tls, bind, server, url
from hookline._trust import TrustStore
from hookline.audit._redact import Redactor
from hookline.audit._writer import JSONL_NAME, AuditWriter

#: The policy folder's Python hooks (named in its settings as "guard:...").
GUARD = """
from hookline import Decision

def no_writes(event):
    return Decision.deny("no writes through this server")

def touch_is_fine(event):
    if event.tool_input.get("command", "").startswith("touch "):
        return Decision.allow("touch is fine here")
    return None

def keep_going(event):
    return Decision.block("the tests have not run yet")

def broken(event):
    raise RuntimeError("the guard has a bug")
"""

SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "python", "callable": "guard:no_writes"}]},
            {"matcher": "Glob", "hooks": [{"type": "python", "callable": "guard:broken"}]},
            {
                "matcher": "Edit",
                "hooks": [{"type": "command", "command": "echo 'edits are frozen' >&2; exit 2"}],
            },
        ],
        "PermissionRequest": [
            {"matcher": "Bash", "hooks": [{"type": "python", "callable": "guard:touch_is_fine"}]}
        ],
        "Stop": [{"hooks": [{"type": "python", "callable": "guard:keep_going"}]}],
    }
}


def policy_folder(root: Path) -> Path:
    """The server's own folder: settings with a Python hook and a command hook."""
    folder = root / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    (folder / "guard.py").write_text(GUARD)
    return folder


def work_folder(root: Path) -> Path:
    """Where the agent works (the payloads' cwd)."""
    folder = root / "work"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n")
    return folder


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    return policy_folder(tmp_path)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return work_folder(tmp_path)


@contextmanager
def running(
    policy: Path,
    state: Path,
    *,
    audit: AuditWriter | None = None,
    glass_dir: Path | None = None,
    gate: Gate | None = None,
    tls: Tls | None = None,
    trust: TrustStore | None = None,
) -> Iterator[str]:
    """A real server for ``policy`` on a free port of 127.0.0.1, stopped on exit: its URL.
    ``audit``: where it records, left open (default: ``state``'s audit log, closed on exit);
    ``glass_dir``: where it looks for a broken glass; ``gate``: who may ask (default: anyone);
    ``tls``: HTTPS with this certificate; ``trust``: the trust store whose trusted projects
    tighten the server's policy (None: no project is looked for)."""
    project = load_project(policy, trust=True)
    owned = AuditWriter.open(state, redactor=Redactor(project.redact)) if audit is None else None
    with owned or nullcontext(audit) as audit:
        assert audit is not None
        sock = bind("127.0.0.1", 0)
        projects = None if trust is None else Projects(audit, own=str(policy), store=trust)
        app = create_app(Judge(project), audit, glass_dir=glass_dir, gate=gate, projects=projects)
        served = server(app, tls=tls)
        thread = threading.Thread(target=served.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            while not served.started:  # readiness, polled (the test's timeout bounds it)
                assert thread.is_alive(), "the server stopped before it started"
                time.sleep(0.01)
            yield url(sock, tls=tls is not None) + CLAUDE_CODE_PATH
        finally:
            served.should_exit = True
            thread.join(timeout=30)
            sock.close()
    assert not thread.is_alive(), "the server did not stop"


@pytest.fixture
def endpoint(policy: Path, tmp_path: Path) -> Iterator[str]:
    with running(policy, tmp_path / "state") as where:
        yield where


def payload(cwd: Path, event: str = "PreToolUse", **fields: Any) -> dict[str, Any]:
    """A hook event as Claude Code 2.1.332 sends it (the observed payloads' fields)."""
    common = {
        "session_id": "d0bec9ad-936a-48ca-a213-75c3297749fd",
        "transcript_path": "/home/u/.claude/projects/p/d0bec9ad.jsonl",
        "cwd": str(cwd),
        "prompt_id": "f267b3ef-a3d7-40f2-9d49-cb4f8c52f502",
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": event,
    }
    return {**common, **fields}


def tool_call(cwd: Path, name: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    return payload(cwd, tool_name=name, tool_input=tool_input, tool_use_id=f"toolu_{name}")


def decided(answer: httpx.Response) -> dict[str, Any]:
    """The PreToolUse part of a 200 answer."""
    assert answer.status_code == 200, answer.text
    specific: dict[str, Any] = answer.json()["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    return specific


def test_a_recursive_delete_of_root_is_denied_by_the_dangerous_tier(
    endpoint: str, workspace: Path
) -> None:
    said = decided(httpx.post(endpoint, json=tool_call(workspace, "Bash", {"command": "rm -rf /"})))
    assert said["permissionDecision"] == "deny"
    assert "dangerous tier" in said["permissionDecisionReason"]


def test_a_read_is_answered_as_the_engine_answers_it_in_process(
    endpoint: str, policy: Path, workspace: Path
) -> None:
    """One function, two transports: the HTTP answer is the in-process ruling's."""
    asked = tool_call(workspace, "Read", {"file_path": str(workspace / "notes.txt")})
    over_http = httpx.post(endpoint, json=asked)
    in_process = _in_process(policy, asked)
    assert over_http.json() == in_process
    assert decided(over_http)["permissionDecision"] == "allow"  # the read-only tier's


def _in_process(policy: Path, asked: dict[str, Any]) -> dict[str, Any]:
    import asyncio

    async def rule() -> dict[str, Any]:
        judge = Judge(load_project(policy, trust=True))
        try:
            return (await judge.rule(asked)).answer
        finally:
            await judge.aclose()

    return asyncio.run(rule())


def test_a_python_hook_of_the_servers_settings_denies_a_write(
    endpoint: str, workspace: Path
) -> None:
    asked = tool_call(workspace, "Write", {"file_path": str(workspace / "x.txt"), "content": "x"})
    said = decided(httpx.post(endpoint, json=asked))
    assert said["permissionDecision"] == "deny"
    assert said["permissionDecisionReason"] == "no writes through this server"
    assert not (workspace / "x.txt").exists()


def test_a_command_hook_that_exits_2_blocks(endpoint: str, workspace: Path) -> None:
    edit = {"file_path": str(workspace / "notes.txt"), "old_string": "hello", "new_string": "bye"}
    said = decided(httpx.post(endpoint, json=tool_call(workspace, "Edit", edit)))
    assert said["permissionDecision"] == "deny"
    assert "edits are frozen" in said["permissionDecisionReason"]
    assert (workspace / "notes.txt").read_text() == "hello\n"


def test_a_hook_that_raises_fails_closed(endpoint: str, workspace: Path) -> None:
    said = decided(httpx.post(endpoint, json=tool_call(workspace, "Glob", {"pattern": "*.txt"})))
    assert said["permissionDecision"] == "deny"
    assert "'guard:broken' raised an exception (RuntimeError" in said["permissionDecisionReason"]


def test_a_tool_call_that_cannot_be_read_is_denied_saying_why(
    endpoint: str, workspace: Path
) -> None:
    asked = payload(workspace, tool_name="Bash", tool_input="rm -rf /", tool_use_id="toolu_1")
    said = decided(httpx.post(endpoint, json=asked))
    assert said["permissionDecision"] == "deny"
    assert "tool_input" in said["permissionDecisionReason"]


def test_a_permission_request_for_a_dangerous_command_is_denied(
    endpoint: str, workspace: Path
) -> None:
    asked = payload(
        workspace, "PermissionRequest", tool_name="Bash", tool_input={"command": "rm -rf /"}
    )
    answer = httpx.post(endpoint, json=asked)
    assert answer.status_code == 200
    verdict = answer.json()["hookSpecificOutput"]["decision"]
    assert verdict["behavior"] == "deny"
    assert "dangerous tier" in verdict["message"]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"{not json", "the body is not JSON"),
        (b"[1, 2]", "must be a JSON object, not list"),
        (b'{"session_id": "s"}', "no hook_event_name"),
    ],
)
def test_a_body_that_is_not_an_event_is_a_400_with_one_line(
    endpoint: str, body: bytes, said: str
) -> None:
    answer = httpx.post(endpoint, content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 400
    assert said in answer.text
    assert answer.text.count("\n") == 1


def test_every_ruling_is_in_the_audit_with_session_cwd_and_tool(
    policy: Path, workspace: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with running(policy, state) as where:
        httpx.post(where, json=tool_call(workspace, "Bash", {"command": "rm -rf /"}))
        httpx.post(where, json=tool_call(workspace, "Glob", {"pattern": "*"}))
    lines = (state / JSONL_NAME).read_text().splitlines()
    records = [json.loads(line) for line in lines]
    served = [r for r in records if r["kind"] == "served"]
    assert [(r["tool"], r["permission"]) for r in served] == [("Bash", "deny"), ("Glob", "deny")]
    for r in served:
        assert r["session_id"] == "d0bec9ad-936a-48ca-a213-75c3297749fd"
        assert r["event"] == "PreToolUse"
        assert r["data"]["cwd"] == str(workspace)
        assert r["data"]["host"] == "claude-code"
    assert served[0]["data"]["input"] == {"command": "rm -rf /"}
    assert "dangerous tier" in served[0]["data"]["reason"]
    assert [r["data"]["origin"] for r in served] == ["tier", "hook_failure"]
    assert served[0]["data"]["ignored"] == ["effort"]  # what hookline's event has no field for


def test_a_change_no_rule_allows_is_handed_to_the_hosts_prompt_as_ask(
    endpoint: str, workspace: Path
) -> None:
    said = decided(httpx.post(endpoint, json=tool_call(workspace, "Bash", {"command": "mv a b"})))
    assert said["permissionDecision"] == "ask"
    assert "mv" in said["permissionDecisionReason"]


def test_an_ask_the_servers_permission_request_hook_allows_is_allowed(
    endpoint: str, workspace: Path
) -> None:
    """As in a run: the permission layer asks, the PermissionRequest hooks answer first."""
    asked = tool_call(workspace, "Bash", {"command": "touch made.txt"})
    said = decided(httpx.post(endpoint, json=asked))
    assert said["permissionDecision"] == "allow"
    assert not (workspace / "made.txt").exists()


def test_a_tool_hookline_does_not_have_is_left_to_the_host(endpoint: str, workspace: Path) -> None:
    answer = httpx.post(endpoint, json=tool_call(workspace, "TodoWrite", {"todos": []}))
    assert answer.status_code == 200
    assert answer.json() == {}


def test_a_stop_hook_of_the_server_blocks_in_the_stop_pattern(
    endpoint: str, workspace: Path
) -> None:
    stop = payload(workspace, "Stop", stop_hook_active=False, last_assistant_message="done")
    answer = httpx.post(endpoint, json=stop)
    assert answer.status_code == 200
    assert answer.json() == {"decision": "block", "reason": "the tests have not run yet"}


def test_an_event_hookline_does_not_run_is_a_400_naming_it(endpoint: str, workspace: Path) -> None:
    answer = httpx.post(endpoint, json=payload(workspace, "MessageDisplay", turn_id="t"))
    assert answer.status_code == 400
    assert "MessageDisplay" in answer.text


def test_a_ruling_that_cannot_be_recorded_is_a_deny(
    policy: Path, workspace: Path, tmp_path: Path
) -> None:
    """Nothing is let through unrecorded: the audit file cannot be written (its folder is a
    file), so even a harmless Read is refused, saying why."""
    (tmp_path / "blocked").write_text("a file where the audit's folder would be")
    audit = AuditWriter(None, jsonl_path=tmp_path / "blocked" / JSONL_NAME)
    with running(policy, tmp_path / "state", audit=audit) as where:
        asked = tool_call(workspace, "Read", {"file_path": str(workspace / "notes.txt")})
        said = decided(httpx.post(where, json=asked))
    assert said["permissionDecision"] == "deny"
    assert "its audit record could not be written" in said["permissionDecisionReason"]


def test_the_command_serves_until_sigterm_and_records_what_it_answered(
    policy: Path, workspace: Path, tmp_path: Path
) -> None:
    """``hookline serve --port 0``: the first line says where; SIGTERM stops it quietly, with
    what it answered on record."""
    state = tmp_path / "state"
    args = [*HOOKLINE, "serve", "--cwd", str(policy), "--port", "0", "--state-dir", str(state)]
    process = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=src_env()
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # blocks until it listens (the test's timeout bounds it)
        where = first.split(" on ", 1)[1].strip()
        assert where.startswith("http://127.0.0.1:") and where.endswith(CLAUDE_CODE_PATH)
        asked = tool_call(workspace, "Bash", {"command": "rm -rf /"})
        assert decided(httpx.post(where, json=asked))["permissionDecision"] == "deny"
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert err.strip().splitlines()[-1] == "hookline serve: stopped"
    records = [json.loads(line) for line in (state / JSONL_NAME).read_text().splitlines()]
    assert [(r["kind"], r["tool"], r["permission"]) for r in records] == [
        ("served", "Bash", "deny")
    ]

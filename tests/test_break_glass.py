"""Break-glass: ask-only for a bounded time, on a real server and, when none answers, from the
stand-in that ``hookline break-glass`` runs; nothing denied, nothing allowed unasked, all on
record, and enforcement back once it is over, mended, or unreadable."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from cli_runner import HOOKLINE, hookline, src_env
from hookline._hosts.codex import CODEX_PATH
from hookline._hosts.codex_settings import command as codex_command
from hookline._hosts.cursor import CURSOR_PATH
from hookline._hosts.cursor_settings import command as cursor_command
from hookline._hosts.gemini import GEMINI_PATH
from hookline._hosts.gemini_settings import command
from hookline._serve.break_glass import Glass, break_glass, glass_path, holding, mend
from hookline.audit._writer import JSONL_NAME
from test_hosts_gemini import before_tool
from test_serve import decided, policy_folder, running, tool_call, work_folder
from test_serve_codex import patch, pre_tool_use
from test_serve_cursor import shell as cursor_shell
from test_serve_gemini import hook, in_

RM_ROOT = {"command": "rm -rf /"}


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    return policy_folder(tmp_path)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return work_folder(tmp_path)


def write_file(workspace: Path) -> dict[str, Any]:
    """A Gemini CLI write, as its BeforeTool hook is sent it."""
    args = {"file_path": str(workspace / "x.txt"), "content": "x"}
    return in_(workspace, before_tool("write_file", args))


def codex_patch(workspace: Path) -> dict[str, Any]:
    return pre_tool_use(workspace, "apply_patch", patch("*** Add File: x.txt", "+x"))


def _records(state: Path) -> list[dict[str, Any]]:
    lines = (state / JSONL_NAME).read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_under_a_glass_the_server_asks_where_it_would_deny_and_records_what_it_decided(
    policy: Path, workspace: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    asked = tool_call(workspace, "Bash", RM_ROOT)
    with running(policy, state, glass_dir=state) as endpoint:
        assert decided(httpx.post(endpoint, json=asked))["permissionDecision"] == "deny"
        break_glass(state, 5, "the policy refuses everything")
        said = decided(httpx.post(endpoint, json=asked))
        assert said["permissionDecision"] == "ask"
        assert "break-glass" in said["permissionDecisionReason"]
        stop = httpx.post(endpoint, json={**asked, "hook_event_name": "Stop"})
        assert stop.json() == {}  # the policy's Stop hook would block: the host's way instead
        mend(state)
        assert decided(httpx.post(endpoint, json=asked))["permissionDecision"] == "deny"
    served = [r for r in _records(state) if r["kind"] == "served" and r["event"] == "PreToolUse"]
    assert [r["permission"] for r in served] == ["deny", "deny", "deny"]  # what it decided
    assert ["break_glass" in r["data"] for r in served] == [False, True, False]
    answered = served[1]["data"]["break_glass"]["answer"]
    assert answered["hookSpecificOutput"]["permissionDecision"] == "ask"


@pytest.mark.parametrize("glass", ["expired", "garbled"])
def test_a_glass_that_is_over_or_unreadable_is_no_glass(
    policy: Path, workspace: Path, tmp_path: Path, glass: str
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    over = {"until": time.time() - 1, "by": "me", "reason": "x"}
    glass_path(state).write_text(json.dumps(over) if glass == "expired" else "{not json")
    assert holding(state) is None
    with running(policy, state, glass_dir=state) as endpoint:
        said = decided(httpx.post(endpoint, json=tool_call(workspace, "Bash", RM_ROOT)))
    assert said["permissionDecision"] == "deny"


def test_with_no_server_the_command_stands_in_asking_until_the_glass_is_mended(
    tmp_path: Path, workspace: Path
) -> None:
    state, port = tmp_path / "state", _free_port()
    glass = subprocess.Popen(
        [*HOOKLINE, "break-glass", "--minutes", "30", "--reason", "server down",
         "--state-dir", str(state), "--port", str(port)],
        env=src_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        health = _when_listening(port, glass)
        assert health == {"ok": True, "stand_in": True, "until": holding(state).until}  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}/claude-code"
        said = decided(httpx.post(url, json=tool_call(workspace, "Bash", RM_ROOT)))
        assert said["permissionDecision"] == "ask"
        prompt = httpx.post(url, json={"hook_event_name": "UserPromptSubmit", "prompt": "hi"})
        assert prompt.json() == {}
        gemini = hook(command(f"http://127.0.0.1:{port}{GEMINI_PATH}"), write_file(workspace))
        assert (gemini.returncode, json.loads(gemini.stdout)) == (0, {})  # Gemini's own prompt
        codex = hook(codex_command(f"http://127.0.0.1:{port}{CODEX_PATH}"), codex_patch(workspace))
        assert (codex.returncode, json.loads(codex.stdout)) == (0, {})  # Codex's own approvals
        cursor = hook(
            cursor_command(f"http://127.0.0.1:{port}{CURSOR_PATH}"),
            cursor_shell(workspace, "rm -rf /"),
        )
        assert (cursor.returncode, json.loads(cursor.stdout)) == (0, {})  # Cursor's own settings
        ended = hookline("break-glass", "--end", "--state-dir", str(state))
        assert ended.returncode == 0, ended.stderr
        out, err = glass.communicate(timeout=60)  # it sees the glass mended and stops
    finally:
        glass.kill()
    assert glass.returncode == 0, err
    assert "standing in" in out
    assert not glass_path(state).exists()
    kinds = [(r["kind"], r.get("decision")) for r in _records(state)]
    assert kinds[0] == ("break_glass", "broken")
    assert ("served", "none") in kinds
    assert kinds[-1] == ("break_glass", "mended")
    assert kinds.count(("break_glass", "mended")) == 1


def test_a_running_server_is_told_and_the_command_returns(
    policy: Path, workspace: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with running(policy, state, glass_dir=state) as endpoint:
        port = httpx.URL(endpoint).port
        done = hookline("break-glass", "--state-dir", str(state), "--port", str(port))
        assert done.returncode == 0, done.stderr
        assert "answers ask-only" in done.stdout
        said = decided(httpx.post(endpoint, json=tool_call(workspace, "Bash", RM_ROOT)))
    assert said["permissionDecision"] == "ask"
    assert holding(state) is not None


@pytest.mark.parametrize("minutes", ["0", "241", "-5"])
def test_a_glass_longer_than_allowed_or_of_no_time_is_one_line_and_not_broken(
    tmp_path: Path, minutes: str
) -> None:
    state = tmp_path / "state"
    done = hookline("break-glass", "--minutes", minutes, "--state-dir", str(state))
    assert done.returncode == 2
    assert "--minutes" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not glass_path(state).exists()


def test_ending_when_no_glass_is_broken_says_so(tmp_path: Path) -> None:
    done = hookline("break-glass", "--end", "--state-dir", str(tmp_path / "state"))
    assert done.returncode == 0, done.stderr
    assert "no glass is broken" in done.stdout


def test_a_glass_is_seen_by_the_very_next_look_and_gone_once_mended(tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert holding(state) is None  # no folder yet
    state.mkdir()
    assert holding(state) is None  # no file: the usual look
    broken = break_glass(state, 5, "locked out")
    assert holding(state) == broken
    assert holding(str(state)) == broken  # the server's folder, as a string
    mend(state)
    assert holding(state) is None
    glass_path(state).mkdir()  # a glass that is not a file is no glass
    assert holding(state) is None


def test_a_glass_answers_ask_for_a_tool_call_and_nothing_for_the_rest() -> None:
    glass = Glass(time.time() + 60, "me", "testing")
    pre = glass.answer("PreToolUse")["hookSpecificOutput"]
    assert pre["permissionDecision"] == "ask"
    assert "testing" in pre["permissionDecisionReason"]
    for event in ("PermissionRequest", "UserPromptSubmit", "Stop", "PostToolUse"):
        assert glass.answer(event) == {}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _when_listening(port: int, process: subprocess.Popen[str]) -> Any:
    """The stand-in's health answer, once it listens (polled; the test's timeout bounds it)."""
    while True:
        assert process.poll() is None, process.communicate()
        try:
            return httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).json()
        except httpx.ConnectError:
            time.sleep(0.05)

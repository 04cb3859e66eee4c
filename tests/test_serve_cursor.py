"""``hookline serve`` answering Cursor's hooks on ``POST /cursor``: a real server on 127.0.0.1,
driven with httpx and with the exact command ``hookline install cursor`` writes, run by
``sh -c`` as Cursor runs a command hook (the event on stdin, the answer read from stdout, exit
2 a deny). Payloads as in test_hosts_cursor."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hookline._hosts.claude_code import CLAUDE_CODE_PATH
from hookline._hosts.cursor import CURSOR_PATH
from hookline._hosts.cursor_settings import UNREACHABLE, command
from hookline._serve.break_glass import break_glass
from hookline.audit._writer import JSONL_NAME
from test_hosts_cursor import cursor_payload
from test_serve import policy_folder, running, work_folder


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return work_folder(tmp_path)


@pytest.fixture
def endpoint(tmp_path: Path) -> Iterator[str]:
    with running(policy_folder(tmp_path), tmp_path / "state") as where:
        yield where.removesuffix(CLAUDE_CODE_PATH) + CURSOR_PATH


def shell(workspace: Path, line: str) -> dict[str, Any]:
    return cursor_payload(
        "beforeShellExecution", command=line, cwd=str(workspace), workspace_roots=[str(workspace)]
    )


def answered(endpoint: str, sent: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(endpoint, json=sent)
    assert answer.status_code == 200, answer.text
    said: dict[str, Any] = answer.json()
    return said


def test_a_recursive_delete_of_root_is_denied_by_the_dangerous_tier(
    endpoint: str, workspace: Path
) -> None:
    said = answered(endpoint, shell(workspace, "rm -rf /"))
    assert said["permission"] == "deny" and "dangerous tier" in said["agent_message"]


def test_a_command_hookline_would_ask_about_is_denied_saying_the_way_out(
    endpoint: str, workspace: Path
) -> None:
    said = answered(endpoint, shell(workspace, "mv notes.txt b"))
    assert said["permission"] == "deny" and "ask does not hold" in said["agent_message"]
    assert (workspace / "notes.txt").exists()


def test_a_read_of_hooklines_own_state_is_denied_and_one_in_the_project_allowed(
    endpoint: str, workspace: Path
) -> None:
    private = workspace / ".hookline" / "audit.key"
    sent = cursor_payload("beforeReadFile", file_path=str(private), content="k", attachments=[],
                          workspace_roots=[str(workspace)])  # fmt: skip
    assert answered(endpoint, sent)["permission"] == "deny"
    notes = {**sent, "file_path": str(workspace / "notes.txt"), "content": "hello\n"}
    assert answered(endpoint, notes) == {"permission": "allow"}


def test_a_prompt_passes_a_stop_gets_the_hooks_follow_up_and_other_events_nothing(
    endpoint: str, workspace: Path
) -> None:
    roots = {"workspace_roots": [str(workspace)]}
    prompt = cursor_payload("beforeSubmitPrompt", prompt="hi", attachments=[], **roots)
    assert answered(endpoint, prompt) == {"continue": True}
    stop = cursor_payload("stop", status="completed", loop_count=0, **roots)
    assert answered(endpoint, stop) == {"followup_message": "the tests have not run yet"}
    thought = cursor_payload("afterAgentThought", text="hmm", **roots)
    assert answered(endpoint, thought) == {}


def test_a_tool_call_that_cannot_be_read_is_denied_saying_why(
    endpoint: str, workspace: Path
) -> None:
    sent = cursor_payload("beforeShellExecution", cwd=str(workspace))
    said = answered(endpoint, sent)
    assert said["permission"] == "deny" and "no command" in said["agent_message"]


def test_every_ruling_is_on_record_as_cursors(tmp_path: Path, workspace: Path) -> None:
    state = tmp_path / "state"
    with running(policy_folder(tmp_path), state) as where:
        answered(where.removesuffix(CLAUDE_CODE_PATH) + CURSOR_PATH, shell(workspace, "mv a b"))
    records = [json.loads(line) for line in (state / JSONL_NAME).read_text().splitlines()]
    served = [r for r in records if r["kind"] == "served"]
    assert [(r["data"]["host"], r["tool"], r["decision"]) for r in served] == [
        ("cursor", "Bash", "deny")
    ]


def test_under_a_glass_cursors_own_settings_decide(tmp_path: Path, workspace: Path) -> None:
    state = tmp_path / "state"
    with running(policy_folder(tmp_path), state, glass_dir=state) as where:
        break_glass(state, 5, "the policy refuses everything")
        said = answered(
            where.removesuffix(CLAUDE_CODE_PATH) + CURSOR_PATH, shell(workspace, "rm -rf /")
        )
        assert said == {}


def hook(line: str, sent: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """The installed command run as Cursor runs a command hook: the event's JSON on stdin."""
    return subprocess.run(
        ["sh", "-c", line], input=json.dumps(sent), capture_output=True, text=True, timeout=60
    )


def test_the_installed_curl_command_answers_or_denies_with_exit_2(
    endpoint: str, workspace: Path
) -> None:
    ran = hook(command(endpoint), shell(workspace, "rm -rf /"))
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["permission"] == "deny"
    refused = hook(command(endpoint), {"not": "an event"})
    assert (refused.returncode, refused.stdout) == (2, "")
    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}{CURSOR_PATH}"
        ran = hook(command(closed), shell(workspace, "ls"))
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr.rstrip().endswith(UNREACHABLE)

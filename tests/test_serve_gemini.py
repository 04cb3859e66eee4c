"""``hookline serve`` answering Gemini CLI's hooks on ``POST /gemini``: a real server on
127.0.0.1, driven with httpx and with the exact command ``hookline install gemini`` writes, run
by bash as Gemini runs it (the event on stdin, the answer read from stdout, exit 2 a block).

Payloads follow Gemini CLI's ``packages/core/src/hooks/types.ts`` (``HookInput``,
``BeforeToolInput``, ``AfterToolInput``, ``BeforeAgentInput``); the answers are read as its
``DefaultHookOutput`` reads them (``decision`` "deny" or "block" blocks, ``reason``).
"""

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
from hookline._hosts.gemini import GEMINI_PATH
from hookline._hosts.gemini_settings import UNREACHABLE, command
from hookline._serve.break_glass import break_glass
from hookline.audit._writer import JSONL_NAME
from test_hosts_gemini import before_tool, gemini_payload
from test_serve import policy_folder, running, work_folder


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    return policy_folder(tmp_path)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return work_folder(tmp_path)


@pytest.fixture
def endpoint(policy: Path, tmp_path: Path) -> Iterator[str]:
    with running(policy, tmp_path / "state") as where:
        yield where.removesuffix(CLAUDE_CODE_PATH) + GEMINI_PATH


def in_(workspace: Path, sent: dict[str, Any]) -> dict[str, Any]:
    return {**sent, "cwd": str(workspace)}


def answered(endpoint: str, sent: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(endpoint, json=sent)
    assert answer.status_code == 200, answer.text
    said: dict[str, Any] = answer.json()
    return said


def test_a_recursive_delete_of_root_is_denied_by_the_dangerous_tier(
    endpoint: str, workspace: Path
) -> None:
    sent = in_(workspace, before_tool("run_shell_command", {"command": "rm -rf /"}))
    said = answered(endpoint, sent)
    assert said["decision"] == "deny"
    assert "dangerous tier" in said["reason"]


def test_a_read_in_the_workspace_is_allowed(endpoint: str, workspace: Path) -> None:
    sent = in_(workspace, before_tool("read_file", {"file_path": str(workspace / "notes.txt")}))
    assert answered(endpoint, sent)["decision"] == "allow"


def test_a_python_hook_of_the_servers_settings_denies_a_write(
    endpoint: str, workspace: Path
) -> None:
    args = {"file_path": str(workspace / "x.txt"), "content": "x"}
    said = answered(endpoint, in_(workspace, before_tool("write_file", args)))
    assert said == {"decision": "deny", "reason": "no writes through this server"}
    assert not (workspace / "x.txt").exists()


def test_a_change_no_rule_allows_is_denied_saying_the_way_out(
    endpoint: str, workspace: Path
) -> None:
    """Claude Code would be asked (``ask``); Gemini CLI would run the tool on a hook's ask."""
    sent = in_(workspace, before_tool("run_shell_command", {"command": "mv notes.txt b"}))
    said = answered(endpoint, sent)
    assert said["decision"] == "deny"
    assert "cannot ask" in said["reason"] and "mv" in said["reason"]
    assert (workspace / "notes.txt").exists()


def test_a_tool_call_that_cannot_be_read_is_denied_saying_why(
    endpoint: str, workspace: Path
) -> None:
    sent = in_(workspace, gemini_payload("BeforeTool", tool_input={"command": "ls"}))
    said = answered(endpoint, sent)
    assert said["decision"] == "deny"
    assert "could not judge" in said["reason"] and "tool_name" in said["reason"]


def test_an_after_tool_and_a_prompt_are_judged_and_other_events_get_no_decision(
    endpoint: str, workspace: Path
) -> None:
    args = {"file_path": str(workspace / "notes.txt")}
    response = {"llmContent": "hello\n", "returnDisplay": "hello\n"}
    after = gemini_payload(
        "AfterTool", tool_name="read_file", tool_input=args, tool_response=response
    )
    assert answered(endpoint, in_(workspace, after)) == {}
    assert answered(endpoint, in_(workspace, gemini_payload("BeforeAgent", prompt="hi"))) == {}
    assert (
        answered(endpoint, in_(workspace, gemini_payload("SessionStart", source="startup"))) == {}
    )


def test_every_ruling_is_on_record_as_gemini_s_with_the_answer_given(
    policy: Path, workspace: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with running(policy, state) as where:
        endpoint = where.removesuffix(CLAUDE_CODE_PATH) + GEMINI_PATH
        answered(endpoint, in_(workspace, before_tool("run_shell_command", {"command": "mv a b"})))
    served = [json.loads(line) for line in (state / JSONL_NAME).read_text().splitlines()]
    served = [r for r in served if r["kind"] == "served"]
    assert [(r["data"]["host"], r["tool"], r["decision"]) for r in served] == [
        ("gemini", "Bash", "deny")
    ]
    assert served[0]["data"]["input"]["command"] == "mv a b"
    assert "cannot ask" in served[0]["data"]["reason"]


def test_under_a_glass_geminis_own_confirmation_decides(
    policy: Path, workspace: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    with running(policy, state, glass_dir=state) as where:
        endpoint = where.removesuffix(CLAUDE_CODE_PATH) + GEMINI_PATH
        break_glass(state, 5, "the policy refuses everything")
        sent = in_(workspace, before_tool("write_file", {"file_path": "x", "content": "x"}))
        assert answered(endpoint, sent) == {}


def hook(line: str, sent: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """The installed command run as Gemini CLI runs a command hook: by bash, the event's JSON
    on stdin."""
    return subprocess.run(
        ["bash", "-c", line], input=json.dumps(sent), capture_output=True, text=True, timeout=60
    )


def test_the_installed_curl_command_prints_the_servers_answer(
    endpoint: str, workspace: Path
) -> None:
    args = {"file_path": str(workspace / "x.txt"), "content": "x"}
    ran = hook(command(endpoint), in_(workspace, before_tool("write_file", args)))
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout) == {"decision": "deny", "reason": "no writes through this server"}


def test_the_installed_curl_command_blocks_with_exit_2_when_the_server_refuses_the_body(
    endpoint: str,
) -> None:
    ran = hook(command(endpoint), {"not": "an event"})
    assert (ran.returncode, ran.stdout) == (2, "")
    assert UNREACHABLE in ran.stderr


def test_the_installed_curl_command_blocks_with_exit_2_when_no_server_listens(
    workspace: Path,
) -> None:
    with socket.socket() as sock:  # a port nothing listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}{GEMINI_PATH}"
        ran = hook(command(closed), in_(workspace, before_tool("read_file", {"file_path": "a"})))
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr.rstrip().endswith(UNREACHABLE)


def test_after_agent_is_judged_as_stop_and_its_block_keeps_gemini_working(
    endpoint: str, workspace: Path
) -> None:
    """The policy's Stop hook blocks: Gemini reads ``decision`` deny on AfterAgent as "go on,
    with the reason as the next prompt"."""
    sent = gemini_payload(
        "AfterAgent", prompt="fix it", prompt_response="done", stop_hook_active=False
    )
    said = answered(endpoint, in_(workspace, sent))
    assert said == {"decision": "deny", "reason": "the tests have not run yet"}


SESSION_GUARD = """
import json
from pathlib import Path

from hookline import Decision

SEEN = Path(__file__).parent / "seen.jsonl"


def seen(event):
    with SEEN.open("a") as file:
        file.write(json.dumps(event.model_dump(mode="json")) + "\\n")


def context(event):
    seen(event)
    return Decision.context(f"this session began from {event.source}")


def keep_history(event):
    seen(event)
    return Decision.deny("keep the whole history")


def noted(event):
    seen(event)
"""


def test_geminis_session_events_run_the_policys_hooks_and_get_what_gemini_reads(
    tmp_path: Path, workspace: Path
) -> None:
    folder = tmp_path / "sessions"
    (folder / ".claude").mkdir(parents=True)
    (folder / "session_guard.py").write_text(SESSION_GUARD)
    hooks = {
        "SessionStart": [{"hooks": [{"type": "python", "callable": "session_guard:context"}]}],
        "PreCompact": [{"hooks": [{"type": "python", "callable": "session_guard:keep_history"}]}],
        "Notification": [{"hooks": [{"type": "python", "callable": "session_guard:noted"}]}],
        "SessionEnd": [{"hooks": [{"type": "python", "callable": "session_guard:noted"}]}],
    }
    (folder / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    with running(folder, tmp_path / "state") as where:
        endpoint = where.removesuffix(CLAUDE_CODE_PATH) + GEMINI_PATH

        def ask(name: str, **fields: Any) -> dict[str, Any]:
            return answered(endpoint, in_(workspace, gemini_payload(name, **fields)))

        started = ask("SessionStart", source="resume")
        compacting = ask("PreCompress", trigger="auto")
        notice = {"notification_type": "ToolPermission", "message": "allow?", "details": {}}
        noticed = ask("Notification", **notice)
        ended = ask("SessionEnd", reason="exit")
        model = ask("BeforeModel", llm_request={"model": "gemini-2.5-pro", "contents": []})
    context = started["hookSpecificOutput"]["additionalContext"]
    assert context == "this session began from resume"
    assert compacting == noticed == ended == model == {}  # Gemini cannot skip a compaction
    seen = [json.loads(line) for line in (folder / "seen.jsonl").read_text().splitlines()]
    said = [(e["hook_event_name"], e.get("notification_type"), e.get("reason")) for e in seen]
    assert said == [
        ("SessionStart", None, None),
        ("PreCompact", None, None),
        ("Notification", "permission_prompt", None),
        ("SessionEnd", None, "other"),
    ]

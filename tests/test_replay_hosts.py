"""``hookline replay`` over Codex's rollouts and Gemini CLI's chats: files the real CLIs wrote
(driven offline, as their hook tests drive them), and lines taken from such files, read back
as the events their calls were and judged by a policy; no tool runs again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import codex_cli
import gemini_cli
from hookline._cli.main import cli
from hookline._replay import read

DENY_TOUCH = {"permissions": {"deny": ["Bash(touch:*)"]}}


def replayed(session: Path, policy: Path) -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["replay", str(session), "--cwd", str(policy), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def policy_folder(tmp_path: Path, settings: dict[str, Any]) -> Path:
    folder = tmp_path / "policy"
    (folder / ".claude").mkdir(parents=True)
    (folder / ".claude" / "settings.json").write_text(json.dumps(settings))
    return folder


#: A Codex rollout's lines, as Codex 0.171.0 wrote them (the fields replay reads, and one more).
CODEX_LINES = [
    {"type": "session_meta", "payload": {"id": "cx-1", "cwd": "/work/shop"}},
    {"type": "event_msg", "payload": {"type": "item_completed", "item": {"type": "UserMessage",
     "content": [{"type": "text", "text": "Run the command.", "text_elements": []}]}}},
    {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
     "arguments": "{\"cmd\": \"touch made.txt\"}", "call_id": "call_1"}},
    {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_1",
     "output": "Chunk ID: 1\nWall time: 0.02 seconds\nProcess exited with code 0\nOutput:\n"}},
    {"type": "turn_context", "payload": {"cwd": "/work/shop/sub"}},
    {"type": "response_item", "payload": {"type": "local_shell_call", "call_id": "call_2",
     "action": {"type": "exec", "command": ["bash", "-lc", "rm -rf cache"]}}},
    {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_2",
     "output": "blocked by a hook"}},
]  # fmt: skip

#: A Gemini CLI chat's lines, as Gemini CLI 0.61.0 wrote them (a message written twice).
GEMINI_LINES = [
    {"sessionId": "gm-1", "projectHash": "6cb7", "startTime": "2026-12-07T17:26:13.268Z",
     "kind": "main"},
    {"$set": {"messages": [{"id": "m0", "type": "user",
     "content": [{"text": "<session_context>\nThis is the Gemini CLI.</session_context>"}]}]}},
    {"id": "m1", "type": "user", "content": [{"text": "Run the command."}]},
    {"id": "m2", "type": "gemini", "content": ""},
    {"id": "m2", "type": "gemini", "content": "", "toolCalls": [{"id": "run_shell_command__1",
     "name": "run_shell_command", "args": {"command": "touch made.txt"}, "status": "success"}]},
    {"id": "m3", "type": "gemini", "content": "", "toolCalls": [{"id": "write_file__2",
     "name": "write_file", "args": {"file_path": "/work/shop/notes.md", "content": "hi"},
     "status": "cancelled"}]},
]  # fmt: skip


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_a_codex_rollout_is_read_as_its_prompts_and_calls(tmp_path: Path) -> None:
    events = read(write_lines(tmp_path / "rollout-x.jsonl", CODEX_LINES))
    assert [(e.event, e.session_id, e.cwd) for e in events] == [
        ("UserPromptSubmit", "cx-1", "/work/shop"),
        ("PreToolUse", "cx-1", "/work/shop"),
        ("PreToolUse", "cx-1", "/work/shop/sub"),  # the turn's cwd from there on
    ]
    prompt, touch, rm = events
    assert prompt.prompt == "Run the command."
    assert (touch.tool_name, touch.tool_input, touch.outcome) == (
        "Bash",
        {"command": "touch made.txt"},
        "allowed",
    )
    assert (rm.tool_input, rm.outcome) == ({"command": "rm -rf cache"}, "error")


def test_a_gemini_chat_is_read_as_hookline_reads_geminis_hooks(tmp_path: Path) -> None:
    chats = tmp_path / "tmp" / "shop" / "chats"
    (chats.parent).mkdir(parents=True)
    (chats.parent / ".project_root").write_text("/work/shop\n")
    events = read(write_lines(chats / "session-x.jsonl", GEMINI_LINES))
    assert [(e.event, e.cwd) for e in events] == [
        ("UserPromptSubmit", "/work/shop"),
        ("PreToolUse", "/work/shop"),
        ("PreToolUse", "/work/shop"),
    ]
    _, touch, write = events  # the session's context is no prompt; m2 is one call, not two
    assert (touch.tool_name, touch.tool_input, touch.outcome) == (
        "Bash",
        {"command": "touch made.txt"},
        "allowed",
    )
    assert write.tool_name == "Write" and write.tool_input["file_path"] == "/work/shop/notes.md"
    assert write.outcome == "denied"  # a person cancelled it


@codex_cli.needs_codex
def test_a_real_codex_session_replayed_denies_what_ran_and_runs_nothing(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    done = codex_cli.run(
        "touch made.txt", work=work, codex_home=tmp_path / "codex", hooks={}, keep=True
    )
    assert done.returncode == 0, done.stderr
    assert (work / "made.txt").exists()  # it ran when it was recorded
    (work / "made.txt").unlink()
    [rollout] = (tmp_path / "codex" / "sessions").rglob("rollout-*.jsonl")
    report = replayed(rollout, policy_folder(tmp_path, DENY_TOUCH))
    [changed] = report["events"]
    assert changed["tool_input"] == {"command": "touch made.txt"}
    assert (changed["was"], changed["change"]) == ("allow", "newly-denied")
    assert not (work / "made.txt").exists()


@gemini_cli.needs_gemini
def test_a_real_gemini_session_replayed_denies_what_ran_and_runs_nothing(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    done = gemini_cli.run("touch made.txt", work=work, home=tmp_path / "home", hooks={})
    assert done.returncode == 0, done.stderr
    assert (work / "made.txt").exists()
    (work / "made.txt").unlink()
    [chat] = (tmp_path / "home" / ".gemini").rglob("chats/session-*.jsonl")
    report = replayed(chat, policy_folder(tmp_path, DENY_TOUCH))
    [changed] = report["events"]
    assert changed["tool_input"] == {"command": "touch made.txt"}
    assert (changed["was"], changed["change"]) == ("allow", "newly-denied")
    assert not (work / "made.txt").exists()


@pytest.mark.parametrize("lines", [CODEX_LINES, GEMINI_LINES])
def test_a_folder_of_sessions_is_searched_below(
    tmp_path: Path, lines: list[dict[str, Any]]
) -> None:
    write_lines(tmp_path / "sessions" / "2026" / "12" / "07" / "one.jsonl", lines)
    report = replayed(tmp_path / "sessions", policy_folder(tmp_path, DENY_TOUCH))
    assert report["totals"]["events"] == 3
    assert report["totals"]["by_change"].get("newly-denied") == 1


def test_what_a_real_server_judged_is_replayed_from_its_audit_marked_redacted(
    tmp_path: Path,
) -> None:
    """``hookline serve``'s audit is the history of every host it guards: each served call,
    its input as the audit keeps it (redacted), judged again by another policy."""
    import httpx

    from test_serve import running, tool_call

    work = tmp_path / "work"
    work.mkdir()
    served = policy_folder(tmp_path, {"permissions": {"allow": ["Bash(touch:*)"]}})
    state = tmp_path / "server" / ".hookline" / "state"
    with running(served, state) as endpoint:
        for command in ("touch made.txt", "cat notes.txt"):
            answer = httpx.post(endpoint, json=tool_call(work, "Bash", {"command": command}))
            assert answer.status_code == 200, answer.text
    strict = tmp_path / "strict"
    (strict / ".claude").mkdir(parents=True)
    (strict / ".claude" / "settings.json").write_text(json.dumps(DENY_TOUCH))
    report = replayed(tmp_path / "server", strict)
    [changed] = report["events"]
    assert changed["tool_input"] == {"command": "touch made.txt"}
    assert (changed["was"], changed["change"]) == ("allow", "newly-denied")
    assert changed["redacted_input"] is True
    assert not (work / "made.txt").exists()  # nothing ran, then or now

"""What hooks print is seen where it belongs: output that looks like a decision but is not one
is a failure on record (run result, audit, CLI), and a Python hook's ``print`` never corrupts
the CLI's JSON output. Real ``hookline`` processes, real command hooks."""

from __future__ import annotations

import io
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline._cli.own_stdout import hook_output_to_stderr
from hookline._cli.render import emit_json

#: What a hook prints when it means to deny but its JSON is broken (issue 12).
BROKEN = '{"hookSpecificOutput": {"permissionDecision": "deny", oops'
SCRIPT = {
    "turns": [
        {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "touch ran.txt"}}]},
        {"text": "done"},
    ]
}


def project(tmp_path: Path, command: str, *, on_failure: str | None = None) -> Path:
    """A project whose PreToolUse Bash hook is ``command``; the script runs ``touch ran.txt``."""
    handler: dict[str, Any] = {"type": "command", "command": command}
    if on_failure:
        handler["onFailure"] = on_failure
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    return tmp_path


def run(cwd: Path, *extra: str) -> Any:
    done = hookline(
        "run", "go", "--model", "scripted:script.json", "--permission-mode", "bypassPermissions",
        *extra, cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def pre_tool_use_run(out: dict[str, Any]) -> dict[str, Any]:
    (found,) = [r for r in out["hook_runs"] if r["event"] == "PreToolUse"]
    return found


def audited_failure(cwd: Path) -> tuple[str, str]:
    """The failure kind and error the audit log keeps for the PreToolUse hook."""
    done = hookline("audit", "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    # the hook run rides in its call's record (tool_started: the call went ahead)
    runs = [h for r in rows for h in r["data"].get("hooks", ())]
    (run,) = [h for h in runs if h["event"] == "PreToolUse"]
    return run["failure"], run["error"]


def test_broken_json_on_exit_0_fails_open_as_in_claude_code_but_is_on_record(tmp_path):
    cwd = project(tmp_path, f"printf %s {shlex.quote(BROKEN)}")
    out = json.loads(run(cwd, "--output-format", "json").stdout)
    assert (cwd / "ran.txt").exists()  # fail-open: Claude Code reads it as plain text
    record = pre_tool_use_run(out)
    assert (record["failure"], record["decision"]) == ("invalid_json", None)
    assert "starts like JSON but does not parse" in record["error"]
    assert "oops" in record["error"]
    assert audited_failure(cwd) == ("invalid_json", record["error"])


def test_broken_json_is_shown_in_the_text_output(tmp_path):
    cwd = project(tmp_path, f"printf %s {shlex.quote(BROKEN)}")
    lines = run(cwd).stdout.splitlines()
    (shown,) = [line for line in lines if "invalid_json" in line]
    assert shown.startswith("  PreToolUse hook ")
    assert "starts like JSON but does not parse" in shown


def test_broken_json_fails_closed_where_the_hook_says_so(tmp_path):
    cwd = project(tmp_path, f"printf %s {shlex.quote(BROKEN)}", on_failure="block")
    out = json.loads(run(cwd, "--output-format", "json").stdout)
    assert not (cwd / "ran.txt").exists()
    record = pre_tool_use_run(out)
    assert (record["failure"], record["decision"]) == ("invalid_json", "deny")


@pytest.mark.parametrize("on_failure", [None, "block"])
def test_exit_2_beside_broken_json_blocks_with_stderr_and_records_the_json(tmp_path, on_failure):
    command = f"printf %s {shlex.quote(BROKEN)}; echo 'not here' >&2; exit 2"
    cwd = project(tmp_path, command, on_failure=on_failure)
    out = json.loads(run(cwd, "--output-format", "json").stdout)
    assert not (cwd / "ran.txt").exists()
    record = pre_tool_use_run(out)
    assert (record["failure"], record["decision"]) == ("invalid_json", "deny")
    assert record["reason"] == f"[{command}]: not here\n"  # the block's own reason, either way
    (call,) = out["tool_calls"]
    assert "not here" in call["reason"]


# -- a Python hook's print() and the JSON output formats ---------------------------------------

NOISY_HOOKS = """
import os, sys
from hookline import Decision

def loud(event):
    print("GARBAGE-inline {not json")
    return None

def loud_in_a_thread(event):
    print("GARBAGE-thread", end="")  # no newline: still buffered when the run ends
    return None

async def loud_child(event):
    os.system("echo GARBAGE-child")  # a child process writing to the stdout it inherits
    return Decision.context("checked")

def register(registry):
    registry.add("PreToolUse", loud, name="loud", failure="open")
    registry.add("PreToolUse", loud_in_a_thread, name="loud_in_a_thread", timeout=5,
                 failure="open")
    registry.add("PostToolUse", loud_child, name="loud_child")
"""
GARBAGE = ("GARBAGE-inline {not json", "GARBAGE-thread", "GARBAGE-child")


def noisy_project(tmp_path: Path) -> Path:
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    (tmp_path / "hooks.py").write_text(NOISY_HOOKS)
    return tmp_path


def test_hook_prints_go_to_stderr_in_json_output(tmp_path):
    cwd = noisy_project(tmp_path)
    done = run(cwd, "--hooks", "hooks.py", "--output-format", "json")
    out = json.loads(done.stdout)  # the whole of stdout is the one JSON object
    assert out["final_text"] == "done"
    assert {r["hook"] for r in out["hook_runs"]} >= {"loud", "loud_in_a_thread", "loud_child"}
    for garbage in GARBAGE:
        assert garbage in done.stderr
        assert garbage not in done.stdout


def test_hook_prints_go_to_stderr_in_stream_json_output(tmp_path):
    cwd = noisy_project(tmp_path)
    done = run(cwd, "--hooks", "hooks.py", "--output-format", "stream-json")
    lines = [json.loads(line) for line in done.stdout.splitlines()]  # each line is JSON
    assert lines[-1]["type"] == "result"
    ran = {line["hook"] for line in lines if line["type"] == "hook_run"}
    assert ran >= {"loud", "loud_in_a_thread", "loud_child"}
    for garbage in GARBAGE:
        assert garbage in done.stderr


def test_hook_prints_stay_on_stdout_in_text_output(tmp_path):
    """Text output is for people: what a hook prints is shown where it was printed."""
    cwd = noisy_project(tmp_path)
    done = run(cwd, "--hooks", "hooks.py")
    assert "GARBAGE-inline {not json" in done.stdout


def test_hook_prints_go_to_stderr_in_hooks_test(tmp_path):
    cwd = noisy_project(tmp_path)
    done = hookline(
        "hooks", "test", "--hooks", "hooks.py", "--tool", "Bash", "--input", '{"command": "ls"}',
        cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [r["hook"] for r in out["runs"]] == ["loud", "loud_in_a_thread"]
    assert "GARBAGE-inline {not json" in done.stderr


def test_without_file_descriptors_sys_stdout_alone_is_diverted(monkeypatch):
    """A captured stdout (a test's, an embedding program's) has no descriptor to move."""
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    with hook_output_to_stderr():
        print("from a hook")
        emit_json({"type": "result"})
    emit_json({"type": "after"})
    assert out.getvalue().splitlines() == ['{"type":"result"}', '{"type":"after"}']
    assert err.getvalue() == "from a hook\n"

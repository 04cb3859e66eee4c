"""The command line, run for real in a subprocess: outputs, and one-line errors for bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_runner import hookline

SCRIPT = {
    "turns": [
        {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "echo hi > made.txt"}}]},
        {"tool_calls": [{"id": "t2", "name": "Read", "input": {"file_path": "notes.txt"}}]},
        {"text": "all done"},
    ]
}

HOOKS_FILE = """
from hookline import Decision, HookMatcher

async def no_shell(input_data, tool_use_id, context):
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no shell here: use Read"}}

HOOKS = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[no_shell])]}

def register(registry):
    registry.add("PostToolUse", lambda e: Decision.context("read ok"), matcher="Read",
                 name="note_reads")
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    (tmp_path / "hooks.py").write_text(HOOKS_FILE)
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    return tmp_path


def run_json(project: Path, *extra: str) -> dict:
    done = hookline(
        "run", "tidy up", "--model", "scripted:script.json", "--hooks", "hooks.py",
        "--output-format", "json", *extra, cwd=project,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_json_output_reports_calls_as_executed_and_hook_runs(project: Path) -> None:
    out = run_json(project)
    assert out["stop_reason"] == "end_turn"
    assert out["final_text"] == "all done"
    bash, read = out["tool_calls"]
    assert (bash["name"], bash["status"], bash["reason"]) == (
        "Bash",
        "blocked",
        "no shell here: use Read",
    )
    assert not (project / "made.txt").exists()  # the denied command never ran
    assert read["status"] == "executed"
    assert read["input"] == {"file_path": str(project / "notes.txt")}
    assert read["output"]["file"]["content"] == "remember the milk\n"
    runs = {(r["event"], r["hook"]): r for r in out["hook_runs"]}
    assert runs[("PreToolUse", "no_shell")]["decision"] == "deny"
    assert runs[("PostToolUse", "note_reads")]["decision"] == "context"
    assert set(runs[("PreToolUse", "no_shell")]) >= {"reason", "duration_ms", "failure"}


def test_transcript_is_compact_jsonl_shaped_like_claude_codes(project: Path) -> None:
    out = run_json(project)
    lines = Path(out["transcript_path"]).read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    # prompt, tool_use, its result, tool_use, its result, the hook's context, final text
    assert [e["type"] for e in entries] == [
        "user", "assistant", "user", "assistant", "user", "user", "assistant",
    ]  # fmt: skip
    assert entries[5]["isMeta"] is True and "read ok" in entries[5]["message"]["content"]
    assert all(", " not in line.split('"text"')[0] for line in lines)  # compact separators
    assert entries[1]["message"]["model"] == "scripted"


def test_stream_json_prints_one_line_per_step_in_order(project: Path) -> None:
    done = hookline(
        "run", "tidy up", "--model", "scripted:script.json", "--hooks", "hooks.py",
        "--output-format", "stream-json", cwd=project,
    )  # fmt: skip
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [(x["type"], x.get("event") or x.get("name")) for x in lines]
    assert kinds[:2] == [("system", None), ("event", "SessionStart")]  # Claude Code's init first
    assert lines[-1]["type"] == "result" and lines[-1]["stop_reason"] == "end_turn"
    assert kinds.index(("event", "PreToolUse")) < kinds.index(("hook_run", "PreToolUse"))
    assert kinds.index(("hook_run", "PreToolUse")) < kinds.index(("tool_call", "Bash"))
    assert ("event", "ToolBlocked") in kinds and ("event", "SessionEnd") in kinds


def test_text_output_shows_each_decision_and_reason(project: Path) -> None:
    done = hookline(
        "run", "tidy up", "--model", "scripted:script.json", "--hooks", "hooks.py", cwd=project
    )
    assert done.returncode == 0
    assert "PreToolUse hook no_shell [sdk gate]: deny - no shell here: use Read" in done.stdout
    assert "tool Bash blocked: no shell here: use Read" in done.stdout
    assert "end_turn" in done.stdout and "\x1b[" not in done.stdout  # no colour into a pipe


def test_max_turns_ends_a_model_that_never_stops(tmp_path: Path) -> None:
    turns = [{"tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]}] * 5
    (tmp_path / "loop.json").write_text(json.dumps({"turns": turns}))
    done = hookline(
        "run", "go", "--model", "scripted:loop.json", "--max-turns", "2", "--output-format",
        "json", cwd=tmp_path,
    )  # fmt: skip
    out = json.loads(done.stdout)
    assert out["stop_reason"] == "max_turns" and len(out["tool_calls"]) == 2


def test_prompt_can_come_from_stdin(project: Path) -> None:
    done = hookline("run", "-", "--output-format", "json", cwd=project, stdin="read notes.txt")
    out = json.loads(done.stdout)
    assert out["tool_calls"][0]["name"] == "Read"


BAD_INPUT = {
    "missing prompt": (["run"], None, ["PROMPT", "fix:"]),
    "script not json": (
        ["run", "x", "--model", "scripted:bad.json"], ("bad.json", "{turns: oops"),
        ["bad.json", "not valid JSON"],
    ),
    "script bad key": (
        ["run", "x", "--model", "scripted:bad.json"],
        ("bad.json", '{"turns": [{"tool_calls": [{"input": {}}]}]}'),
        ["bad.json", "turns[0].tool_calls[0].name"],
    ),
    "missing script": (["run", "x", "--model", "scripted:nope.json"], None, ["nope.json"]),
    "unknown model": (["run", "x", "--model", "gpt-9"], None, ["--model", "scripted:FILE"]),
    "hooks import error": (
        ["run", "x", "--hooks", "bad.py"], ("bad.py", "import not_a_module_anywhere\n"),
        ["bad.py", "ModuleNotFoundError"],
    ),
    "hooks syntax error": (
        ["run", "x", "--hooks", "bad.py"], ("bad.py", "def (:\n"), ["bad.py", "line 1"],
    ),
    "unknown event": (
        ["run", "x", "--hooks", "bad.py"],
        ("bad.py", "def register(r):\n    r.add('PreToolUze', print)\n"),
        ["bad.py", "PreToolUze", "did you mean 'PreToolUse'"],
    ),
    "bad matcher regex": (
        ["run", "x", "--hooks", "bad.py"],
        ("bad.py", "from hookline import HookMatcher\n"
                   "HOOKS = {'PreToolUse': [HookMatcher(matcher='Bash(', hooks=[print])]}\n"),
        ["bad.py", "matcher", "not a valid regular expression"],
    ),
    "missing hooks file": (["run", "x", "--hooks", "nope.py"], None, ["nope.py", "--hooks"]),
    "unknown flag": (["run", "x", "--colour"], None, ["--colour"]),
}  # fmt: skip


@pytest.mark.parametrize("case", BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_is_one_clear_line_and_exit_2(tmp_path: Path, case: tuple) -> None:
    args, file, expected = case
    if file:
        (tmp_path / file[0]).write_text(file[1])
    done = hookline(*args, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hookline: error: "), done.stderr
    for part in expected:
        assert part in lines[0]
    assert not (tmp_path / ".hookline").exists()  # nothing ran, nothing was written


def test_demo_runs_the_four_scenarios_without_touching_the_cwd(tmp_path: Path) -> None:
    done = hookline("demo", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for title in ("Scenario 1", "Scenario 2", "Scenario 3", "Scenario 4", "two ledgers"):
        assert title in out
    assert "[post-hook] recorded Read -> ok (1 so far)" in out
    assert "[tool:Bash] BLOCKED" in out and "Tool Bash was refused" in out
    assert "direct Bash(rm -rf /) -> blocked: dangerous command pattern 'rm -rf'" in out
    assert "ran with {'path': 'package.json'}" in out
    assert "2 calls ran, 2 were refused." in out
    assert list(tmp_path.iterdir()) == []


def test_text_output_shows_a_hooks_message_for_the_user(project: Path) -> None:
    (project / "notify.py").write_text(
        "from hookline import Decision\n"
        "def register(registry):\n"
        "    registry.add('PostToolUse', lambda e: Decision.message('logged to SIEM'),\n"
        "                 kind='observer', name='siem')\n"
    )
    done = hookline("run", "read notes.txt", "--hooks", "notify.py", cwd=project)
    assert "PostToolUse hook siem says: logged to SIEM" in done.stdout


def test_run_loads_the_projects_claude_code_settings_and_extra_settings(project: Path) -> None:
    (project / ".claude").mkdir()
    deny_reads = {"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command",
        "command": "echo 'no reading today' >&2; exit 2"}]}]}}  # fmt: skip
    (project / ".claude" / "settings.json").write_text(json.dumps(deny_reads))
    inline = json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command":
        "echo stop-ran >> stop.log"}]}]}})  # fmt: skip
    done = hookline(
        "run", "read notes.txt", "--settings", inline, "--output-format", "json", cwd=project
    )
    out = json.loads(done.stdout)
    (call,) = out["tool_calls"]
    assert call["status"] == "blocked"
    assert call["reason"] == "[echo 'no reading today' >&2; exit 2]: no reading today\n"
    assert (project / "stop.log").read_text() == "stop-ran\n"
    sources = {r["source"].split(":")[0] for r in out["hook_runs"]}
    assert sources == {"project", "cli"}


def test_a_broken_settings_file_stops_the_run_unless_lenient(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text("{not json")
    done = hookline("run", "read notes.txt", "--output-format", "json", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("hookline: error:") and "settings.json" in done.stderr
    lenient = ("run", "read notes.txt", "--output-format", "json", "--lenient-settings")
    done = hookline(*lenient, cwd=project)
    assert done.returncode == 0
    assert "hookline: warning:" in done.stderr and "settings.json" in done.stderr
    assert json.loads(done.stdout)["tool_calls"][0]["status"] == "executed"


def test_user_and_tenant_reach_every_hook(project: Path) -> None:
    (project / "who.py").write_text(
        "from hookline import Decision\n"
        "def register(registry):\n"
        "    registry.add('UserPromptSubmit',\n"
        "                 lambda e: Decision.context(f'user={e.user} tenant={e.tenant}'))\n"
    )
    (project / ".claude").mkdir()
    dump = {
        "hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "cat > seen.json"}]}]}
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(dump))
    done = hookline(
        "run", "read notes.txt", "--hooks", "who.py", "--user", "alice", "--tenant", "acme",
        "--output-format", "json", cwd=project,
    )  # fmt: skip
    transcript = Path(json.loads(done.stdout)["transcript_path"]).read_text()
    assert "user=alice tenant=acme" in transcript
    seen = json.loads((project / "seen.json").read_text())
    assert (seen["user"], seen["tenant"]) == ("alice", "acme")


def test_a_run_without_the_audit_writes_no_state_unless_it_pauses(tmp_path: Path) -> None:
    """``--no-audit`` opens no store: a run that neither pauses nor audits leaves no database
    behind (the store is opened only when something is written to it)."""
    result = hookline("run", "say hello", "--model", "rules", "--no-audit", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / ".hookline" / "state" / "hookline.db").exists()
    audited = hookline("run", "say hello", "--model", "rules", cwd=tmp_path)
    assert audited.returncode == 0, audited.stderr
    assert (tmp_path / ".hookline" / "state" / "hookline.db").is_file()


def test_a_reader_that_goes_away_ends_it_quietly(tmp_path: Path) -> None:
    """``hookline ... | head -1``: when stdout's reader has gone, no traceback, exit 1."""
    import subprocess

    from cli_runner import HOOKLINE, src_env

    read, write = os.pipe()
    os.close(read)  # nobody will ever read: the first write fails with EPIPE
    done = subprocess.run(
        [*HOOKLINE, "demo"], stdout=write, stderr=subprocess.PIPE, text=True, env=src_env(),
        cwd=tmp_path, timeout=60, check=False,
    )  # fmt: skip
    os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert (done.returncode, done.stderr) == (1, "")

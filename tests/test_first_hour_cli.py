"""The first hour at the command line: a paused run says how to go on, ``sessions`` and
``audit`` read as tables, ``hooks test`` takes a piped event and exits as the decision says,
``hooks validate`` lints a settings file shared with Claude Code. Real subprocesses throughout."""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline.audit._chain import link
from hookline.storage import AuditEntry, open_store

WRITE = {"file_path": "out.txt", "content": "v1"}
SCRIPT = {
    "turns": [
        {"tool_calls": [{"id": "t_w", "name": "Write", "input": WRITE}]},
        {"text": "written"},
    ]
}  # fmt: skip
PAUSED = 4  # hookline run's exit code for a run that paused
LOCAL = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")


def pause(project: Path, *flags: str) -> Any:
    """A run whose Write needs approval nobody can give now: it pauses (--defer-asks)."""
    (project / "script.json").write_text(json.dumps(SCRIPT))
    return hookline("run", "write it", "--model", "scripted:script.json", "--defer-asks", *flags,
                    cwd=project)  # fmt: skip


def finish(project: Path) -> str:
    """A run that ends (the offline rule model reads a file); its session id."""
    (project / "notes.txt").write_text("hello")
    done = hookline("run", "read notes.txt", "--model", "rules", "--output-format", "json",
                    cwd=project)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["session_id"])


def session_of(out: str) -> str:
    found = re.search(r"paused: session (\S+) waits", out)
    assert found, out
    return found.group(1)


def column_starts(header: str) -> list[int]:
    return [m.start() for m in re.finditer(r"\S+", header)]


def assert_aligned(lines: list[str], starts: list[int]) -> None:
    """Each column begins at the header's offset on every line (after two spaces); an empty
    last cell leaves the line short."""
    for line in lines:
        for start in (s for s in starts[1:] if s < len(line)):
            assert line[start - 2 : start] == "  " and line[start] != " ", (start, line)


# -- a paused run --------------------------------------------------------------------------------


def test_a_paused_run_prints_the_resume_lines_exits_4_and_a_printed_line_resumes_it(
    tmp_path: Path,
) -> None:
    done = pause(tmp_path)
    assert done.returncode == PAUSED, done.stderr
    session = session_of(done.stdout)
    base = f"hookline sessions resume {session} --cwd {shlex.quote(str(tmp_path))}"  # any folder
    edit = shlex.quote(json.dumps(WRITE))
    lines = [line.strip() for line in done.stdout.splitlines() if "sessions resume" in line]
    assert lines == [f"{base} --approve", f"{base} --deny MESSAGE", f"{base} --edit {edit}"]
    assert not (tmp_path / "out.txt").exists()

    hookline_word, *args = shlex.split(lines[2])  # the --edit line, exactly as printed
    assert hookline_word == "hookline"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    resumed = hookline(*args, cwd=elsewhere)  # the printed line works from any folder
    assert resumed.returncode == 0, resumed.stderr
    assert (tmp_path / "out.txt").read_text() == "v1"


def test_a_paused_run_in_json_keeps_stdout_json_and_names_its_folder(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "script.json").write_text(json.dumps(SCRIPT))
    done = hookline("run", "write it", "--model", f"scripted:{project / 'script.json'}",
                    "--defer-asks", "--output-format", "json", "--cwd", str(project),
                    cwd=tmp_path)  # fmt: skip
    assert done.returncode == PAUSED, done.stderr
    out = json.loads(done.stdout)
    assert out["session_id"] == session_of(done.stderr)
    approve = next(line.strip() for line in done.stderr.splitlines() if "--approve" in line)
    _, *args = shlex.split(approve)  # run from elsewhere: the line carries --cwd
    assert args[-3:] == ["--cwd", str(project), "--approve"]
    resumed = hookline(*args, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert (project / "out.txt").read_text() == "v1"


# -- sessions ------------------------------------------------------------------------------------


def test_sessions_list_shows_finished_and_paused_sessions_under_a_header(tmp_path: Path) -> None:
    paused = session_of(pause(tmp_path).stdout)
    finished = finish(tmp_path)
    env = {"TZ": "Asia/Tokyo"}
    listed = hookline("sessions", "list", cwd=tmp_path, env=env)
    assert listed.returncode == 0, listed.stderr
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["SESSION", "STATUS", "STARTED", "UPDATED", "USER", "DETAIL"]
    starts = column_starts(header)
    assert_aligned(rows, starts)
    status = {row.split()[0]: row[starts[1] : starts[2]].strip() for row in rows}
    assert status == {finished: "finished", paused: "paused"}
    records = {r["session_id"]: r for r in map(json.loads, hookline(
        "sessions", "list", "--json", cwd=tmp_path).stdout.splitlines())}  # fmt: skip
    assert {s: r["status"] for s, r in records.items()} == {finished: "finished", paused: "paused"}
    row = next(row for row in rows if row.startswith(paused))
    started = row[starts[2] : starts[3]].strip()
    assert LOCAL.match(started)
    tokyo = time.gmtime(records[paused]["created_at"] + 9 * 3600)  # local time, here UTC+9
    assert started == time.strftime("%Y-%m-%d %H:%M:%S", tokyo)
    assert "waits: Write (t_w)" in row
    only = hookline("sessions", "list", "--status", "paused", cwd=tmp_path).stdout
    assert paused in only and finished not in only


def test_sessions_show_is_text_for_people_and_json_for_programs(tmp_path: Path) -> None:
    paused = session_of(pause(tmp_path).stdout)
    text = hookline("sessions", "show", paused, cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    fields = dict(re.split(r"\s{2,}", line, maxsplit=1) for line in text.stdout.splitlines()
                  if re.match(r"^\S.*\S\s{2,}\S", line))  # fmt: skip
    assert fields["session"] == paused and fields["status"] == "paused"
    assert fields["prompt"] == "write it"
    assert fields["waiting"] == 'Write (t_w) {"file_path":"out.txt","content":"v1"}'
    line = f"  hookline sessions resume {paused} --cwd {shlex.quote(str(tmp_path))} --approve"
    assert line in text.stdout.splitlines()

    machine = hookline("sessions", "show", paused, "--json", cwd=tmp_path)
    shown = json.loads(machine.stdout)
    assert (shown["session_id"], shown["status"]) == (paused, "paused")
    assert shown["waiting"] == [
        {"id": "t_w", "name": "Write", "input": {"file_path": "out.txt", "content": "v1"}}
    ]


# -- audit ---------------------------------------------------------------------------------------


def test_audit_prints_a_header_and_aligned_columns(tmp_path: Path) -> None:
    pause(tmp_path)
    finish(tmp_path)
    done = hookline("audit", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["TIME", "SESSION", "TOOL", "EVENT", "BY", "DECISION", "REASON"]
    assert len(rows) >= 3
    assert_aligned(rows, column_starts(header))


def test_audit_takes_a_unique_session_prefix_and_refuses_an_ambiguous_one(tmp_path: Path) -> None:
    paused = session_of(pause(tmp_path).stdout)
    finish(tmp_path)
    store = open_store(None, state_dir=tmp_path / ".hookline" / "state")
    try:  # two more sessions whose ids start alike
        entries = [AuditEntry(time=time.time(), session_id=f"abc-{n}", kind="tool", tool="Read",
                              decision="executed", data={}) for n in ("one", "two")]  # fmt: skip
        store.append_audit(entries, link)
    finally:
        store.close()

    short = hookline("audit", "--session", paused[:8], "--json", cwd=tmp_path)
    assert short.returncode == 0, short.stderr
    records = [json.loads(line) for line in short.stdout.splitlines()]
    assert records and {r["session_id"] for r in records} == {paused}

    ambiguous = hookline("audit", "--session", "abc", cwd=tmp_path)
    assert ambiguous.returncode == 2 and ambiguous.stdout == ""
    (line,) = ambiguous.stderr.strip().splitlines()
    assert line.startswith("hookline: error: ") and "abc-one" in line and "abc-two" in line
    assert "--session" in line and "Traceback" not in ambiguous.stderr


# -- hooks test ----------------------------------------------------------------------------------

HOOK = """\
import json, sys
event = json.load(sys.stdin)
with open(sys.argv[1], "a") as seen:
    seen.write(json.dumps(event) + "\\n")
text = json.dumps(event.get("tool_input", {})) + json.dumps(event.get("tool_response"))
answer = "deny" if "rm -rf" in text or "secret" in text else "ask" if "deploy" in text else None
if answer and event["hook_event_name"] == "PostToolUse":
    print(json.dumps({"decision": "block", "reason": "no secrets"}))
elif answer:
    out = {"hookEventName": "PreToolUse", "permissionDecision": answer}
    print(json.dumps({"hookSpecificOutput": {**out, "permissionDecisionReason": answer}}))
"""


@pytest.fixture
def hooked(tmp_path: Path) -> Path:
    """A project whose PreToolUse and PostToolUse command hook records what it saw in seen.jsonl
    and denies rm -rf and secrets, asks for deploys, says nothing otherwise."""
    (tmp_path / "hook.py").write_text(HOOK)
    command = f"{shlex.quote(sys.executable)} hook.py seen.jsonl"
    group = [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
    settings = {"hooks": {"PreToolUse": group, "PostToolUse": group}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    return tmp_path


def seen(project: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (project / "seen.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("command", "code", "permission"),
    [("ls", 0, None), ("rm -rf build", 2, "deny"), ("./deploy.sh", 3, "ask")],
)
def test_hooks_test_reads_a_piped_event_and_exits_as_the_decision_says(
    hooked: Path, command: str, code: int, permission: str | None
) -> None:
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_input": {"command": command}}  # fmt: skip
    done = hookline("hooks", "test", cwd=hooked, stdin=json.dumps(event))
    assert done.returncode == code, done.stderr
    assert json.loads(done.stdout)["decision"]["permission"] == permission
    assert [s["tool_input"]["command"] for s in seen(hooked)] == [command]


def test_hooks_test_response_makes_a_post_tool_use_event(hooked: Path) -> None:
    done = hookline("hooks", "test", "--tool", "Read", "--input", '{"file_path": "a.txt"}',
                    "--response", '{"content": "a secret"}', cwd=hooked)  # fmt: skip
    assert done.returncode == 2, done.stderr
    (event,) = seen(hooked)
    assert event["hook_event_name"] == "PostToolUse"
    assert event["tool_response"] == {"content": "a secret"}


def test_hooks_test_makes_a_relative_path_absolute_as_a_run_does(hooked: Path) -> None:
    done = hookline("hooks", "test", "--tool", "Read", "--input",
                    '{"file_path": "notes/todo.txt"}', cwd=hooked)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (event,) = seen(hooked)
    assert event["tool_input"]["file_path"] == str(hooked.resolve() / "notes" / "todo.txt")


# -- hooks validate ------------------------------------------------------------------------------


def test_validate_lints_a_file_shared_with_claude_code_with_warnings_only(tmp_path: Path) -> None:
    gate = {"type": "command", "command": "true"}  # fails open: Claude Code's default
    settings = {"hooks": {
        "Setup": [{"hooks": [gate]}],  # Claude Code runs it, hookline does not yet
        "PreToolUse": [{"matcher": "Bash|Wrte", "hooks": [gate]}],
    }}  # fmt: skip
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))

    done = hookline("hooks", "validate", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout)
    assert found["errors"] == 0
    by_event = {(f["event"], f["message"].split(" ")[0]): f for f in found["findings"]}
    assert by_event["Setup", "event"]["severity"] == "warning"
    assert "does not fire yet" in by_event["Setup", "event"]["message"]
    wrte = by_event["PreToolUse", "matcher"]
    assert wrte["message"].startswith("matcher 'Wrte'") and "did you mean Write" in wrte["fix"]
    fail_open = by_event["PreToolUse", "this"]
    assert fail_open["fix"] == '"onFailure": "block"'  # Claude Code reads it in this file too


def test_validate_suggests_hookline_keys_in_hooklines_own_file(tmp_path: Path) -> None:
    gate = {"type": "command", "command": "true"}
    (tmp_path / ".hookline").mkdir()
    (tmp_path / ".hookline" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [gate]}]}})
    )
    done = hookline("hooks", "validate", "--json", cwd=tmp_path)
    (finding,) = json.loads(done.stdout)["findings"]
    assert finding["fix"] == '"onFailure": "block"' and "fails open" in finding["message"]

"""``hookline run``'s text output, run for real: every hook that ran with its kind and handler,
the context it added, the tool's output, colour and NO_COLOR, tracebacks with ``-v``, the
spinner at a terminal only, and the help."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from cli_runner import HOOKLINE, hookline, src_env
from test_approve_screen import Screen

SCRIPT = {
    "turns": [
        {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "seq 1 10"}}]},
        {"tool_calls": [{"id": "t2", "name": "Read", "input": {"file_path": "notes.txt"}}]},
        {"text": "all done"},
    ]
}

HOOKS = """
from hookline import Decision

def allow_all(event):
    return Decision.allow("fine by me")

def watch(event):
    return None

def boom(event):
    raise RuntimeError("the hook broke")

def register(registry):
    registry.add("PreToolUse", allow_all, name="allow_all")
    registry.add("PostToolUse", watch, kind="observer", name="watch")
    registry.add("PostToolUse", lambda e: Decision.context("read ok " + "x" * 200),
                 matcher="Read", name="note_reads")
    registry.add("PostToolUse", boom, matcher="Bash", name="boom")
"""

#: A command hook that answers nothing: a gate that decided nothing.
SETTINGS = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "exit 0"}]}]}}  # fmt: skip

#: Colour off and on, whatever the environment running the tests says.
PLAIN = {"NO_COLOR": "", "FORCE_COLOR": ""}
DIM, MAGENTA = "\x1b[2m", "\x1b[35m"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    (tmp_path / "hooks.py").write_text(HOOKS)
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(SETTINGS))
    return tmp_path


def run_text(project: Path, *extra: str, env: dict[str, str] | None = None) -> list[str]:
    done = hookline(
        "run", "go", "--model", "scripted:script.json", "--hooks", "hooks.py", *extra,
        cwd=project, env={**PLAIN, **(env or {})},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_every_hook_that_ran_is_shown_with_its_kind_and_handler(project: Path) -> None:
    lines = run_text(project)
    assert "  PreToolUse hook allow_all [python gate]: allow - fine by me" in lines
    assert "  PreToolUse hook exit 0 [command gate]: no decision" in lines
    assert lines.count("  PostToolUse hook watch [python observer]: no decision") == 2


def test_the_context_a_hook_added_is_shown_on_one_line_abridged(project: Path) -> None:
    lines = run_text(project)
    added = "  PostToolUse hook note_reads [python gate] adds context: read ok " + "x" * 72 + "…"
    assert added in lines
    assert not any(line.endswith("x" * 73) for line in lines)


def test_the_tools_output_is_shown_by_its_first_lines(project: Path) -> None:
    lines = run_text(project)
    ran = lines.index('tool Bash ran with {"command":"seq 1 10"}')
    assert lines[ran + 1 : ran + 5] == ["  │ 1", "  │ 2", "  │ 3", "  │ … 7 more lines"]
    assert "  │ 4" not in lines
    read = next(n for n, line in enumerate(lines) if line.startswith("tool Read ran with"))
    assert lines[read + 1] == "  │ 1   remember the milk"


def test_a_hook_that_decided_nothing_is_dimmed_and_one_that_decided_is_not(
    project: Path,
) -> None:
    lines = run_text(project, env={"FORCE_COLOR": "1"})
    assert f"{DIM}  PreToolUse hook exit 0 [command gate]: no decision\x1b[0m" in lines
    assert f"{DIM}  PostToolUse hook watch [python observer]: no decision\x1b[0m" in lines
    decided = [line for line in lines if "hook allow_all [python gate]: allow" in line]
    assert decided and all(line.startswith(MAGENTA) for line in decided)


def test_no_color_means_no_escape_code_at_all(project: Path) -> None:
    done = hookline(
        "run", "go", "--model", "scripted:script.json", "--hooks", "hooks.py", "-v",
        cwd=project, env={"NO_COLOR": "1", "FORCE_COLOR": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "no decision" in done.stdout and "Traceback" in done.stdout
    assert "\x1b" not in done.stdout + done.stderr


def test_a_raising_hook_is_one_line_and_with_verbose_its_traceback(project: Path) -> None:
    failed = "  PostToolUse hook boom [python gate]: exception (RuntimeError: the hook broke)"
    quiet = run_text(project)
    assert failed in quiet
    assert [line for line in quiet if "boom" in line or "Traceback" in line] == [failed]
    verbose = run_text(project, "-v")
    at = verbose.index(failed)
    trace = verbose[at + 1 : at + 5]
    assert trace[0] == "    Traceback (most recent call last):"
    assert re.fullmatch(r'      File ".*hooks\.py", line 11, in boom', trace[1]), trace
    assert trace[2:] == ['        raise RuntimeError("the hook broke")',
                         "    RuntimeError: the hook broke"]  # fmt: skip
    assert not any("hookline/_hooks/engine.py" in line for line in verbose)  # the hook's frames


def test_bare_hookline_prints_the_help_and_exits_0(tmp_path: Path) -> None:
    done = hookline(cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("Usage: hookline [OPTIONS] COMMAND")
    assert "\n  run " in done.stdout and "\nCommands:\n" in done.stdout


@pytest.mark.parametrize("group", [[], ["audit"], ["hooks"], ["sessions"]])
def test_the_command_lists_are_not_cut_off(tmp_path: Path, group: list[str]) -> None:
    done = hookline(*group, "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = done.stdout.split("\nCommands:\n", 1)[1].splitlines()
    entries: list[str] = []
    for line in listed:  # a wrapped entry goes on in a line indented further
        if line.startswith("   ") and entries:
            entries[-1] += " " + line.strip()
        else:
            entries.append(line.strip())
    assert len(entries) >= 2
    assert [e for e in entries if "..." in e or not e.endswith(".")] == []


def test_the_command_list_shows_each_first_sentence_whole(tmp_path: Path) -> None:
    listed = " ".join(hookline("--help", cwd=tmp_path).stdout.split())
    assert "audit Show the audit records that match every filter given, oldest first." in listed
    listed = " ".join(hookline("hooks", "--help", cwd=tmp_path).stdout.split())
    assert "millisecond timeouts, gates that fail open, duplicates." in listed


def test_run_help_offers_verbose(tmp_path: Path) -> None:
    assert "-v, --verbose" in hookline("run", "--help", cwd=tmp_path).stdout


# -- the spinner --------------------------------------------------------------------------------

#: A tool call that waits for the test to create ``go``, then says so.
WAITS = "while [ ! -e go ]; do sleep 0.05; done; echo finished"
SPINNER = re.compile(r"[|/\\-] Bash running \d+s")


def spinner_project(tmp_path: Path) -> Path:
    (tmp_path / "wait.sh").write_text(WAITS)
    turns = [{"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "sh wait.sh"}}]}]
    (tmp_path / "s.json").write_text(json.dumps({"turns": [*turns, {"text": "done"}]}))
    (tmp_path / "hooks.py").write_text(HOOKS)
    return tmp_path


def start(cwd: Path, screen: Screen, *, stdout: int) -> subprocess.Popen[bytes]:
    env = src_env({"TERM": "xterm", **PLAIN}, keep_pythonpath=False)
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    argv = [*HOOKLINE, "run", "go", "--model", "scripted:s.json", "--hooks", "hooks.py"]
    end = screen.slave
    return subprocess.Popen(argv, cwd=cwd, env=env, stdin=end, stdout=stdout, stderr=end)


def test_a_tool_that_runs_long_shows_a_spinner_at_a_terminal_then_clears_it(
    tmp_path: Path,
) -> None:
    screen = Screen()
    proc = start(spinner_project(tmp_path), screen, stdout=screen.slave)
    try:
        screen.wait(lambda: SPINNER.search(screen.text) is not None, "the spinner")
        (tmp_path / "go").touch()
        screen.wait(lambda: proc.poll() is not None, "the run end")
        screen.pump(0)
    finally:
        proc.kill()
        proc.wait()
        screen.close()
    assert proc.returncode == 0, screen.raw.decode(errors="replace")
    rows = screen.text.splitlines()
    assert not SPINNER.search(screen.text)  # cleared: nothing of it is left on screen
    assert 'tool Bash ran with {"command":"sh wait.sh"}' in rows  # written over it, whole
    assert "  │ finished" in rows


def test_no_spinner_when_stdout_is_not_a_terminal(tmp_path: Path) -> None:
    """stderr is a terminal here: it is stdout that says nobody watches. The tool runs two
    seconds, twice the spinner's delay."""
    project = spinner_project(tmp_path)
    (project / "wait.sh").write_text("sleep 2; echo finished")
    screen = Screen()
    proc = start(project, screen, stdout=subprocess.PIPE)
    try:
        out, _ = proc.communicate(timeout=60)
        screen.pump(0)
    finally:
        proc.kill()
        proc.wait()
        screen.close()
    assert proc.returncode == 0
    assert "  │ finished" in out.decode()
    assert b"running" not in screen.raw + out and b"\r" not in out

"""``hookline hooks``: list, table, validate and test, on real settings files in a temp home."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from cli_runner import hookline
from hookline._cli.hooks_cmd import hooks

NO_FORCE_PUSH_SH = """#!/bin/sh
input=$(cat)
case "$input" in
  *"git push --force"*)
    echo "no force pushes: push a new branch and open a pull request" >&2
    exit 2;;
esac
exit 0
"""

GATES_PY = '''
from hookline import Decision

def no_force_push(event):
    """Refuse git push --force in a Bash command."""
    if "--force" in event.tool_input.get("command", ""):
        return Decision.deny("python gate: no --force")
    return None
'''

HOOKS_PY = '''
def read_note(event):
    """Note every Read."""

def register(registry):
    registry.add("PostToolUse", read_note, matcher="Read", kind="observer")
'''

SCRIPT = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no_force_push.sh'
MOVE_IT = '"onFailure": "block"'  # in the .claude file itself: Claude Code reads it too
SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {"type": "command", "command": SCRIPT, "onFailure": "block", "timeout": 10},
                    {"type": "python", "callable": "gates.py:no_force_push"},
                ],
            }
        ],
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "http", "url": "http://127.0.0.1:9/h"}]},
            {"hooks": [{"type": "command", "command": "echo done >> audit.log", "async": True}]},
        ],
    }
}
BAD_SETTINGS = {
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash(", "hooks": [{"type": "command", "command": "true"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./missing.sh"}]},
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout": 5000}]},
        ],
    }
}


class Project:
    """A project with settings, in a home and managed folder of its own."""

    def __init__(self, root: Path, settings: dict[str, Any] = SETTINGS) -> None:
        self.dir, self.home, managed = root / "project", root / "home", root / "managed"
        for folder in (self.dir / ".claude" / "hooks", self.home, managed):
            folder.mkdir(parents=True)
        script = self.dir / ".claude" / "hooks" / "no_force_push.sh"
        script.write_text(NO_FORCE_PUSH_SH)
        script.chmod(0o755)
        (self.dir / "gates.py").write_text(GATES_PY)
        self.settings = self.write(".claude/settings.json", settings)
        self.env = {"HOME": str(self.home), "HOOKLINE_MANAGED_SETTINGS_DIR": str(managed)}

    def write(self, where: str, data: object) -> Path:
        path = self.dir / where
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return path

    def invoke(self, *args: str, stdin: str | None = None) -> Result:
        """``hookline hooks ARGS --cwd PROJECT`` in this process."""
        runner = CliRunner()
        return runner.invoke(hooks, [*args, "--cwd", str(self.dir)], input=stdin, env=self.env)

    def hookline(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """``hookline hooks ARGS`` in a subprocess, through the real entry point."""
        return hookline("hooks", *args, cwd=self.dir, stdin=stdin, env=self.env)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def test_list_shows_every_hook_of_every_layer_with_its_source(project: Project) -> None:
    user = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    (project.home / ".claude").mkdir()
    (project.home / ".claude" / "settings.json").write_text(json.dumps(user))
    project.write("hooks.py", HOOKS_PY)
    inline = json.dumps(
        {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "date"}]}]}}
    )

    done = project.invoke(
        "list", "--json", "--hooks", str(project.dir / "hooks.py"), "--settings", inline
    )

    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)["hooks"]
    assert [(r["event"], r["handler"], r["name"]) for r in rows] == [
        ("PostToolUse", "http", "http://127.0.0.1:9/h"),
        ("PostToolUse", "command", "echo done >> audit.log"),
        ("PostToolUse", "python", "read_note"),
        ("PreToolUse", "command", SCRIPT),
        ("PreToolUse", "python", "gates.py:no_force_push"),
        ("SessionStart", "command", "date"),
        ("Stop", "command", "true"),
    ]
    settings = f"project:{project.settings}"
    assert [r["source"] for r in rows] == [
        settings, settings, f"python:{project.dir / 'hooks.py'}", settings, settings,
        "cli:--settings[0]", f"user:{project.home / '.claude' / 'settings.json'}",
    ]  # fmt: skip


def test_list_prints_a_line_per_hook_and_settings_warnings_on_stderr(project: Project) -> None:
    project.write(".claude/settings.local.json", "{not json")

    done = project.invoke("list")

    assert done.exit_code == 0
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "EVENT",
        "MATCHER",
        "KIND",
        "HANDLER",
        "FAILS",
        "TIMEOUT",
        "SOURCE",
        "RUNS",
    ]
    assert len(lines) == 1 + 4
    assert lines[3].split()[:7] == [
        "PreToolUse", "Bash", "gate", "command", "closed", "10s",
        "project:.claude/settings.json",
    ]  # fmt: skip
    assert lines[3].endswith(SCRIPT)
    assert done.stderr.startswith("hookline: warning: ")
    assert "settings.local.json: not valid JSON" in done.stderr


def test_table_is_the_seed_exercise_with_a_row_per_hook(project: Project) -> None:
    done = project.invoke("table")

    assert done.exit_code == 0, done.output
    header, rule, *rows = done.stdout.splitlines()
    assert header == (
        "| Event | Matcher | Handler | What it checks | Decisions it can return | When it fails "
        "| Timeout | Source |"
    )
    assert rule == "| --- | --- | --- | --- | --- | --- | --- | --- |"
    assert rows == [
        "| PostToolUse | Edit\\|Write | http | POST http://127.0.0.1:9/h "
        "| block (feedback), replace output, context, stop | no decision (fail open) | 600s "
        "| project:.claude/settings.json |",
        "| PostToolUse | * | command (observer) | runs echo done >> audit.log "
        "| none (records only) | nothing (observers never block) | 600s "
        "| project:.claude/settings.json |",
        f"| PreToolUse | Bash | command | runs {SCRIPT} "
        "| allow, deny, ask, defer, rewrite, context, stop | deny (fail closed) | 10s "
        "| project:.claude/settings.json |",
        "| PreToolUse | Bash | python | Refuse git push --force in a Bash command. "
        "| allow, deny, ask, defer, rewrite, context, stop | deny (fail closed) | 600s "
        "| project:.claude/settings.json |",
    ]


TRANSFORMER_PY = '''
from hookline import Decision

def sandbox_writes(event):
    """Redirect writes into sandbox/."""
    return Decision.rewrite({**event.tool_input, "file_path": "sandbox/out.txt"})

def register(registry):
    registry.add("PreToolUse", sandbox_writes, matcher="Write", kind="transformer")
'''


def test_rows_read_if_conditions_transformers_and_unloadable_hooks(tmp_path: Path) -> None:
    gate = {"type": "command", "command": "true", "if": "Bash(git push *)", "onFailure": "block"}
    broken = {"type": "python", "callable": "gates.py:missing", "onFailure": "block"}
    stop = {"type": "command", "command": "true"}
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [gate, broken]}],
            "Stop": [{"hooks": [stop]}],
        }
    }
    project = Project(tmp_path, settings)
    project.write("hooks.py", TRANSFORMER_PY)

    done = project.invoke("list", "--json", "--hooks", str(project.dir / "hooks.py"))

    assert done.exit_code == 0, done.output
    described = [
        (r["event"], r["kind"], r["checks"], r["decisions"][0], r["when_it_fails"])
        for r in json.loads(done.stdout)["hooks"]
    ]
    assert described == [
        ("PreToolUse", "gate", "if Bash(git push *): runs true", "allow", "deny (fail closed)"),
        ("PreToolUse", "gate", "nothing: it could not be loaded (gates.py has no attribute "
         "'missing')", "allow", "deny (fail closed)"),
        ("PreToolUse", "transformer", "Redirect writes into sandbox/.", "rewrite",
         "no decision (fail open)"),
        ("Stop", "gate", "runs true", "block (keep working)", "no decision (fail open)"),
    ]  # fmt: skip
    assert "declares onFailure block, so it denies every call it sees" in done.stderr


def test_validate_passes_clean_settings(project: Project) -> None:
    done = project.invoke("validate")

    assert done.exit_code == 0, done.output
    assert done.stdout == "4 hooks: 0 errors, 0 warnings\n"


def test_validate_reports_each_problem_and_exits_2(tmp_path: Path) -> None:
    project = Project(tmp_path, BAD_SETTINGS)
    done = project.invoke("validate", "--json")

    assert done.exit_code == 2
    report = json.loads(done.stdout)
    found = [(f["severity"], f["hook"], f["message"], f["fix"]) for f in report["findings"]]
    assert found == [
        (
            "error",
            "hooks.PreToolUse[0].matcher",
            "matcher 'Bash(' is not a valid regular expression: missing ), unterminated subpattern "
            "at position 4",
            "escape special characters, or list exact names as 'Bash|Edit'",
        ),
        (
            "error",
            "./missing.sh",
            "command ./missing.sh does not exist",
            'check the path; relative paths start at the project, or use "$CLAUDE_PROJECT_DIR"/',
        ),
        (
            "warning",
            "true",
            "timeout 5000 looks like milliseconds: timeouts are seconds",
            "give seconds, e.g. 5",
        ),
        (
            "warning",
            "./missing.sh",
            "this gate fails open: if it crashes, times out or its "
            "service is down, the call goes ahead unchecked",
            MOVE_IT,
        ),
        (
            "warning",
            "true",
            "this gate fails open: if it crashes, times out or its service is "
            "down, the call goes ahead unchecked",
            MOVE_IT,
        ),
    ]  # fmt: skip (a .claude file: hookline-only keys go to .hookline/settings.json)
    assert (report["hooks"], report["errors"], report["warnings"]) == (2, 2, 3)


def test_validate_finds_a_duplicate_and_prints_one_line_per_finding(project: Project) -> None:
    again = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": SCRIPT, "onFailure": "block"}]}]}}  # fmt: skip
    project.write(".claude/settings.local.json", again)

    done = project.invoke("validate")

    assert done.exit_code == 0, done.output
    local = project.dir / ".claude" / "settings.local.json"
    assert done.stdout.splitlines() == [
        f"local:{local}: PreToolUse {SCRIPT}: warning: also registered from "
        f"project:{project.settings} (matcher Bash): where both match it runs once "
        "per event, with the first registration's options (fix: keep one copy)",
        "5 hooks: 0 errors, 1 warning",
    ]


def test_test_runs_a_real_command_hook_and_prints_the_deny(project: Project) -> None:
    done = project.invoke(
        "test", "--tool", "Bash", "--input", '{"command": "git push --force origin main"}'
    )

    assert done.exit_code == 2, done.output  # 2: deny
    out = json.loads(done.stdout)
    assert out["event"]["hook_event_name"] == "PreToolUse"
    assert out["event"]["tool_input"] == {"command": "git push --force origin main"}
    assert (out["event"]["session_id"], out["event"]["cwd"]) == ("hooks-test", str(project.dir))
    command, python = out["runs"]
    assert (command["hook"], command["handler"], command["decision"]) == (SCRIPT, "command", "deny")
    assert "no force pushes: push a new branch" in command["reason"]
    assert (python["hook"], python["decision"]) == ("gates.py:no_force_push", "deny")
    decision = out["decision"]
    assert decision["permission"] == "deny"
    assert decision["reason"].endswith("\n\npython gate: no --force")
    assert decision["continue"] is True
    assert set(decision) == {
        "permission", "reason", "updated_input", "updated_output", "additional_context",
        "system_message", "continue", "stop_reason",
    }  # fmt: skip


def test_test_reads_the_event_from_stdin_and_waits_for_observers(project: Project) -> None:
    event = {
        "session_id": "s-1",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_response": {"stdout": "a\n"},
        "tool_use_id": "toolu_1",
    }

    done = project.invoke("test", "--stdin", stdin=json.dumps(event))

    assert done.exit_code == 0, done.output
    out = json.loads(done.stdout)
    assert out["event"]["session_id"] == "s-1"
    assert [(r["hook"], r["kind"], r["failure"]) for r in out["runs"]] == [
        ("echo done >> audit.log", "observer", None)
    ]
    assert (project.dir / "audit.log").read_text() == "done\n"  # it really ran
    assert out["decision"]["permission"] is None


def test_test_lets_a_harmless_command_through(project: Project) -> None:
    done = project.invoke(
        "test", "-", stdin='{"tool_name": "Bash", "tool_input": {"command": "ls"}}'
    )

    assert done.exit_code == 0, done.output
    out = json.loads(done.stdout)
    assert [run["decision"] for run in out["runs"]] == [None, None]
    assert out["decision"]["permission"] is None


# -- through the real entry point: ``python -m hookline._cli.main hooks ...`` ---------------------


def test_validate_exit_codes_through_the_entry_point(tmp_path: Path) -> None:
    clean = Project(tmp_path / "clean").hookline("validate")
    bad = Project(tmp_path / "bad", BAD_SETTINGS).hookline("validate")

    assert (clean.returncode, clean.stdout) == (0, "4 hooks: 0 errors, 0 warnings\n")
    assert bad.returncode == 2
    assert bad.stdout.splitlines()[-1] == "2 hooks: 2 errors, 3 warnings"
    assert ": error: " in bad.stdout and "is not a valid regular expression" in bad.stdout
    assert not bad.stdout.startswith("error: ")


def test_test_from_stdin_through_the_entry_point(project: Project) -> None:
    event = {"hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_input": {"command": "git push --force"}}  # fmt: skip

    done = project.hookline("test", "-", stdin=json.dumps(event))

    assert done.returncode == 2, done.stderr  # 2: deny
    out = json.loads(done.stdout)
    assert out["decision"]["permission"] == "deny"
    assert [run["decision"] for run in out["runs"]] == ["deny", "deny"]


@pytest.mark.parametrize(
    ("args", "stdin", "error"),
    [
        (["--event", "Nope"], None, "hookline: error: --event: event 'Nope' is not one hookline"),
        (["-"], "{not json", "hookline: error: stdin: not valid JSON"),
        (["--tool", "Bash", "--input", "[1]"], None, "hookline: error: --input: must be a JSON"),
        (["--event", "PreToolUse"], None, "hookline: error: event: not a PreToolUse event"),
    ],
)
def test_test_with_a_bad_event_is_one_line_and_exit_2(
    project: Project, args: list[str], stdin: str | None, error: str
) -> None:
    done = project.hookline("test", *args, stdin=stdin)

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(error)
    assert len(done.stderr.splitlines()) == 1

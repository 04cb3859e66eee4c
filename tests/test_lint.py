"""The hook lint: each check fires on a crafted registry or settings; a clean one has none."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from hookline import Decision, HookRegistry, arg, tool_name
from hookline._claude import lint as lint_module
from hookline._claude.command import CommandHook
from hookline._claude.lint import (
    Finding,
    Subject,
    duplicates,
    fail_open_gates,
    lint,
    millisecond_timeouts,
    missing_commands,
    settings_problems,
    unquoted_project_dir,
    unreachable_matchers,
)
from hookline._claude.settings import load_settings

KNOWN = ("Bash", "Read", "Write", "Edit", "Glob", "Grep")
SETTINGS = "project:/work/.claude/settings.json"


def gate(event: object) -> Decision | None:
    """Refuse nothing."""
    return None


def run(check: Callable[[Subject], Iterable[Finding]], registry: HookRegistry) -> list[Finding]:
    return list(check(Subject(registry, None, frozenset(KNOWN))))


def command(
    registry: HookRegistry, text: str, project: Path, *, event: str = "PostToolUse", **options: Any
) -> None:
    """A command hook as a settings layer registers it."""
    registry.add(event, CommandHook(text, project_dir=str(project)), source=SETTINGS, **options)


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_a_clean_registry_has_no_findings(tmp_path: Path) -> None:
    registry = HookRegistry()
    registry.add("PreToolUse", gate, matcher="Bash|Edit")
    registry.add("PreToolUse", gate, matcher="mcp__orders__.*", name="orders")
    executable(tmp_path / "hooks" / "check.sh")
    command(registry, '"$CLAUDE_PROJECT_DIR"/hooks/check.sh', tmp_path, failure="closed",
            event="PreToolUse", matcher="Bash")  # fmt: skip
    command(registry, "echo done >> audit.log", tmp_path, kind="observer")
    registry.add("SessionEnd", gate, kind="observer", timeout=30)
    settings = load_settings(tmp_path, home=tmp_path / "home", managed_dir=tmp_path / "managed")

    assert lint(registry, settings, known_tools=KNOWN) == []


def test_a_settings_problem_that_drops_a_guard_is_an_error_naming_file_and_event(
    tmp_path: Path,
) -> None:
    (tmp_path / ".claude").mkdir()
    bad = {"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command"}]}]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(bad))
    settings = load_settings(tmp_path, home=tmp_path / "home", managed_dir=tmp_path / "managed")
    registry = HookRegistry()
    settings.register(registry, project_dir=tmp_path)  # reading the hooks finds the bad matcher

    (found,) = lint(registry, settings, known_tools=KNOWN)

    assert (found.severity, found.event, found.hook) == (
        "error",
        "PreToolUse",
        "hooks.PreToolUse[0].matcher",
    )
    assert found.source.endswith("settings.json")
    assert "not a valid regular expression" in found.message
    assert str(found).startswith(f"{found.source}: hooks.PreToolUse[0].matcher: error: matcher")


@pytest.mark.parametrize(
    ("matcher", "fix"),
    [
        ("bash", "did you mean Bash?"),
        ("bash|edit", "did you mean Bash|Edit?"),
        ("^Foo$", "name a known tool, or mcp__<server>__<tool>"),
        (tool_name("bash") & arg("command", contains="rm"), "did you mean Bash?"),
    ],
)
def test_a_tool_matcher_that_can_never_match_is_a_warning(matcher: object, fix: str) -> None:
    registry = HookRegistry()
    registry.add("PreToolUse", gate, matcher=matcher)  # type: ignore[arg-type]

    (found,) = run(unreachable_matchers, registry)

    assert found.severity == "warning"
    assert "can never match a known tool" in found.message
    assert found.fix is not None and found.fix.startswith(fix)


@pytest.mark.parametrize(
    "matcher", ["Bash", "mcp__orders__update", "Edit.*", "Fo+", "^mcp__x", "^(Foo|Bash)$", "*"]
)
def test_a_tool_matcher_that_some_tool_can_meet_is_quiet(matcher: str) -> None:
    registry = HookRegistry()
    registry.add("PostToolUse", gate, matcher=matcher)
    registry.add("SessionStart", gate, matcher="bash")  # matches the source, not a tool

    assert run(unreachable_matchers, registry) == []


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("./hooks/missing.sh", None, "command ./hooks/missing.sh does not exist"),
        ('"$CLAUDE_PROJECT_DIR"/hooks/missing.sh --x', None, "/hooks/missing.sh does not exist"),
        ("${CLAUDE_PROJECT_DIR}/hooks/missing.sh", (), "/hooks/missing.sh does not exist"),
        ("./hooks/plain.txt", None, "command ./hooks/plain.txt is not executable"),
        ("no-such-program-hookline", None, "'no-such-program-hookline' is not found on PATH"),
        ("no-such-program-hookline", ("--x",), "'no-such-program-hookline' is not found on PATH"),
        ("python3 hooks/missing.py", None, "script hooks/missing.py does not exist"),
    ],
)
def test_a_command_that_cannot_start_is_an_error(
    tmp_path: Path, text: str, args: tuple[str, ...] | None, message: str
) -> None:
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "plain.txt").write_text("not a program")
    registry = HookRegistry()
    registry.add("PreToolUse", CommandHook(text, args=args, project_dir=str(tmp_path)))

    (found,) = run(missing_commands, registry)

    assert found.severity == "error"
    assert message in found.message


@pytest.mark.parametrize(
    "text",
    [
        "true",
        "./hooks/ok.sh",
        '"$CLAUDE_PROJECT_DIR"/hooks/ok.sh "$1"',
        "sh hooks/ok.sh",
        "python3 -c 'print(1)'",
        "cd hooks && ./missing.sh",  # only the first word is judged
        "$(which check) --x",  # shell syntax it cannot judge
        "FOO=1 no-such-program-hookline",
        "$HOME/missing.sh",
        "'unterminated",
    ],
)
def test_a_command_that_starts_or_cannot_be_judged_is_quiet(tmp_path: Path, text: str) -> None:
    executable(tmp_path / "hooks" / "ok.sh")
    registry = HookRegistry()
    registry.add("PreToolUse", CommandHook(text, project_dir=str(tmp_path)))

    assert run(missing_commands, registry) == []


@pytest.mark.parametrize(
    ("text", "args", "message", "fix"),
    [
        ("/bin/sh", ("-c", "${CLAUDE_PROJECT_DIR}/x.sh"), "a folder named proj$(cmd) runs cmd",
         '"$CLAUDE_PROJECT_DIR"/x.sh inside the code'),
        ("bash", ("-lc", 'cd "${CLAUDE_PROJECT_DIR}" && ./x.sh'), "pastes the folder's path",
         '"command": "${CLAUDE_PROJECT_DIR}/x.sh"'),
        ("/bin/sh", ("-ec", "$CLAUDE_PROJECT_DIR/x.sh"), "outside double quotes",
         '"$CLAUDE_PROJECT_DIR"/x.sh'),
        ("$CLAUDE_PROJECT_DIR/x.sh", None, "splits the folder's path at spaces",
         '"$CLAUDE_PROJECT_DIR"/x.sh'),
        ("cd ${CLAUDE_PROJECT_DIR} && ./x.sh", None, "${CLAUDE_PROJECT_DIR} is outside double",
         '"$CLAUDE_PROJECT_DIR"/x.sh'),
    ],
)  # fmt: skip
def test_the_project_folder_where_a_shell_reads_it_as_code_or_splits_it_is_a_warning(
    tmp_path: Path, text: str, args: tuple[str, ...] | None, message: str, fix: str
) -> None:
    registry = HookRegistry()
    registry.add("PreToolUse", CommandHook(text, args=args, project_dir=str(tmp_path)))

    (found,) = run(unquoted_project_dir, registry)

    assert found.severity == "warning"
    assert message in found.message
    assert fix in (found.fix or "")


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ('"$CLAUDE_PROJECT_DIR"/x.sh', None),
        ('cd "${CLAUDE_PROJECT_DIR}" && ./x.sh # $CLAUDE_PROJECT_DIR', None),
        ("echo '$CLAUDE_PROJECT_DIR'", None),  # literal to the shell
        ("/bin/sh", ("-c", '"$CLAUDE_PROJECT_DIR"/x.sh')),
        ("${CLAUDE_PROJECT_DIR}/x.sh", ("--flag", "${CLAUDE_PROJECT_DIR}/y")),  # no shell
        ("/bin/sh", ("${CLAUDE_PROJECT_DIR}/x.sh",)),  # a script file, not code
        ("python3", ("-c", "print('${CLAUDE_PROJECT_DIR}')")),
    ],
)
def test_the_project_folder_quoted_or_outside_shell_code_is_quiet(
    tmp_path: Path, text: str, args: tuple[str, ...] | None
) -> None:
    registry = HookRegistry()
    registry.add("PreToolUse", CommandHook(text, args=args, project_dir=str(tmp_path)))

    assert run(unquoted_project_dir, registry) == []


@pytest.mark.parametrize(
    ("event", "timeout", "fix"),
    [("PreToolUse", 5000, "give seconds, e.g. 5"), ("SessionEnd", 120, "give seconds, e.g. 60")],
)
def test_a_timeout_in_milliseconds_is_a_warning(event: str, timeout: float, fix: str) -> None:
    registry = HookRegistry()
    registry.add(event, gate, timeout=timeout)
    registry.add("PreToolUse", gate, timeout=600, name="long but fine")
    registry.add("SessionEnd", gate, timeout=60, name="at the limit")

    (found,) = run(millisecond_timeouts, registry)

    assert (found.event, found.severity, found.fix) == (event, "warning", fix)
    assert "looks like milliseconds" in found.message


def test_a_security_gate_that_fails_open_is_a_warning_with_the_fix(tmp_path: Path) -> None:
    registry = HookRegistry()
    command(registry, "true", tmp_path, event="PreToolUse")  # Claude Code's default: open
    registry.add("UserPromptSubmit", gate, failure="open", kind="transformer")
    registry.add("PermissionRequest", gate)  # in-process, but not a fail-closed event

    found = run(fail_open_gates, registry)

    assert [(f.event, f.fix) for f in found] == [
        ("PermissionRequest", 'failure="closed"'),
        ("PreToolUse", '"onFailure": "block"'),  # Claude Code 2.1.332 reads it too
        ("UserPromptSubmit", 'failure="closed"'),
    ]  # fmt: skip
    assert "the call goes ahead unchecked" in found[1].message
    assert "the prompt goes ahead unchecked" in found[2].message


def test_closed_gates_observers_and_other_events_do_not_fail_open(tmp_path: Path) -> None:
    registry = HookRegistry()
    registry.add("PreToolUse", gate)  # in-process gates fail closed here by default
    command(registry, "true", tmp_path, event="PreToolUse", failure="closed")
    registry.add("PreToolUse", gate, kind="observer", failure="open")
    command(registry, "true", tmp_path, event="PostToolUse")

    assert run(fail_open_gates, registry) == []


def test_the_same_handler_registered_twice_is_a_warning(tmp_path: Path) -> None:
    registry = HookRegistry()
    command(registry, "./check.sh", tmp_path, matcher="Bash")
    command(registry, "./check.sh", tmp_path, matcher="Edit")
    command(registry, "./other.sh", tmp_path, matcher="Bash")
    command(registry, "./check.sh", tmp_path, event="Stop")  # another event: runs there too

    (found,) = run(duplicates, registry)

    assert (found.event, found.hook, found.severity) == ("PostToolUse", "./check.sh", "warning")
    assert f"also registered from {SETTINGS} (matcher Bash)" in found.message
    assert "runs once per event" in found.message


def test_settings_problems_without_settings_is_quiet() -> None:
    assert run(settings_problems, HookRegistry()) == []


def test_a_new_check_is_one_more_entry_in_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = Finding("warning", "here", None, None, "found")
    monkeypatch.setattr(lint_module, "CHECKS", [*lint_module.CHECKS, lambda subject: [extra]])

    assert lint(HookRegistry(), None, known_tools=KNOWN) == [extra]

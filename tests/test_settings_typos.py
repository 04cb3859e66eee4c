"""Typos fail closed: a permission rule or key that cannot be read stops the run before anything
starts (exit 2, one line naming the file, the key and the fix); ``--lenient-settings`` keeps
Claude Code's skip-and-go-on. A top-level key that is simply new stays a warning.

Each attack is a settings file whose guard is misspelt, and a model that reads ``.env`` (or
runs ``touch sentinel``) in bypassPermissions, where only the guard stands in the way.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline import ConfigError, load_project

SECRET = "TOKEN=hunter2"
READ_ENV = {"turns": [
    {"tool_calls": [{"id": "t1", "name": "Read", "input": {"file_path": ".env"}}]},
    {"tool_calls": [{"id": "t2", "name": "Bash", "input": {"command": "touch sentinel"}}]},
    {"text": "done"},
]}  # fmt: skip
RUN = ("run", "look", "--model", "scripted:script.json", "--permission-mode",
       "bypassPermissions", "--output-format", "json")  # fmt: skip
GUARD = {"type": "command", "command": "./guard.sh"}


def deny(*rules: Any, key: str = "deny") -> dict[str, Any]:
    return {"permissions": {key: list(rules)}}


#: name: (settings, the key named, words of the message, words of the fix)
TYPOS: dict[str, tuple[Any, str, str, str]] = {
    "misspelt tool": (deny("Reed(./.env)"), "permissions.deny[0]", "names no tool: 'Reed'",
                      "did you mean Read(./.env)?"),
    "lower-case tool": (deny("read(./.env)"), "permissions.deny[0]", "names no tool: 'read'",
                        "did you mean Read(./.env)?"),
    "upper-case tool": (deny("READ(./.env)"), "permissions.deny[0]", "names no tool",
                        "did you mean Read(./.env)?"),
    "look-alike letter": (deny("Reаd(./.env)"), "permissions.deny[0]",
                          "does not start with a tool name", "write Tool"),
    "unclosed parenthesis": (deny("Read(./.env"), "permissions.deny[0]",
                             "unbalanced parentheses", "write one rule"),
    "one parenthesis too many": (deny("Read(./.env))"), "permissions.deny[0]",
                                 "unbalanced parentheses", "write one rule"),
    "space before the parenthesis": (deny("Bash (touch *)"), "permissions.deny[0]",
                                     "does not start with a tool name", "write Tool"),
    "a string where a list belongs": ({"permissions": {"deny": "Read(./.env)"}},
                                      "permissions.deny", "must be a list, not str",
                                      'write "deny": ["Read(./.env)"]'),
    "an object where a list belongs": ({"permissions": {"deny": {"Read": "./.env"}}},
                                       "permissions.deny", "must be a list, not dict",
                                       'write "deny": [{"Read": "./.env"}]'),
    "a list in the list": (deny(["Read(./.env)"]), "permissions.deny[0]",
                           "does not start with a tool name", "write Tool"),
    "a path rule never consulted": (deny("Write(./.env)"), "permissions.deny[0]",
                                    "never consults", "write Edit(./.env)"),
    "misspelt kind": ({"permissions": {"denny": ["Read(./.env)"]}}, "permissions.denny",
                      "unknown key 'denny'", 'did you mean "deny"?'),
    "capitalised kind": ({"permissions": {"Deny": ["Read(./.env)"]}}, "permissions.Deny",
                         "unknown key 'Deny'", 'did you mean "deny"?'),
    "singular permission": ({"permission": {"deny": ["Read(./.env)"]}}, "permission",
                            "unknown key 'permission'", 'did you mean "permissions"?'),
    "capitalised Permissions": ({"Permissions": {"deny": ["Read(./.env)"]}}, "Permissions",
                                "unknown key 'Permissions'", 'did you mean "permissions"?'),
    "singular hook": ({"hook": {"PreToolUse": [{"matcher": "Read", "hooks": [GUARD]}]}},
                      "hook", "unknown key 'hook'", 'did you mean "hooks"?'),
    "misspelt hookline object": ({"hookline": {"permisions": {"mutating": "ask"}}},
                                 "hookline.permisions", "unknown key 'permisions'",
                                 'did you mean "permissions"?'),
    "misspelt tool in a hook's if": (
        {"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{**GUARD, "if": "raed(.env)"}]}]}},
        "hooks.PreToolUse[0].hooks[0].if", "names no tool: 'raed'", "did you mean Read(.env)?"),
    "misspelt dangerous rule": ({"hookline": {"permissions": {"dangerous": ["Raed(./.env)"]}}},
                                "hookline.permissions.dangerous[0]", "names no tool",
                                "did you mean Read(./.env)?"),
}  # fmt: skip


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "script.json").write_text(json.dumps(READ_ENV))
    (tmp_path / ".env").write_text(SECRET)
    (tmp_path / ".claude").mkdir()
    return tmp_path


def write(project: Path, data: Any, name: str = "settings.json") -> Path:
    path = project / ".claude" / name
    path.write_text(json.dumps(data, ensure_ascii=False))
    return path


def assert_stopped(project: Path, done: Any, *words: str) -> str:
    """Exit 2, one line (no traceback) holding ``words``, and nothing ran or started."""
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("hookline: error: ") and "(fix: " in line, line
    for word in words:
        assert word in line, line
    assert SECRET not in done.stderr
    assert not (project / "sentinel").exists()
    assert not (project / ".hookline" / "state").exists()  # no session started
    return line


@pytest.mark.parametrize("typo", TYPOS.values(), ids=TYPOS.keys())
def test_a_typo_stops_the_run_before_anything_starts(
    project: Path, typo: tuple[Any, str, str, str]
) -> None:
    settings, key, message, fix = typo
    path = write(project, settings)

    done = hookline(*RUN, cwd=project)

    assert_stopped(project, done, f"{path}: {key}: ", message, f"(fix: {fix}")


@pytest.mark.parametrize("name", ["misspelt tool", "unclosed parenthesis", "singular permission"])
def test_hooks_validate_reports_the_typo_as_an_error(project: Path, name: str) -> None:
    settings, key, message, fix = TYPOS[name]
    write(project, settings)

    done = hookline("hooks", "validate", "--json", cwd=project)

    assert done.returncode == 2, done.stdout
    (finding,) = [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"]
    assert finding["hook"] == key and finding["fix"].startswith(fix)
    assert message in finding["message"]


@pytest.mark.parametrize("name", ["misspelt tool", "a string where a list belongs"])
def test_load_project_raises_for_a_typo_naming_file_and_key(project: Path, name: str) -> None:
    settings, key, _, _ = TYPOS[name]
    path = write(project, settings, "settings.local.json")
    with pytest.raises(ConfigError) as raised:
        load_project(project)
    assert (raised.value.file, raised.value.key) == (str(path), key)


def test_lenient_settings_keeps_claude_codes_skip_and_go_on(project: Path) -> None:
    path = write(project, deny("Reed(./.env)"))

    done = hookline(*RUN, "--lenient-settings", cwd=project)

    assert done.returncode == 0, done.stderr
    assert f"hookline: warning: {path}: permissions.deny[0]: permission rule 'Reed(./.env)'" in (
        done.stderr
    )
    read, _ = json.loads(done.stdout)["tool_calls"]
    assert read["status"] == "executed"  # as in Claude Code: the broken rule is dropped
    assert (project / "sentinel").exists()


def test_the_rule_spelt_right_holds(project: Path) -> None:
    write(project, deny("Read(./.env)", "Bash(touch *)"))

    done = hookline(*RUN, cwd=project)

    assert done.returncode == 0, done.stderr
    read, touch = json.loads(done.stdout)["tool_calls"]
    assert (read["status"], touch["status"]) == ("blocked", "blocked")
    assert SECRET not in done.stdout
    assert not (project / "sentinel").exists()


def test_a_new_top_level_key_stays_a_warning_and_the_rules_hold(project: Path) -> None:
    path = write(project, {**deny("Read(./.env)", "Bash(touch *)"), "brandNewSetting": {"a": 1}})

    done = hookline(*RUN, cwd=project)

    assert done.returncode == 0, done.stderr
    assert f"hookline: warning: {path}: brandNewSetting: unknown key" in done.stderr
    assert "hookline: error" not in done.stderr
    assert not (project / "sentinel").exists()


# -- what hooks validate calls an error stops the run too -----------------------------------------


def guard_settings(project: Path, command: str) -> Path:
    hook = {"type": "command", "command": command}
    return write(project, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("./guard.sh", "command ./guard.sh is not executable"),
        ("./no-such-guard.sh", "command ./no-such-guard.sh does not exist"),
        ("python3 guards/missing.py", "script guards/missing.py does not exist"),
        ("no-such-program-anywhere --check", "command 'no-such-program-anywhere' is not found"),
    ],
)
def test_a_guard_that_cannot_start_stops_the_run(project: Path, command: str, words: str) -> None:
    script = project / "guard.sh"
    script.write_text("#!/bin/sh\necho 'no' >&2\nexit 2\n")  # executable bit not set
    path = guard_settings(project, command)

    done = hookline(*RUN, cwd=project)
    assert_stopped(project, done, f"{path}: hooks.PreToolUse {command}: {words}")
    validate = hookline("hooks", "validate", cwd=project)
    lenient = hookline(*RUN, "--lenient-settings", cwd=project)

    assert validate.returncode == 2 and words in validate.stdout
    assert lenient.returncode == 0, lenient.stderr  # Claude Code's way: the guard fails open
    assert f"hookline: warning: {path}: hooks.PreToolUse {command}: {words}" in lenient.stderr


def test_the_guard_made_executable_runs_and_holds(project: Path) -> None:
    script = project / "guard.sh"
    script.write_text("#!/bin/sh\necho 'no' >&2\nexit 2\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    guard_settings(project, "./guard.sh")

    done = hookline(*RUN, cwd=project)

    assert done.returncode == 0, done.stderr
    _, touch = json.loads(done.stdout)["tool_calls"]
    assert touch["status"] == "blocked"
    assert not (project / "sentinel").exists()
    assert os.access(script, os.X_OK)

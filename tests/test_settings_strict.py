"""A broken settings file stops the run (exit 2, one line: file, key, fix) before any tool runs;
``--lenient-settings`` loads what loads and warns, as Claude Code does. Entries for events
hookline does not run yet, and keys it does not know, never stop a run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline import Agent, ConfigError, ScriptedModel, load_project

#: The model runs ``touch sentinel`` in Bash, then ends: the sentinel shows whether Bash ran.
SCRIPT = {
    "turns": [
        {"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "touch sentinel"}}]},
        {"text": "done"},
    ]
}
GUARD = {"type": "command", "command": "echo 'no shell today' >&2; exit 2"}
RUN = ("run", "tidy up", "--model", "scripted:script.json", "--permission-mode",
       "bypassPermissions", "--output-format", "json")  # fmt: skip


def hooks(*groups: Any, event: str = "PreToolUse") -> str:
    return json.dumps({"hooks": {event: list(groups)}})


#: Each way a guard's settings file can be broken: (file text, key named, words of the error).
BROKEN = {
    "missing comma": (
        hooks({"matcher": "Bash", "hooks": [GUARD]}).replace('"Bash", ', '"Bash" '),
        None,
        "not valid JSON: Expecting ',' delimiter (line 1, column",
    ),
    "not an object": ("[]", None, "must hold a JSON object, not list"),
    "hooks not an object": (json.dumps({"hooks": [GUARD]}), "hooks", "must be an object"),
    "matcher not a regex": (
        hooks({"matcher": "Bash(", "hooks": [GUARD]}),
        "hooks.PreToolUse[0].matcher",
        "is not a valid regular expression",
    ),
    "flat entry without hooks": (
        hooks({"matcher": "Bash", **GUARD}),
        "hooks.PreToolUse[0].hooks",
        "must be a list, not NoneType",
    ),
    "unknown handler type": (
        hooks({"matcher": "Bash", "hooks": [{**GUARD, "type": "comand"}]}),
        "hooks.PreToolUse[0].hooks[0].type",
        "unknown type 'comand'",
    ),
    "agent hook without its prompt": (
        hooks({"matcher": "Bash", "hooks": [{"type": "agent"}]}),
        "hooks.PreToolUse[0].hooks[0].prompt",
        "prompt is missing",
    ),
    "handler without its command": (
        hooks({"matcher": "Bash", "hooks": [{"type": "command"}]}),
        "hooks.PreToolUse[0].hooks[0].command",
        "command is missing",
    ),
    "timeout not a number": (
        hooks({"matcher": "Bash", "hooks": [{**GUARD, "timeout": "5s"}]}),
        "hooks.PreToolUse[0].hooks[0].timeout",
        "timeout must be a positive number of seconds",
    ),
    "misspelt event": (
        hooks({"matcher": "Bash", "hooks": [GUARD]}, event="PretoolUse"),
        "hooks.PretoolUse",
        "unknown event 'PretoolUse'",
    ),
    "lower-case event": (
        hooks({"matcher": "Bash", "hooks": [GUARD]}, event="pretooluse"),
        "hooks.pretooluse",
        "unknown event 'pretooluse'",
    ),
    "event one letter off": (
        hooks({"matcher": "Bash", "hooks": [GUARD]}, event="PreTolUse"),
        "hooks.PreTolUse",
        "unknown event 'PreTolUse'",
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "script.json").write_text(json.dumps(SCRIPT))
    (tmp_path / ".claude").mkdir()
    return tmp_path


def write_settings(project: Path, text: str) -> Path:
    path = project / ".claude" / "settings.json"
    path.write_text(text)
    return path


def assert_one_error_line(stderr: str, *words: str) -> str:
    (line,) = stderr.splitlines()
    assert line.startswith("hookline: error: ") and "(fix: " in line, line
    assert "Traceback" not in stderr
    for word in words:
        assert word in line, line
    return line


@pytest.mark.parametrize("case", BROKEN.values(), ids=BROKEN.keys())
def test_a_broken_guard_stops_the_run_before_any_tool_runs(
    project: Path, case: tuple[str, str | None, str]
) -> None:
    text, key, words = case
    path = write_settings(project, text)

    done = hookline(*RUN, cwd=project)

    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    line = assert_one_error_line(done.stderr, f"{path}: ", words)
    if key is not None:
        assert f"{path}: {key}: " in line
    assert not (project / "sentinel").exists()  # Bash never ran
    assert not (project / ".hookline" / "state").exists()  # nor did a session start


def test_under_print_mode_a_broken_guard_exits_1_as_claude_p_does(project: Path) -> None:
    path = write_settings(project, '{"permissions": {"deny": ["Reed(./.env)"]}}')

    done = hookline("-p", *RUN[1:], cwd=project)

    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert_one_error_line(done.stderr, f"{path}: permissions.deny[0]: ", "did you mean Read")
    assert not (project / "sentinel").exists()


@pytest.mark.parametrize("case", BROKEN.values(), ids=BROKEN.keys())
def test_lenient_settings_drops_the_broken_guard_with_a_warning_as_claude_code_does(
    project: Path, case: tuple[str, str | None, str]
) -> None:
    text, key, words = case
    path = write_settings(project, text)

    done = hookline(*RUN, "--lenient-settings", cwd=project)

    assert done.returncode == 0, done.stderr
    warning = f"hookline: warning: {path}: {f'{key}: ' if key else ''}"
    assert warning in done.stderr and words in done.stderr
    (call,) = json.loads(done.stdout)["tool_calls"]
    assert call["status"] == "executed"
    assert (project / "sentinel").exists()  # the guard is gone: the command ran


def test_lenient_keeps_a_broken_guard_that_declares_on_failure_block_denying(
    project: Path,
) -> None:
    broken = {**GUARD, "type": "comand", "onFailure": "block"}
    write_settings(project, hooks({"matcher": "Bash", "hooks": [broken]}))

    strict = hookline(*RUN, cwd=project)
    lenient = hookline(*RUN, "--lenient-settings", cwd=project)

    assert strict.returncode == 2
    assert_one_error_line(strict.stderr, "hooks.PreToolUse[0].hooks[0].type", "unknown type")
    assert lenient.returncode == 0, lenient.stderr
    assert "declares onFailure block, so it denies every call it sees" in lenient.stderr
    (call,) = json.loads(lenient.stdout)["tool_calls"]
    assert call["status"] == "blocked"
    assert not (project / "sentinel").exists()


def test_a_missing_settings_file_named_on_the_command_line_stops_the_run(project: Path) -> None:
    write_settings(project, hooks({"matcher": "Bash", "hooks": [GUARD]}))

    done = hookline(*RUN, "--settings", "nofile.json", cwd=project)
    lenient = hookline(*RUN, "--settings", "nofile.json", "--lenient-settings", cwd=project)

    assert done.returncode == 2
    assert_one_error_line(done.stderr, f"{project / 'nofile.json'}: no such settings file")
    assert lenient.returncode == 0, lenient.stderr
    assert f"hookline: warning: {project / 'nofile.json'}: no such settings file" in (
        lenient.stderr
    )
    (call,) = json.loads(lenient.stdout)["tool_calls"]
    assert call["status"] == "blocked"  # the project's guard still loaded
    assert not (project / "sentinel").exists()


def test_the_error_line_counts_the_other_errors(project: Path) -> None:
    group = {"matcher": "Bash", "hooks": [{"type": "command"}, {"type": "nope"}]}
    path = write_settings(project, hooks(group))

    done = hookline(*RUN, cwd=project)

    assert done.returncode == 2
    assert_one_error_line(
        done.stderr,
        f"{path}: hooks.PreToolUse[0].hooks[0].command: command is missing",
        "then 1 more settings error (hookline hooks validate lists them))",
    )
    assert not (project / "sentinel").exists()


def test_an_event_not_run_yet_and_unknown_keys_stay_warnings_and_the_guard_holds(
    project: Path,
) -> None:
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{**GUARD, "statusMessage": "x"}]}],
            "TeammateIdle": [{"hooks": [{"type": "command", "command": "true"}]}],
        },
        "statusLine": {"type": "command", "command": "echo hi"},
        "somethingNew": True,
    }
    path = write_settings(project, json.dumps(settings))

    done = hookline(*RUN, cwd=project)

    assert done.returncode == 0, done.stderr
    assert "hookline: error" not in done.stderr
    new, event = [line for line in done.stderr.splitlines() if "warning" in line]
    assert event.startswith(f"hookline: warning: {path}: hooks.TeammateIdle: event 'TeammateIdle'")
    assert new.startswith(f"hookline: warning: {path}: somethingNew: unknown key 'somethingNew'")
    (call,) = json.loads(done.stdout)["tool_calls"]
    reason = f"[{GUARD['command']}]: no shell today\n"
    assert (call["status"], call["reason"]) == ("blocked", reason)
    assert not (project / "sentinel").exists()


@pytest.mark.parametrize("event", ["FutureToolEvent", "BeforeShellExecution", "SessionResume"])
def test_an_event_of_another_program_is_a_warning_and_the_guard_holds(
    project: Path, event: str
) -> None:
    """A well-formed name hookline does not know (a newer Claude Code's event, another agent's)
    warns and its hooks do not run, so a settings file shared with them still runs; Claude Code
    ignores such a name too."""
    ran = project / "foreign-ran"
    settings = {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [GUARD]}],
            event: [{"hooks": [{"type": "command", "command": f"touch {ran}"}]}],
        }
    }
    path = write_settings(project, json.dumps(settings))

    done = hookline(*RUN, cwd=project)

    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "hookline:" in line]
    assert line.startswith(f"hookline: warning: {path}: hooks.{event}: event '{event}' is not")
    assert "its hooks do not run" in line
    (call,) = json.loads(done.stdout)["tool_calls"]
    assert call["status"] == "blocked"  # the guard beside it loaded and held
    assert not (project / "sentinel").exists()
    assert not ran.exists()


def test_hooks_validate_exits_2_on_errors_and_0_on_warnings_only(project: Path) -> None:
    write_settings(project, BROKEN["matcher not a regex"][0])
    broken = hookline("hooks", "validate", "--json", cwd=project)
    subagent = {"hooks": [{"type": "command", "command": "true"}]}
    write_settings(project, json.dumps({"hooks": {"TeammateIdle": [subagent]}}))
    shared = hookline("hooks", "validate", "--json", cwd=project)

    assert broken.returncode == 2
    report = json.loads(broken.stdout)
    assert [(f["severity"], f["hook"]) for f in report["findings"]] == [
        ("error", "hooks.PreToolUse[0].matcher")
    ]
    assert shared.returncode == 0, shared.stdout
    report = json.loads(shared.stdout)
    assert (report["errors"], report["warnings"]) == (0, 1)
    (finding,) = report["findings"]
    assert (finding["severity"], finding["event"]) == ("warning", "TeammateIdle")


def test_load_project_raises_a_config_error_unless_lenient(project: Path) -> None:
    path = write_settings(project, BROKEN["matcher not a regex"][0])

    with pytest.raises(ConfigError) as raised:
        load_project(project)
    loaded = load_project(project, lenient=True)

    assert (raised.value.file, raised.value.key) == (str(path), "hooks.PreToolUse[0].matcher")
    assert raised.value.fix and "Bash|Edit" in raised.value.fix
    assert len(loaded.hooks) == 0
    assert [(w.key, w.severity) for w in loaded.warnings] == [
        ("hooks.PreToolUse[0].matcher", "error")
    ]


# -- a paused session resumed after its settings broke -----------------------------------------

WRITE = {
    "turns": [
        {"tool_calls": [{"id": "t_w", "name": "Write",
                         "input": {"file_path": "out.txt", "content": "v1"}}]},
        {"text": "written"},
    ]
}  # fmt: skip


def test_resume_stops_on_broken_settings_unless_lenient(project: Path) -> None:
    (project / "script.json").write_text(json.dumps(WRITE))
    paused = hookline("run", "write it", "--model", "scripted:script.json", "--defer-asks",
                      "--output-format", "json", cwd=project)  # fmt: skip
    session = json.loads(paused.stdout)["session_id"]
    write_settings(project, hooks({"matcher": "Write(", "hooks": [GUARD]}))
    resume = ("sessions", "resume", session, "--approve", "--reload-settings")

    strict = hookline(*resume, cwd=project)
    written = (project / "out.txt").exists()
    shown = json.loads(hookline("sessions", "show", session, "--json", cwd=project).stdout)
    lenient = hookline(*resume, "--lenient-settings", "--output-format", "json", cwd=project)

    assert strict.returncode == 2
    assert_one_error_line(strict.stderr, "hooks.PreToolUse[0].matcher", "Write(")
    assert (shown["status"], written) == ("paused", False)
    assert lenient.returncode == 0, lenient.stderr
    assert "hookline: warning:" in lenient.stderr
    assert json.loads(lenient.stdout)["final_text"] == "written"
    assert (project / "out.txt").read_text() == "v1"


@pytest.mark.parametrize(
    "event",
    ["pretooluse", "PreToolUse ", " PreToolUse", "PreTooluse", "Pre\u200bToolUse", "PreToolUse\n",
     "ＰreToolUse"],
)  # fmt: skip
def test_a_look_alike_event_name_is_an_error_not_a_skipped_guard(
    tmp_path: Path, event: str
) -> None:
    """A guard filed under a misspelt or look-alike event would never run: the load stops."""
    settings = {"hooks": {event: [{"matcher": "Bash", "hooks": [GUARD]}]}}
    with pytest.raises(ConfigError):
        load_project(tmp_path, settings=[json.dumps(settings)])


@pytest.mark.parametrize(
    "command",
    ["rm victim", "/bin/rm victim", "command rm victim", "'r'm victim", "env rm victim",
     "bash -c 'rm victim'", "echo x | xargs rm victim"],
)  # fmt: skip
def test_a_disallowed_tools_rule_holds_against_every_spelling(tmp_path: Path, command: str) -> None:
    """``--disallowedTools "Bash(rm:*)"`` is a deny rule like any: in bypassPermissions, the
    spellings that try to get past it leave the file in place."""
    victim = tmp_path / "victim"
    victim.write_text("here")
    project = load_project(tmp_path, cli_rules={"deny": ["Bash(rm:*)"]}, mode="bypassPermissions")
    agent = Agent(ScriptedModel([]), **project.agent_options())
    result = asyncio.run(agent.call_tool("Bash", {"command": command}))
    assert (result.status, result.permission) == ("blocked", "deny")
    assert victim.read_text() == "here"

"""Command hooks: real processes, run and read as the Claude Code CLI runs and reads them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hookline import Decision, HookEngine, HookRegistry
from hookline._claude.command import CommandFailed, CommandHook, CommandNotStarted, InvalidJson
from hookline._events import (
    HookEvent,
    PermissionRequest,
    PostToolUse,
    PreToolUse,
    Scope,
    SessionStart,
    Stop,
    UserPromptSubmit,
)
from hookline._support.process import STREAM_CAP

RECORD = Path(__file__).parent / "hook_scripts" / "record.py"
PY = shlex.quote(sys.executable)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def scope(tmp_path: Path) -> Scope:
    """Events whose cwd (a ``work`` folder) is not the project dir, as after a ``cd``."""
    cwd = tmp_path / "work"
    cwd.mkdir()
    return Scope("sess-cmd", str(tmp_path / "transcript.jsonl"), str(cwd))


@pytest.fixture
def pre(scope: Scope) -> PreToolUse:
    return scope.event(
        PreToolUse, tool_name="Bash", tool_input={"command": "echo hi"}, tool_use_id="toolu_1"
    )


def hook(command: str, project: Path, **options: Any) -> CommandHook:
    return CommandHook(command, project_dir=str(project), **options)


def run(runner: CommandHook, event: HookEvent) -> Decision | None:
    return asyncio.run(runner.run(event))


def dispatch(event: HookEvent, *hooks: CommandHook, **options: Any) -> Any:
    registry = HookRegistry()
    for runner in hooks:
        registry.add(event.name, runner, **options)
    return asyncio.run(HookEngine(registry).dispatch(event))


def py(code: str) -> str:
    """A shell command running ``code`` with this Python."""
    return f"{PY} -c {shlex.quote(code)}"


def prints(data: dict[str, Any], *, code: int = 0, stderr: str = "") -> str:
    """A shell command that prints ``data`` as JSON, writes ``stderr`` and exits ``code``."""
    err = f"printf %s {shlex.quote(stderr)} >&2; " if stderr else ""
    return f"printf %s {shlex.quote(json.dumps(data))}; {err}exit {code}"


def deny_json(reason: str, **extra: Any) -> dict[str, Any]:
    specific = {"hookEventName": "PreToolUse", "permissionDecision": "deny"}
    return {"hookSpecificOutput": {**specific, "permissionDecisionReason": reason, **extra}}


ALLOW_JSON = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


def gone(pid: int) -> bool:
    """True if no live process has this pid (a zombie waiting for init counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def all_gone(*pids: int, group: int, within: float = 10.0) -> bool:
    """True once none of ``pids`` nor any member of ``group`` lives (a killed process may take
    a moment to die after its signal is sent)."""
    deadline = time.monotonic() + within
    while not (all(gone(pid) for pid in pids) and not group_members(group)):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


async def appeared(path: Path) -> None:
    """Return once ``path`` holds a whole line (callers bound the wait)."""
    while not (path.exists() and path.read_text().endswith("\n")):
        await asyncio.sleep(0.01)


def group_members(pgid: int) -> list[int]:
    """Live processes whose process group is ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(entry.name))
    return members


# -- the runner as a hook -----------------------------------------------------------------------


def test_a_command_hook_is_an_out_of_process_command_runner(project):
    runner = hook("echo hi", project)
    assert (runner.handler, runner.in_process, runner.inline) == ("command", False, False)
    assert runner.describe() == "echo hi"
    exec_form = hook("python3", project, args=["${CLAUDE_PROJECT_DIR}/h.py", "a b"])
    assert exec_form.describe() == "python3 ${CLAUDE_PROJECT_DIR}/h.py a b"
    assert hook("echo hi", project).key == runner.key
    assert hook("echo hi", project, args=[]).key != runner.key
    assert hook("echo ho", project).key != runner.key


def test_a_command_hook_fails_open_by_default_even_on_a_gate_event(pre, project):
    registry = HookRegistry()
    registry.add("PreToolUse", hook("exit 1", project))
    (spec,) = registry.plan("PreToolUse").specs
    assert spec.failure == "open"


# -- what the process gets ----------------------------------------------------------------------


def test_stdin_is_the_compact_payload_on_one_line_with_a_newline(scope, project, tmp_path):
    event = scope.event(
        PreToolUse,
        tool_name="Bash",
        tool_input={"command": 'echo "héllo ✓"', "description": "a  b"},
        tool_use_id="toolu_1",
    )
    out = tmp_path / "rec.json"
    assert run(hook(f"{PY} {RECORD} {out}", project), event) is None
    sent = json.dumps(event.to_payload(), separators=(",", ":"), ensure_ascii=False) + "\n"
    record = json.loads(out.read_text())
    assert bytes.fromhex(record["stdin_hex"]) == sent.encode()
    assert "héllo ✓" in record["stdin"]


def test_the_process_runs_in_the_event_cwd_with_claude_codes_environment(
    pre, project, tmp_path, monkeypatch
):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector")
    monkeypatch.setenv("OTELX", "not an otel variable")
    monkeypatch.setenv("CLAUDE_ENV_FILE", "/inherited/env-file")
    out = tmp_path / "rec.json"
    runner = hook(
        f"{PY} {RECORD} {out}",
        project,
        env={"MY_SETTING": "on"},
        env_file=lambda event: str(tmp_path / "env.sh"),
    )
    run(runner, pre)
    record = json.loads(out.read_text())
    env = record["env"]
    assert record["cwd"] == pre.cwd != str(project)
    assert env["CLAUDE_PROJECT_DIR"] == str(project)
    assert env["CLAUDE_CODE_SESSION_ID"] == "sess-cmd"
    assert (env["CLAUDECODE"], env["HOOKLINE"], env["MY_SETTING"]) == ("1", "1", "on")
    assert env["PWD"] == pre.cwd
    assert not [name for name in env if name.startswith("OTEL_")]
    assert env["OTELX"] == "not an otel variable"
    assert "CLAUDE_ENV_FILE" not in env  # only SessionStart, Setup, CwdChanged, FileChanged


def test_session_start_hooks_get_the_env_file(scope, project, tmp_path):
    out = tmp_path / "rec.json"
    seen: list[str] = []

    def env_file(event: HookEvent) -> str:
        seen.append(event.name)
        return str(tmp_path / "env.sh")

    runner = hook(f"{PY} {RECORD} {out}", project, env_file=env_file)
    run(runner, scope.event(SessionStart, source="startup"))
    assert json.loads(out.read_text())["env"]["CLAUDE_ENV_FILE"] == str(tmp_path / "env.sh")
    run(runner, scope.event(UserPromptSubmit, prompt="hi"))
    assert "CLAUDE_ENV_FILE" not in json.loads(out.read_text())["env"]
    assert seen == ["SessionStart"]  # not asked for a file on other events


def test_the_process_leads_its_own_process_group(pre, project, tmp_path):
    out = tmp_path / "rec.json"
    run(hook(sys.executable, project, args=[str(RECORD), str(out)]), pre)  # no shell between
    record = json.loads(out.read_text())
    assert record["pgid"] == record["pid"] != os.getpgid(0)


def test_a_hook_that_ignores_a_large_stdin_is_read_normally(scope, project):
    event = scope.event(
        PreToolUse, tool_name="Bash", tool_input={"command": "x" * 2_000_000}, tool_use_id="t"
    )
    assert run(hook(prints(deny_json("R")), project), event) == Decision.deny("R")


# -- exit 0 -------------------------------------------------------------------------------------


def test_exit_0_with_a_json_deny_denies(pre, project):
    assert run(hook(prints(deny_json("no rm")), project), pre) == Decision.deny("no rm")


def test_exit_0_json_after_leading_whitespace_is_still_json(pre, project):
    block = json.dumps({"decision": "block", "reason": "R"})
    command = f"printf '  \\n %s\\n' {shlex.quote(block)}"
    assert run(hook(command, project), pre) == Decision.deny("R")


def test_exit_0_plain_text_is_ignored_on_pre_tool_use(pre, project):
    assert run(hook("echo O", project), pre) is None


def test_exit_0_invalid_json_is_a_failure_that_falls_back_to_plain_text(scope, pre, project):
    with pytest.raises(InvalidJson, match="starts like JSON but does not parse") as caught:
        run(hook("printf '{not json'", project), pre)
    assert caught.value.fallback is None  # plain text on PreToolUse says nothing
    (record,) = dispatch(pre, hook("printf '{not json'", project), failure="open").runs
    assert (record.failure, record.answer.is_empty) == ("invalid_json", True)
    event = scope.event(UserPromptSubmit, prompt="hi")
    (record,) = dispatch(event, hook("printf '{not json'", project), failure="open").runs
    assert record.failure == "invalid_json"
    assert record.answer.additional_context == ("UserPromptSubmit hook success: {not json",)


def over_the_cap(project: Path, *, code: int) -> str:
    """A command printing a JSON deny longer than ``STREAM_CAP``, then exiting ``code``."""
    (project / "huge.json").write_text(json.dumps(deny_json("x" * STREAM_CAP)))
    return f"cat {project / 'huge.json'}; exit {code}"


def test_a_json_answer_over_the_cap_is_a_failure_not_a_truncated_parse(pre, project):
    command = over_the_cap(project, code=0)
    (record,) = dispatch(pre, hook(command, project), failure="open").runs
    assert (record.failure, record.answer.is_empty) == ("output_over_cap", True)
    (record,) = dispatch(pre, hook(command, project), failure="closed").runs
    assert (record.failure, record.decision) == ("output_over_cap", "deny")


@pytest.mark.parametrize("failure", ["open", "closed"])
def test_exit_2_still_blocks_when_its_json_is_over_the_cap(pre, project, failure):
    command = over_the_cap(project, code=2)
    (record,) = dispatch(pre, hook(command, project), failure=failure).runs
    assert (record.failure, record.decision) == ("output_over_cap", "deny")
    assert record.reason == f"[{command}]: No stderr output"  # the block's own reason


@pytest.mark.parametrize("form", ["shell", "exec"])
def test_death_by_a_signal_is_a_failure_naming_it(pre, project, form):
    code = "import os; os.kill(os.getpid(), 15)"
    args = None if form == "shell" else ["-c", code]
    runner = hook(f"exec {py(code)}" if args is None else sys.executable, project, args=args)
    (record,) = dispatch(pre, runner, failure="open").runs
    assert (record.failure, record.error) == ("signal", "was killed by SIGTERM")


def test_exit_0_plain_text_is_context_on_user_prompt_submit(scope, project):
    event = scope.event(UserPromptSubmit, prompt="hi")
    answer = run(hook("printf '  \\n O \\n\\n'", project), event)
    assert answer == Decision(additional_context=("UserPromptSubmit hook success: O",))


def test_exit_0_plain_text_on_session_start_is_labelled_with_the_source(scope, project):
    answer = run(hook("echo O", project), scope.event(SessionStart, source="resume"))
    assert answer == Decision(additional_context=("SessionStart:resume hook success: O",))


def test_exit_0_with_no_output_or_an_empty_object_is_no_decision(scope, project):
    event = scope.event(UserPromptSubmit, prompt="hi")
    assert run(hook("true", project), event) is None
    assert run(hook("echo '{}'", project), event) is None


def test_a_wrong_hook_event_name_is_an_invalid_answer(pre, project):
    output = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "C"}}
    (record,) = dispatch(pre, hook(prints(output), project)).runs
    assert record.failure == "wrong_event"
    assert "expected 'PreToolUse' but got 'PostToolUse'" in (record.error or "")
    assert record.answer.is_empty


# -- exit 2 -------------------------------------------------------------------------------------


def test_exit_2_denies_with_the_command_and_its_stderr_verbatim(pre, project):
    command = "echo S >&2; exit 2"
    assert run(hook(command, project), pre) == Decision.deny(f"[{command}]: S\n")


def test_exit_2_without_stderr_says_so(pre, project):
    assert run(hook("exit 2", project), pre) == Decision.deny("[exit 2]: No stderr output")


def test_exit_2_blocks_even_when_the_json_allows(pre, project):
    command = prints(ALLOW_JSON, code=2, stderr="S")
    assert run(hook(command, project), pre) == Decision.deny(f"[{command}]: S")


def test_exit_2_takes_the_reason_of_a_json_deny_and_keeps_its_context(pre, project):
    command = prints(deny_json("R", additionalContext="C"), code=2, stderr="S")
    assert run(hook(command, project), pre) == Decision(
        permission="deny", reason="R", additional_context=("C",)
    )


def test_exit_2_with_an_invalid_json_answer_still_blocks(pre, project):
    bogus = prints({"decision": "bogus"}, code=2, stderr="S")
    (record,) = dispatch(pre, hook(bogus, project), failure="open").runs
    assert (record.failure, record.answer) == ("invalid", Decision.deny(f"[{bogus}]: S"))
    other = {"hookSpecificOutput": {"hookEventName": "PostToolUse"}}
    wrong = prints(other, code=2, stderr="S")
    unprocessable = f"[{wrong}]: blocked (exit 2); its output could not be processed"
    (record,) = dispatch(pre, hook(wrong, project), failure="open").runs
    assert (record.failure, record.answer) == ("wrong_event", Decision.deny(unprocessable))


def test_exit_2_drops_a_json_input_rewrite(pre, project):
    rewrite = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"a": 1}}}
    answer = run(hook(prints(rewrite, code=2, stderr="S"), project), pre)
    assert answer is not None
    assert (answer.permission, answer.updated_input) == ("deny", None)


@pytest.mark.parametrize(
    ("cls", "fields"),
    [
        (UserPromptSubmit, {"prompt": "hi"}),
        (Stop, {}),
        (
            PostToolUse,
            {"tool_name": "Bash", "tool_input": {}, "tool_response": "x", "tool_use_id": "t"},
        ),
    ],
)
def test_exit_2_blocks_on_every_event_it_blocks(scope, project, cls, fields):
    command = "printf S >&2; exit 2"
    answer = run(hook(command, project), scope.event(cls, **fields))
    assert answer == Decision.deny(f"[{command}]: S")


def test_exit_2_on_permission_request_is_ignored_but_its_json_still_decides(scope, project):
    event = scope.event(PermissionRequest, tool_name="Bash", tool_input={"command": "touch x"})
    assert run(hook("echo S >&2; exit 2", project), event) is None
    verdict = {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}
    allow = {"hookSpecificOutput": verdict}
    assert run(hook(prints(allow, code=2), project), event) == Decision.allow()


def test_exit_2_on_session_start_is_a_non_blocking_failure(scope, project):
    event = scope.event(SessionStart, source="startup")
    with pytest.raises(CommandFailed, match="first line\nsecond line"):
        run(hook("printf 'first line\\nsecond line\\n' >&2; exit 2", project), event)
    (record,) = dispatch(event, hook("echo S-START >&2; exit 2", project)).runs
    assert (record.failure, record.handler) == ("exit", "command")
    assert record.error == "Failed with non-blocking status code: S-START"


# -- other exit codes ---------------------------------------------------------------------------


def test_exit_1_with_a_json_deny_still_denies(pre, project):
    assert run(hook(prints(deny_json("R"), code=1), project), pre) == Decision.deny("R")


def test_exit_3_with_json_context_gives_the_context(pre, project):
    ctx = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "C"}}
    assert run(hook(prints(ctx, code=3), project), pre) == Decision.context("C")


def test_exit_1_with_plain_output_fails_open(pre, project):
    command = "echo out; printf 'first\\nsecond\\n' >&2; exit 1"
    result = dispatch(pre, hook(command, project), failure="open")
    (record,) = result.runs
    assert record.failure == "exit"
    assert record.error == "Failed with non-blocking status code: first"
    assert result.decision.permission is None


def test_exit_1_with_plain_output_denies_when_the_hook_fails_closed(pre, project):
    result = dispatch(pre, hook("echo S >&2; exit 1", project), failure="closed")
    assert result.runs[0].failure == "exit"
    assert result.decision.permission == "deny"


def test_a_missing_shell_command_is_a_non_blocking_failure(pre, project):
    (record,) = dispatch(pre, hook("no-such-hook-command-xyz", project)).runs
    assert record.failure == "exit"
    assert "not found" in (record.error or "")


# -- exec form ----------------------------------------------------------------------------------


def test_exec_form_substitutes_the_project_dir_and_passes_args_unsplit(pre, project):
    script = project / "hook.sh"
    script.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$CLAUDE_PROJECT_DIR/argv.txt"\n')
    script.chmod(0o755)
    args = ["${CLAUDE_PROJECT_DIR}/a", "$CLAUDE_PROJECT_DIR/b", "two words", "$(id)"]
    assert run(hook("${CLAUDE_PROJECT_DIR}/hook.sh", project, args=args), pre) is None
    lines = (project / "argv.txt").read_text().splitlines()
    assert lines == [f"{project}/a", "$CLAUDE_PROJECT_DIR/b", "two words", "$(id)"]


def test_exec_form_exit_2_quotes_the_command_as_written(pre, project):
    args = ["-c", "import sys; sys.stderr.write('S'); sys.exit(2)", "${CLAUDE_PROJECT_DIR}"]
    runner = hook(sys.executable, project, args=args)
    assert run(runner, pre) == Decision.deny(f"[{' '.join([sys.executable, *args])}]: S")


def test_exec_form_with_a_missing_executable_fails_to_spawn(pre, project):
    with pytest.raises(CommandNotStarted, match="/no/such/hook"):
        run(hook("/no/such/hook", project, args=["a"]), pre)
    (record,) = dispatch(pre, hook("/no/such/hook", project, args=[])).runs
    assert record.failure == "spawn_failed"
    assert record.answer.is_empty


# -- time, parallelism, dedupe ------------------------------------------------------------------


def test_a_timeout_kills_the_whole_process_group(pre, project, tmp_path):
    after = tmp_path / "finished"  # written only by a hook left to run its 30 s to the end
    command = (
        f"sleep 30 & echo $! > {tmp_path}/child; echo $$ > {tmp_path}/shell; sleep 30; "
        f"touch {after}"
    )
    (record,) = dispatch(pre, hook(command, project), timeout=0.5).runs
    assert record.failure == "timeout"
    assert not after.exists()
    shell, child = (int((tmp_path / name).read_text()) for name in ("shell", "child"))
    assert all_gone(shell, child, group=shell)


def test_a_hook_that_survives_sigterm_is_killed_after_the_grace(pre, project, tmp_path):
    """SIGTERM comes first and the hook has time to act on it (its trap writes ``term``, which
    a SIGKILL sent with the SIGTERM would prevent); then, still alive, it is killed before it
    can finish (``finished`` stays absent)."""
    term, after = tmp_path / "term", tmp_path / "finished"
    command = (
        f"trap 'echo term > {term}' TERM; echo $$ > {tmp_path}/shell; sleep 30; sleep 30; "
        f"touch {after}"
    )
    (record,) = dispatch(pre, hook(command, project, kill_grace=0.3), timeout=0.5).runs
    assert record.failure == "timeout"
    assert term.read_text() == "term\n"
    assert not after.exists()
    shell = int((tmp_path / "shell").read_text())
    assert all_gone(shell, group=shell)


def test_a_cancelled_run_reraises_the_cancellation(pre, project, tmp_path):
    # The pid is written once the hook has read its stdin, so the run is past the spawn and
    # waiting for the hook when it is cancelled.
    command = f"cat > /dev/null; echo $$ > {tmp_path}/pid; sleep 30"

    async def cancel_once_started() -> None:
        task = asyncio.ensure_future(hook(command, project).run(pre))
        await asyncio.wait_for(appeared(tmp_path / "pid"), timeout=30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_once_started())
    shell = int((tmp_path / "pid").read_text())
    assert all_gone(shell, group=shell)


def test_a_background_child_holding_stdout_does_not_delay_the_answer(pre, project, tmp_path):
    """The child keeps the hook's stdout open until the test releases it, which it does only
    after the answer: a runner that waited for the end of stdout would never answer (the safety
    timeout turns that into a failure)."""
    release = tmp_path / "release"
    holder = f"while [ ! -e {release} ]; do sleep 0.05; done"
    command = f"( {holder} ) & echo $! > {tmp_path}/bg; " + prints(deny_json("R"))
    try:
        answer = asyncio.run(asyncio.wait_for(hook(command, project).run(pre), timeout=60))
        assert answer == Decision.deny("R")
    finally:
        release.touch()  # the holder's loop ends on its own once it sees the file
        with contextlib.suppress(ProcessLookupError):
            os.kill(int((tmp_path / "bg").read_text()), signal.SIGKILL)


def meet(mine: Path, other: Path) -> str:
    """A command that marks ``mine`` and waits for ``other``: two of them, each waiting for the
    other's mark, both succeed only if they run at the same time. Alone, it gives up after
    about 30 s and exits 1."""
    wait = f"i=0; while [ ! -e {other} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done"
    return f"touch {mine}; {wait}; [ -e {other} ]"


def test_hooks_for_one_event_run_in_parallel(pre, project, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    result = dispatch(pre, hook(meet(a, b), project), hook(meet(b, a), project))
    assert [record.failure for record in result.runs] == [None, None]  # run in turn: "exit"


def test_identical_commands_run_once_per_event(pre, project, tmp_path):
    command = f"echo ran >> {tmp_path}/count"
    result = dispatch(pre, hook(command, project), hook(command, project))
    assert (tmp_path / "count").read_text() == "ran\n"
    assert len(result.runs) == 1
    dispatch(pre, hook(command, project), hook(command, project, args=[]))
    assert (tmp_path / "count").read_text().count("ran") == 2  # exec form: another hook


# -- output caps --------------------------------------------------------------------------------


def test_huge_plain_output_does_not_hang_and_its_context_is_capped(scope, project):
    event = scope.event(UserPromptSubmit, prompt="hi")
    command = py("import sys; sys.stdout.write('A' * 5_000_000)")
    # A runner that stopped reading would leave the writer blocked on a full pipe forever; the
    # safety timeout turns that hang into a failure.
    answer = asyncio.run(asyncio.wait_for(hook(command, project).run(event), timeout=120))
    assert answer is not None
    (context,) = answer.additional_context
    assert context.startswith("UserPromptSubmit hook success: AAAA")
    assert context.count("A") == 10_000
    assert context.endswith("[... 4990000 more characters of hook output cut]")


def test_huge_stderr_on_exit_2_gives_a_capped_reason(pre, project):
    command = py("import sys; sys.stderr.write('E' * 3_000_000); sys.exit(2)")
    answer = run(hook(command, project, output_limit=500), pre)
    assert answer is not None and answer.permission == "deny"
    assert answer.reason is not None
    assert answer.reason.startswith(f"[{command}]: EEE")
    assert len(answer.reason) < 600
    assert answer.reason.endswith("more characters of hook output cut]")


def test_json_context_and_reason_are_capped(pre, project):
    command = prints(deny_json("R" * 50, additionalContext="C" * 80))
    answer = run(hook(command, project, output_limit=20), pre)
    assert answer is not None
    note = "\n[... {} more characters of hook output cut]"
    assert answer.reason == "R" * 20 + note.format(30)
    assert answer.additional_context == ("C" * 20 + note.format(60),)

"""Fail closed means closed: every way a hook can fail, as fail-open and as fail-closed.

Each case runs through the real Agent: the model calls Bash with a command that would create a
sentinel file, and one PreToolUse hook fails. Command hooks are real processes loaded from a
``.claude/settings.json`` (``"onFailure": "block"`` makes them fail closed); Python gates fail
closed by default and are told ``failure="open"`` otherwise.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cli_runner import hookline
from hookline import Agent, HookEngine, HookRegistry, PreToolUse, ScriptedModel
from hookline._project import load_hooks
from hookline._support.process import STREAM_CAP

PY = shlex.quote(sys.executable)
GATE = "gate_under_test"


@dataclass(frozen=True)
class Case:
    """One way to fail: the hook, the kind recorded, and words the refusal must hold."""

    kind: str
    says: str  # how the refusal names the failure
    error: str  # what the recorded error holds
    hook: Any  # command hooks: tmp_path -> settings handler; Python: the gate


def script(tmp_path: Path, body: str, *, name: str = "hook.sh") -> str:
    """A shell script written into tmp_path; its path, the hook's command."""
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def deny(event_name: str, reason: str) -> str:
    output = {"hookEventName": event_name, "permissionDecision": "deny"}
    return json.dumps({"hookSpecificOutput": {**output, "permissionDecisionReason": reason}})


def huge_deny(tmp_path: Path) -> dict[str, Any]:
    """A hook printing a JSON deny of about 2 MB, twice the cap."""
    (tmp_path / "huge.py").write_text(f"print({deny('PreToolUse', 'x' * 2_000_000)!r})\n")
    return {"command": script(tmp_path, f"exec {PY} {tmp_path / 'huge.py'}")}


COMMANDS = {
    "invalid_json": Case(
        "invalid_json",
        "gave an answer that is not valid JSON",
        "starts like JSON but does not parse",
        lambda tmp: {"command": script(tmp, "printf '{\"hookSpecificOutput\": '")},
    ),
    "output_over_cap": Case(
        "output_over_cap", "gave an answer too long to read", f"{STREAM_CAP}-byte cap", huge_deny
    ),
    "wrong_event": Case(
        "wrong_event",
        "answered for another event",
        "expected 'PreToolUse' but got 'PostToolUse'",
        lambda tmp: {"command": script(tmp, f"printf %s {shlex.quote(deny('PostToolUse', 'no'))}")},
    ),
    "timeout": Case(
        "timeout",
        "did not answer in time",
        "did not answer within 0.3s",
        lambda tmp: {"command": script(tmp, "sleep 30"), "timeout": 0.3},
    ),
    "spawn_failed": Case(
        "spawn_failed",
        "could not be started",
        "no-such-hook",
        lambda tmp: {"command": str(tmp / "no-such-hook"), "args": []},
    ),
    "signal": Case(
        "signal",
        "was killed by a signal",
        "SIGKILL",
        lambda tmp: {"command": script(tmp, "kill -9 $$"), "args": []},  # exec form: no sh -c
    ),
}


def raises(error: type[BaseException], *args: object) -> Callable[[Any], Any]:
    def gate(event: Any) -> Any:
        raise error(*args)

    return gate


def exits(event: Any) -> Any:
    sys.exit(0)


PYTHON = {
    "ValueError": Case(
        "exception", "raised an exception", "ValueError: bad", raises(ValueError, "bad")
    ),
    "sys.exit(0)": Case("exception", "raised an exception", "SystemExit: 0", exits),
    "KeyboardInterrupt": Case(
        "exception", "raised an exception", "KeyboardInterrupt", raises(KeyboardInterrupt)
    ),
    "GeneratorExit": Case(
        "exception", "raised an exception", "GeneratorExit", raises(GeneratorExit)
    ),
}


def as_async(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    async def gate(event: Any) -> Any:
        await asyncio.sleep(0)
        return fn(event)

    return gate


def bash_touching(sentinel: Path) -> ScriptedModel:
    call = {"id": "toolu_1", "name": "Bash", "input": {"command": f"touch {sentinel}"}}
    return ScriptedModel([{"tool_calls": [call]}, {"text": "done"}])


def run_command_hook(
    tmp_path: Path, handler: dict[str, Any], *, closed: bool, warned: bool = False
) -> tuple[Any, Path]:
    handler = {"type": "command", **handler}
    if closed:
        handler["onFailure"] = "block"
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    registry, found = load_hooks(tmp_path)
    assert bool(found.warnings) == warned
    sentinel = tmp_path / "sentinel"
    agent = Agent(bash_touching(sentinel), hooks=registry, cwd=tmp_path)
    return agent.run_sync("make the file"), sentinel


def run_python_hook(
    tmp_path: Path, gate: Callable[[Any], Any], *, closed: bool, threaded: bool = False
) -> tuple[Any, Path]:
    sentinel = tmp_path / "sentinel"
    agent = Agent(bash_touching(sentinel), cwd=tmp_path)
    policy = {} if closed else {"failure": "open"}  # Python gates fail closed by default
    agent.registry.add("PreToolUse", gate, name=GATE, threaded=threaded, **policy)
    return agent.run_sync("make the file"), sentinel


def check(result: Any, sentinel: Path, case: Case, hook: str, *, closed: bool) -> None:
    (run,) = [r for r in result.hook_runs if r.event == "PreToolUse"]
    assert (run.hook, run.failure) == (hook, case.kind)
    assert case.error in (run.error or "")
    (call,) = result.tool_calls
    if closed:
        assert not sentinel.exists()
        assert call.status == "blocked"
        assert f"hook {hook!r} {case.says}" in call.reason
        assert case.error in call.reason
        assert call.content.startswith("PreToolUse:Bash hook error: The PreToolUse hook")
        assert run.decision == "deny"
    else:
        assert sentinel.exists()
        assert call.status == "executed"
        assert run.decision is None
    assert result.stop_reason == "end_turn"


@pytest.mark.parametrize("closed", [True, False], ids=["fail-closed", "fail-open"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_failing_command_hook(tmp_path: Path, name: str, closed: bool) -> None:
    case = COMMANDS[name]
    handler = case.hook(tmp_path)
    result, sentinel = run_command_hook(tmp_path, handler, closed=closed)
    hook = " ".join([handler["command"], *handler.get("args", [])])
    check(result, sentinel, case, hook, closed=closed)


@pytest.mark.parametrize("closed", [True, False], ids=["fail-closed", "fail-open"])
@pytest.mark.parametrize("style", ["sync", "async", "threaded"])
@pytest.mark.parametrize("name", list(PYTHON))
def test_a_failing_python_gate(tmp_path: Path, name: str, style: str, closed: bool) -> None:
    case = PYTHON[name]
    gate = as_async(case.hook) if style == "async" else case.hook
    result, sentinel = run_python_hook(tmp_path, gate, closed=closed, threaded=style == "threaded")
    check(result, sentinel, case, GATE, closed=closed)


# -- around the table ---------------------------------------------------------------------------


def test_invalid_json_on_exit_0_failing_open_is_still_plain_text_as_in_claude_code(tmp_path):
    settings = {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "printf '{oops'"}]}]
        }
    }
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    registry, _ = load_hooks(tmp_path)
    agent = Agent(ScriptedModel([{"text": "done"}]), hooks=registry, cwd=tmp_path)
    result = agent.run_sync("hi")
    (run,) = [r for r in result.hook_runs if r.event == "UserPromptSubmit"]
    assert run.failure == "invalid_json"
    assert run.answer.additional_context == ("UserPromptSubmit hook success: {oops",)


def test_a_cancelled_run_still_cancels_through_a_hook(scope):
    started = asyncio.Event()

    async def waits(event):
        started.set()
        await asyncio.sleep(30)

    registry = HookRegistry()
    registry.add("PreToolUse", waits, name=GATE)
    event = scope.event(PreToolUse, tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t")

    async def cancel_mid_hook():
        task = asyncio.ensure_future(HookEngine(registry).dispatch(event))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled()

    assert asyncio.run(cancel_mid_hook())


@pytest.mark.parametrize("threaded", [False, True], ids=["async", "threaded"])
def test_a_cancelled_error_the_hook_raises_itself_is_its_failure(scope, threaded):
    own = raises(asyncio.CancelledError)
    registry = HookRegistry()
    registry.add("PreToolUse", own if threaded else as_async(own), name=GATE, threaded=threaded)
    event = scope.event(PreToolUse, tool_name="Bash", tool_input={"command": "ls"}, tool_use_id="t")
    result = asyncio.run(HookEngine(registry).dispatch(event))
    assert (result.runs[0].failure, result.decision.permission) == ("exception", "deny")
    assert result.runs[0].error == "CancelledError"


# -- hookline run, end to end -------------------------------------------------------------------

EXITING_GATE = """
import sys

def register(registry):
    registry.add("PreToolUse", lambda event: sys.exit(0), name="exits", matcher="Bash")
"""


@pytest.mark.parametrize("output_format", ["json", "stream-json", "text"])
def test_hookline_run_with_a_gate_that_calls_sys_exit(tmp_path: Path, output_format: str) -> None:
    sentinel = tmp_path / "sentinel"
    call = {"id": "toolu_1", "name": "Bash", "input": {"command": f"touch {sentinel}"}}
    (tmp_path / "script.json").write_text(
        json.dumps({"turns": [{"tool_calls": [call]}, {"text": "done"}]})
    )
    (tmp_path / "hooks.py").write_text(EXITING_GATE)
    done = hookline(
        "run", "make the file", "--model", "scripted:script.json", "--hooks", "hooks.py",
        "--output-format", output_format, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not sentinel.exists()
    shown = {
        "json": lambda: json.loads(done.stdout)["hook_runs"],
        "stream-json": lambda: [
            line for line in map(json.loads, done.stdout.splitlines()) if line["type"] == "hook_run"
        ],
    }
    if output_format == "text":
        failed = "PreToolUse hook exits [python gate]: exception (SystemExit: 0) -> deny"
        assert failed in done.stdout
        assert "tool Bash blocked: The PreToolUse hook 'exits' raised an exception" in done.stdout
    else:
        (run,) = [r for r in shown[output_format]() if r["event"] == "PreToolUse"]
        assert (run["hook"], run["failure"], run["error"]) == (
            "exits",
            "exception",
            "SystemExit: 0",
        )
        assert run["decision"] == "deny"
    records = [
        json.loads(line)
        for line in (tmp_path / ".hookline/state/audit.jsonl").read_text().splitlines()
    ]
    tools = [r for r in records if r.get("kind") == "tool"]
    # the hook run rides in the blocked call's record
    hooks = [h for t in tools for h in t["data"].get("hooks", []) if h["event"] == "PreToolUse"]
    assert hooks, records
    assert [h["failure"] for h in hooks] == ["exception"]
    assert "SystemExit: 0" in hooks[0]["error"]
    assert [t["data"]["status"] for t in tools] == ["blocked"]


def test_a_blocking_handler_that_cannot_load_denies_every_call_as_not_loaded(tmp_path: Path):
    result, sentinel = run_command_hook(tmp_path, {"command": ""}, closed=True, warned=True)
    (run,) = [r for r in result.hook_runs if r.event == "PreToolUse"]
    assert (run.failure, run.decision) == ("not_loaded", "deny")
    assert "could not be loaded" in result.tool_calls[0].reason
    assert "command is not a non-empty string" in result.tool_calls[0].reason
    assert not sentinel.exists()

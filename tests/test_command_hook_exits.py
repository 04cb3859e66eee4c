"""A command gate's exit, read from its pidfd on Python 3.11 (``hookline._support.process``),
attacked: every way the gate's "no" could be misread as a "yes". Each case runs a real agent
whose tool would write a sentinel file; a gate that blocks (exit 2), or a fail-closed gate
whose exit cannot be read, must leave the sentinel unwritten."""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

import pytest

import hookline
from hookline import Agent, HookRegistry, ScriptedModel
from hookline._claude.command import CommandHook
from hookline._hooks.engine import HookRun
from sentinel_agent import touch_agent


def _agent(project: Path, command: str, **options: object) -> tuple[Agent, Path]:
    """An agent whose ``touch`` tool writes a sentinel, gated by one PreToolUse command."""
    sentinel = project / "SENTINEL"

    @hookline.tool
    def touch(note: str) -> str:
        """Write the sentinel file."""
        sentinel.write_text(note)
        return "touched"

    registry = HookRegistry()
    registry.add(
        "PreToolUse", CommandHook(command, project_dir=str(project)), matcher="touch", **options
    )  # type: ignore[arg-type]
    return Agent(ScriptedModel([]), tools=[touch], hooks=registry, cwd=project), sentinel


def _called(agent: Agent, note: str = "x") -> str:
    return asyncio.run(agent.call_tool("touch", {"note": note})).status


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.mark.parametrize(
    "command",
    [
        "exit 2",  # at once, before its stdin is even written
        "exec 0<&-; exit 2",  # its stdin closed first: the write to it breaks
        "(exit 0) & exit 2",  # a child that succeeds, the leader that blocks
        "sh -c 'exit 0'; exit 2",  # a child reaped by the leader before its own exit
        "sleep 1 & exit 2",  # a background child holding the output pipes open
        "exec 1>&- 2>&-; exit 2",  # its output closed before the exit
        f"{shlex.quote(sys.executable)} -c 'import os; os._exit(2)'",  # exec'd: no shell left
    ],
)
def test_an_exit_2_blocks_however_the_gate_gets_there(project: Path, command: str) -> None:
    agent, sentinel = _agent(project, command)
    assert _called(agent, "x" * 200_000) == "blocked"  # a payload larger than a pipe holds
    assert not sentinel.exists()


def test_a_gate_exit_no_one_could_read_is_a_deny_when_it_fails_closed(project: Path) -> None:
    """The gate kills the keeper that would have told its exit (see
    ``hookline._support.reaper``) and exits 0: that exit is never read as the success it
    was, but as a failure, and a fail-closed gate then denies."""
    agent, sentinel = _agent(project, "kill -9 $PPID; exit 0", failure="closed")
    assert _called(agent) == "blocked"
    assert not sentinel.exists()


def test_a_gate_killed_by_a_signal_denies_when_it_fails_closed(project: Path) -> None:
    agent, sentinel = _agent(project, "kill -9 $$", failure="closed")
    assert _called(agent) == "blocked"
    assert not sentinel.exists()


def test_the_same_gate_lets_the_call_through_when_it_exits_0(project: Path) -> None:
    """The control: the sentinel is written when the gate says nothing against the call."""
    agent, sentinel = _agent(project, "cat > /dev/null; exit 0")
    assert _called(agent, "ran") == "executed"
    assert sentinel.read_text() == "ran"


# -- what the gate printed beside its exit ------------------------------------------------------

DEEP = "[" * 100_000 + "]" * 100_000  # past what any JSON reader here reads
BOM = "\\357\\273\\277"  # printf's octal for the UTF-8 byte-order mark


def _prompted(project: Path, command: str, **options: object) -> tuple[hookline.RunResult, Path]:
    """A run whose model calls the ``touch`` tool (which writes the sentinel), with one
    UserPromptSubmit command hook."""
    agent, sentinel = touch_agent(project)
    hook = CommandHook(command, project_dir=str(project))
    agent.registry.add("UserPromptSubmit", hook, **options)  # type: ignore[arg-type]
    return agent.run_sync("write it"), sentinel


def _printing(project: Path, text: str, end: str) -> str:
    """A command that prints ``text`` (kept in a file) and then runs ``end``."""
    (project / "out").write_text(text)
    return f"cat {shlex.quote(str(project / 'out'))}; {end}"


@pytest.mark.parametrize("closed", [False, True], ids=["fail-open", "fail-closed"])
@pytest.mark.parametrize("printed", ["{" + f'"a":{DEEP}' + "}", '{"a":' + DEEP[:200_000]])
def test_an_exit_2_blocks_beside_json_nested_past_what_is_read(
    project: Path, printed: str, closed: bool
) -> None:
    failure = "closed" if closed else "open"
    agent, sentinel = _agent(project, _printing(project, printed, "exit 2"), failure=failure)
    runs: list[HookRun] = []
    agent.stream.subscribe(HookRun, runs.append)
    assert _called(agent) == "blocked"
    assert not sentinel.exists()
    assert [(r.failure, r.decision) for r in runs] == [("invalid_json", "deny")]


def test_an_exit_2_blocks_the_prompt_beside_json_nested_past_what_is_read(project: Path) -> None:
    result, sentinel = _prompted(project, _printing(project, "{" + f'"a":{DEEP}' + "}", "exit 2"))
    assert result.stop_reason == "prompt_blocked"
    assert not sentinel.exists()
    (run,) = [r for r in result.hook_runs if r.event == "UserPromptSubmit"]
    assert (run.failure, run.decision) == ("invalid_json", "deny")


@pytest.mark.parametrize("closed", [False, True], ids=["fail-open", "fail-closed"])
def test_a_deny_behind_a_byte_order_mark_is_read(project: Path, closed: bool) -> None:
    deny = '{"decision": "block", "reason": "not today"}'
    command = f"printf '{BOM}{BOM} \\n'; printf %s {shlex.quote(deny)}"
    agent, sentinel = _agent(project, command, failure="closed" if closed else "open")
    result = asyncio.run(agent.call_tool("touch", {"note": "x"}))
    assert (result.status, result.reason) == ("blocked", "not today")
    assert not sentinel.exists()


def test_a_fail_closed_gate_whose_answer_behind_a_byte_order_mark_is_cut_denies(
    project: Path,
) -> None:
    command = f'printf \'{BOM}{{"decision": "approve"\''
    agent, sentinel = _agent(project, command, failure="closed")
    runs: list[HookRun] = []
    agent.stream.subscribe(HookRun, runs.append)
    assert _called(agent) == "blocked"
    assert not sentinel.exists()
    assert [(r.failure, r.decision) for r in runs] == [("invalid_json", "deny")]


def test_a_prompt_hook_deny_behind_a_byte_order_mark_blocks_the_prompt(project: Path) -> None:
    command = f'printf \'{BOM}{{"decision": "block", "reason": "no"}}\''
    result, sentinel = _prompted(project, command)
    assert result.stop_reason == "prompt_blocked"
    assert not sentinel.exists()


def test_an_exit_2_blocks_when_reading_the_output_fails_in_hookline(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault of hookline's own while it reads the output (here: forced) is a failure of
    kind invalid, whose answer is the block."""
    from hookline._claude import command as command_module

    def broken(raw: bytes, **options: object) -> str:
        raise LookupError("unknown encoding")

    monkeypatch.setattr(command_module, "answer_text", broken)
    agent, sentinel = _agent(project, "echo '{}'; exit 2")
    runs: list[HookRun] = []
    agent.stream.subscribe(HookRun, runs.append)
    assert _called(agent) == "blocked"
    assert not sentinel.exists()
    assert [(r.failure, r.decision) for r in runs] == [("invalid", "deny")]
    assert "LookupError: unknown encoding" in (runs[0].error or "")

"""Bash: Claude Code's output shape, exit codes, timeouts and killing the whole process group."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from hookline._errors import ToolError, ToolInputError
from hookline._tools.base import ToolContext, Workspace
from hookline._tools.builtin import Bash


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, workspace=Workspace.of(tmp_path))


def run(raw: dict[str, Any], ctx: ToolContext) -> Any:
    bash = Bash()
    return asyncio.run(bash.execute(bash.prepare(raw, ctx), ctx))


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its reaper counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] not in "ZX"


def wait_dead(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def read_pid(path: Path) -> int:
    return int(path.read_text().strip())


SPAWN_SLEEPER = "sleep 30 & echo $! > pidfile; wait"


def test_echo_has_claude_codes_shape_with_the_trailing_newline_stripped(ctx: ToolContext) -> None:
    output = run({"command": "echo hello", "description": "Print hello"}, ctx)
    assert output == {
        "stdout": "hello",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    assert Bash().render(output) == "hello"


def test_only_one_trailing_newline_is_stripped(ctx: ToolContext) -> None:
    assert run({"command": "printf 'a\\n\\n'"}, ctx)["stdout"] == "a\n"


def test_render_joins_stdout_and_stderr_or_says_no_output(ctx: ToolContext) -> None:
    output = run({"command": "echo out; echo err >&2"}, ctx)
    assert (output["stdout"], output["stderr"]) == ("out", "err")
    assert Bash().render(output) == "out\nerr"
    assert Bash().render(run({"command": "true"}, ctx)) == "(no output)"


def test_non_zero_exit_is_an_error_with_claude_codes_wording(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        run({"command": "echo oops >&2; exit 3"}, ctx)
    assert str(caught.value) == "Exit code 3\noops"
    with pytest.raises(ToolError, match=r"^Exit code 1\nonly stdout$"):
        run({"command": "echo only stdout; exit 1"}, ctx)


def test_runs_in_the_working_directory_with_the_context_env(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path, workspace=Workspace.of(tmp_path), env={"HOOKLINE_X": "42"})
    output = run({"command": 'pwd -P; echo "$HOOKLINE_X"; echo "${PATH:+has path}"'}, ctx)
    assert output["stdout"].split("\n") == [os.path.realpath(tmp_path), "42", "has path"]


def test_a_missing_working_directory_is_a_tool_error(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path / "gone", workspace=Workspace.of(tmp_path))
    with pytest.raises(ToolError, match="Cannot run the command"):
        run({"command": "true"}, ctx)


def test_stdin_is_empty_so_reading_it_does_not_hang(ctx: ToolContext) -> None:
    assert run({"command": "cat", "timeout": 5000}, ctx)["stdout"] == ""


def test_each_stream_is_capped_and_says_so(ctx: ToolContext) -> None:
    output = run({"command": "head -c 40000 /dev/zero | tr '\\0' x"}, ctx)
    assert output["stdout"].startswith("x" * 30_000)
    assert output["stdout"].endswith("[output truncated: 10000 more characters]")


def test_timeout_kills_the_command_and_its_children(ctx: ToolContext) -> None:
    # The child writes ``finished`` only if it lives out its 30 s: a tool that waited for it
    # instead of killing it would leave the file behind.
    command = "(sleep 30; touch finished) & echo $! > pidfile; wait"
    with pytest.raises(ToolError, match=r"^Command timed out after 0.3s$"):
        run({"command": command, "timeout": 300}, ctx)
    assert wait_dead(read_pid(ctx.cwd / "pidfile"))
    assert not (ctx.cwd / "finished").exists()


def test_cancelling_execute_kills_the_process_group(ctx: ToolContext) -> None:
    pidfile = ctx.cwd / "pidfile"

    async def scenario() -> None:
        task = asyncio.create_task(Bash().execute({"command": SPAWN_SLEEPER}, ctx))
        while not pidfile.exists() or not pidfile.read_text().strip():
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(scenario(), 10))
    assert wait_dead(read_pid(pidfile))


def test_run_in_background_is_refused_but_false_is_accepted(ctx: ToolContext) -> None:
    with pytest.raises(ToolInputError, match="run_in_background is not supported"):
        Bash().prepare({"command": "true", "run_in_background": True}, ctx)
    prepared = Bash().prepare({"command": "true", "run_in_background": False}, ctx)
    assert prepared == {"command": "true", "run_in_background": False}


@pytest.mark.parametrize("timeout", [0, 600_001, 1.5])
def test_timeout_outside_the_allowed_range_is_refused(ctx: ToolContext, timeout: float) -> None:
    with pytest.raises(ToolInputError, match="timeout"):
        Bash().prepare({"command": "true", "timeout": timeout}, ctx)


def test_bash_sources_the_session_env_files_before_each_command(tmp_path: Path) -> None:
    env_dir = tmp_path / "session-env"
    env_dir.mkdir()
    (env_dir / "sessionstart-hook-0.sh").write_text("export GREETING=from-hook\n")
    ctx = ToolContext(cwd=tmp_path, workspace=Workspace.of(tmp_path), env_dir=env_dir)
    assert run({"command": "echo $GREETING"}, ctx)["stdout"] == "from-hook"


def test_bash_without_env_files_runs_the_command_unchanged(ctx: ToolContext) -> None:
    assert run({"command": "echo ${GREETING:-unset}"}, ctx)["stdout"] == "unset"

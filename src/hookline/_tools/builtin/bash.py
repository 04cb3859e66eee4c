"""Bash: run a shell command in the session's working directory, Claude Code style."""

from __future__ import annotations

import asyncio
import os
import shlex
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from hookline._errors import ToolError
from hookline._support.credentials import without_credentials
from hookline._support.process import find_program, run_process
from hookline._tools.base import ToolContext
from hookline._tools.builtin._common import BuiltinTool, ToolInput, truncate

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_OUTPUT_CHARS = 30_000
#: Seconds between SIGTERM and SIGKILL when a command must stop.
KILL_GRACE = 2.0


class BashInput(ToolInput):
    command: str = Field(min_length=1, description="The shell command to run.")
    description: str | None = Field(
        default=None, description="What the command does, in 5-10 words."
    )
    timeout: int | None = Field(
        default=None,
        ge=1,
        le=MAX_TIMEOUT_MS,
        description=f"Milliseconds (default {DEFAULT_TIMEOUT_MS}, max {MAX_TIMEOUT_MS}).",
    )
    run_in_background: bool | None = Field(
        default=None, description="Not supported: only false is accepted."
    )
    dangerously_disable_sandbox: bool | None = Field(
        default=None,
        alias="dangerouslyDisableSandbox",
        description="Run outside the OS sandbox (when the settings allow it; it then asks).",
    )

    @field_validator("run_in_background")
    @classmethod
    def _foreground_only(cls, value: bool | None) -> bool | None:
        if value:
            raise PydanticCustomError(
                "not_supported", "run_in_background is not supported; run it in the foreground"
            )
        return value


class Bash(BuiltinTool[BashInput]):
    name = "Bash"
    description = (
        "Run a command with bash (`bash -c`) in the working directory and return its stdout "
        "and stderr. Use it for builds, tests, git and other programs; prefer Read, Edit, "
        "Write, Glob and Grep for files. The working directory carries over between calls "
        "(a `cd` stays in effect inside the workspace; leaving it resets to the project "
        "folder); variables do not, so chain such steps with `&&`. Stdin is empty, so "
        "interactive commands fail. "
        f"The command stops after `timeout` milliseconds (default {DEFAULT_TIMEOUT_MS}, max "
        f"{MAX_TIMEOUT_MS}); a non-zero exit code is reported as an error. Each output stream is "
        f"cut at {MAX_OUTPUT_CHARS} characters."
    )
    input_model = BashInput
    timeout = None  # Bash enforces its own, from the input.
    suspends = True

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        args = self.parse(tool_input)
        seconds = (args.timeout or DEFAULT_TIMEOUT_MS) / 1000
        sandboxed = ctx.sandbox is not None and ctx.sandbox.sandboxes(args.command, tool_input)
        if ctx.shell is not None and not ctx.cwd.is_dir():  # removed since: never guess where
            reset = ctx.shell.reset()
            raise ToolError(f"The working directory {ctx.cwd} no longer exists.\n{reset}")
        code, stdout, stderr, left = await _run(args.command, ctx, seconds, sandboxed=sandboxed)
        if ctx.shell is not None and (note := ctx.shell.follow(left)):
            stderr = f"{stderr}\n{note}" if stderr else note
        if code != 0:
            detail = stderr or stdout
            raise ToolError(f"Exit code {code}\n{detail}" if detail else f"Exit code {code}")
        return {
            "stdout": stdout,
            "stderr": stderr,
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        }

    def render(self, output: Any) -> str:
        text = "\n".join(part for part in (output["stdout"], output["stderr"]) if part)
        return text or "(no output)"


#: Runs the command (``$2``) with ``eval``, so a ``cd`` in it holds, then writes the folder it
#: left to the inherited pipe descriptor ``$1``, whatever the command printed or returned; a
#: command that exits the shell (``exit 3``) writes nothing, and its folder is not taken. The
#: report goes to a descriptor, never to a path, and the descriptor's number is read-only: a
#: command cannot turn the report into a write of a file of its choosing. What it can do, write
#: a folder of its own to the pipe, is judged like any other (``Shell.follow``). The positional
#: parameters are cleared first: the command sees none, as under ``bash -c``.
_TRACKED = (
    'readonly __hookline_fd=$1; __hookline_command=$2; set --; eval "$__hookline_command"; '
    '__hookline_status=$?; pwd -P >&"$__hookline_fd" 2>/dev/null; '
    'exit "$__hookline_status"'
)
#: The most of a report read: a folder path, so far less.
_REPORT_CAP = 65_536


async def _run(
    command: str, ctx: ToolContext, seconds: float, *, sandboxed: bool = False
) -> tuple[int, str, str, str | None]:
    """Exit code, stdout and stderr of ``command`` (inside ``ctx.sandbox`` when ``sandboxed``),
    and, when ``ctx.shell`` tracks the folder and bash is there, the one it left (None: not
    known). Every process it starts dies with a timeout; what it leaves running when it ends
    (``server &``) lives on until the session ends (``ctx.leftovers``)."""
    bash = find_program("bash")
    with _report_pipe(ctx.shell is not None and bash is not None) as pipe:
        if pipe is None:
            argv = [bash or "/bin/sh", "-c", _with_session_env(command, ctx)]
        else:
            argv = [
                str(bash),
                "-c",
                _with_session_env(_TRACKED, ctx),
                "bash",
                str(pipe[1]),
                command,
            ]
        env: dict[str, str] = {**without_credentials(os.environ), **ctx.env}  # keys stay ours
        with ExitStack() as stack:
            fds: tuple[int, ...] = pipe[1:] if pipe else ()
            if sandboxed and ctx.sandbox is not None:  # the sandbox's own descriptors too
                launch = stack.enter_context(ctx.sandbox.launch(argv, env, cwd=str(ctx.cwd)))
                argv, env, fds = launch.argv, launch.env, (*fds, *launch.pass_fds)
            try:
                async with asyncio.timeout(seconds):
                    done = await run_process(
                        argv,
                        stdin=b"",
                        cwd=str(ctx.cwd),
                        env=env,
                        kill_grace=KILL_GRACE,
                        pass_fds=fds,
                        leftovers=ctx.leftovers,
                    )
            except TimeoutError:
                raise ToolError(f"Command timed out after {seconds:g}s") from None
            except OSError as exc:
                raise ToolError(f"Cannot run the command in {ctx.cwd}: {exc.strerror}") from None
        left = _read_left(pipe[0]) if pipe else None
    return _exit_code(done.returncode), _text(done.stdout), _text(done.stderr), left


@contextmanager
def _report_pipe(tracked: bool) -> Iterator[tuple[int, int] | None]:
    """A pipe (read end, write end) the command reports its folder on, closed afterwards;
    None when nobody tracks the folder (or there is no bash to run the report)."""
    if not tracked:
        yield None
        return
    read, write = os.pipe()
    os.set_blocking(read, False)  # a background child may keep the write end open
    try:
        yield read, write
    finally:
        os.close(read)
        os.close(write)


def _read_left(read: int) -> str | None:
    """The folder the command left, from what is in the pipe now; None when it wrote none."""
    try:
        data = os.read(read, _REPORT_CAP)
    except BlockingIOError:
        return None
    text = data.decode("utf-8", errors="surrogateescape")
    return text[:-1] if text.endswith("\n") else (text or None)


def _with_session_env(command: str, ctx: ToolContext) -> str:
    """``command`` after sourcing the session's env files (what SessionStart hooks exported)."""
    if ctx.env_dir is None or not ctx.env_dir.is_dir():
        return command
    files = sorted(ctx.env_dir.glob("*.sh"), key=lambda f: f.stat().st_mtime_ns)
    sources = "".join(f". {shlex.quote(str(f))} >/dev/null 2>&1; " for f in files)
    return sources + command


def _exit_code(code: int) -> int:
    """The shell's convention: a process killed by signal N exits 128 + N."""
    return 128 - code if code < 0 else code


def _text(text: str) -> str:
    return truncate(text[:-1] if text.endswith("\n") else text, MAX_OUTPUT_CHARS)

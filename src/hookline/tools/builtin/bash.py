"""Bash: run a shell command in the session's working directory, Claude Code style."""

from __future__ import annotations

import asyncio
import os
import shlex
from typing import Any

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from hookline._support.process import find_program, run_process
from hookline.errors import ToolError
from hookline.tools.base import ToolContext
from hookline.tools.builtin._common import BuiltinTool, ToolInput, truncate

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
        "Write, Glob and Grep for files. Each call is a fresh shell: `cd` and variables do not "
        "carry over, so chain steps with `&&`. Stdin is empty, so interactive commands fail. "
        f"The command stops after `timeout` milliseconds (default {DEFAULT_TIMEOUT_MS}, max "
        f"{MAX_TIMEOUT_MS}); a non-zero exit code is reported as an error. Each output stream "
        f"is cut at {MAX_OUTPUT_CHARS} characters."
    )
    input_model = BashInput
    timeout = None  # Bash enforces its own, from the input.
    suspends = True

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        args = self.parse(tool_input)
        seconds = (args.timeout or DEFAULT_TIMEOUT_MS) / 1000
        sandboxed = ctx.sandbox is not None and ctx.sandbox.sandboxes(args.command, tool_input)
        code, stdout, stderr = await _run(args.command, ctx, seconds, sandboxed=sandboxed)
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


async def _run(
    command: str, ctx: ToolContext, seconds: float, *, sandboxed: bool = False
) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``command`` (inside ``ctx.sandbox`` when ``sandboxed``);
    its process group dies with a timeout, and a sandbox's processes with it."""
    argv = [find_program("bash") or "/bin/sh", "-c", _with_session_env(command, ctx)]
    env = {**os.environ, **ctx.env}
    if sandboxed and ctx.sandbox is not None:
        argv, env = ctx.sandbox.wrap(argv, env, cwd=str(ctx.cwd))
    try:
        async with asyncio.timeout(seconds):
            done = await run_process(
                argv, stdin=b"", cwd=str(ctx.cwd), env=env, kill_grace=KILL_GRACE
            )
    except TimeoutError:
        raise ToolError(f"Command timed out after {seconds:g}s") from None
    except OSError as exc:
        raise ToolError(f"Cannot run the command in {ctx.cwd}: {exc.strerror}") from None
    return _exit_code(done.returncode), _text(done.stdout), _text(done.stderr)


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

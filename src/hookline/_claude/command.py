"""Claude Code command hooks, run exactly as Claude Code runs them.

Shell form (no ``args``) runs ``/bin/sh -c <command>``; exec form spawns ``command`` with
``args`` directly, after replacing ``${CLAUDE_PROJECT_DIR}`` in them (in the code of a
``sh -c CODE`` it becomes a quoted ``"${CLAUDE_PROJECT_DIR}"``: ``hooks.project_dir``). The
hook reads the event's payload on stdin as one line of compact JSON, runs in the project folder
(``event.project_dir``, even after a ``cd`` moved ``event.cwd``) in its own process group,
and answers through its exit code and output, as Claude Code's hook protocol defines and its
CLI was observed to do:

* exit 0: stdout starting with ``{`` is the JSON answer (past blanks and a byte-order mark, in
  UTF-8, -16 or -32: ``hooks.protocol.answer_text``); other stdout is ignored, except where
  the event's ``facts.plain_stdout`` says what it is: context (UserPromptSubmit, SessionStart:
  ``... hook success: <stdout>``), or instructions taken as printed (PreCompact).
* exit 2 where it blocks: a deny, whatever else the hook printed, whose reason is the JSON's
  blocking reason or else ``[<command>]: <stderr>``; the JSON is still read, but nothing in it
  undoes the block. On PermissionRequest exit 2 is ignored; elsewhere it is a non-blocking
  error (the event's ``facts.exit_2`` says which).
* any other exit: valid JSON alone decides; without it, a non-blocking error.

``async`` (and ``asyncRewake``) hooks run in the background (``HookRunner.background``): their
answer decides nothing, and its context reaches the model at its next call. An ``asyncRewake``
hook that exits 2 gives its stderr (or else its stdout) as that context, worded as the blocking
error it would be in the foreground.

Failures (``HookFailure``, by kind): ``CommandFailed`` "exit", ``CommandNotStarted``
"spawn_failed", ``CommandKilled`` "signal" (the hook died by a signal), ``InvalidJson``
"invalid_json" (stdout starts with ``{`` but does not parse, or nests deeper than the parser
reads; Claude Code reads it as plain text, which is what the hook still answers when it fails
open), ``OutputOverCap`` "output_over_cap" (a JSON answer longer than ``process.STREAM_CAP``, so
cut), the protocol's "invalid" / "wrong_event", and "invalid" for any error while the output is
read. Exit 2 where it blocks is a deny; output beside it that cannot be read, or is no valid
answer, is also on record as one of these failures, with that deny as its answer whatever the
failure policy. The engine turns a timeout into a cancellation, and the process group is then
terminated (see ``hookline._support.process``).
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import hookline._wording as wording
from hookline._claude.project_dir import guarded, shell_code_index
from hookline._decisions import NO_DECISION, Decision
from hookline._errors import HookFailure, InvalidHookOutput, ToolError, WrongHookEvent
from hookline._hooks.protocol import answer_text, decision_from_output, loads, trimmed
from hookline._hooks.runners import HookRunner
from hookline._support.credentials import without_credentials
from hookline._support.process import STREAM_CAP, Finished, run_process

if TYPE_CHECKING:
    from hookline._events import HookEvent
    from hookline.permissions._sandbox.run import Sandbox

#: What Claude Code says for exit 2 when the output names another event (observed).
_UNPROCESSABLE = "blocked (exit 2); its output could not be processed"
_NO_STDERR = "No stderr output"


class CommandFailed(HookFailure):
    """A command hook exited with a code that reports an error without blocking."""

    kind = "exit"
    failed = "exited with an error"


class CommandNotStarted(HookFailure):
    """A command hook's executable (or its working directory) could not be started."""

    kind = "spawn_failed"
    failed = "could not be started"


class CommandKilled(HookFailure):
    """A command hook died by a signal before it could answer."""

    kind = "signal"
    failed = "was killed by a signal"


class InvalidJson(InvalidHookOutput):
    """A command hook's stdout starts like a JSON answer but does not parse."""

    kind = "invalid_json"
    failed = "gave an answer that is not valid JSON"


class OutputOverCap(HookFailure):
    """A command hook's JSON answer is longer than hookline reads, so it cannot be read."""

    kind = "output_over_cap"
    failed = "gave an answer too long to read"


class CommandHook(HookRunner):
    """A Claude Code command hook: a shell string, or an executable with ``args``."""

    handler = "command"
    in_process = False
    inline = False

    def __init__(
        self,
        command: str,
        *,
        args: Sequence[str] | None = None,
        project_dir: str,
        env: Mapping[str, str] | None = None,
        env_file: Callable[[HookEvent], str | None] | None = None,
        output_limit: int = 10_000,
        kill_grace: float = 1.0,
        sandbox: Sandbox | None = None,
        background: bool = False,
        rewake: bool = False,
    ) -> None:
        self.command = command
        self.args = tuple(args) if args is not None else None
        self.project_dir = project_dir
        self.env = dict(env or {})
        self.env_file = env_file
        self.output_limit = output_limit
        self.kill_grace = kill_grace
        #: ``"sandbox": true``: the hook runs under bwrap (writable: the sandbox's temp folder).
        self.sandbox = sandbox
        #: ``"async"``: runs in the background; ``"asyncRewake"`` too, exit 2 speaking to the model.
        self.background = background or rewake
        self.rewake = rewake
        self.key = ("command", command, self.args, *(("sandbox",) if sandbox else ()))

    def describe(self) -> str:
        """The command as written (exec form: with its args), as Claude Code quotes it."""
        return " ".join((self.command, *self.args)) if self.args is not None else self.command

    async def run(self, event: HookEvent) -> Decision | None:
        argv, env = self._argv(), self._environment(event)
        where = event.project_dir  # the project folder, wherever a `cd` took the shell
        with ExitStack() as stack:
            fds: tuple[int, ...] = ()
            if self.sandbox is not None:
                if why := self.sandbox.config.unavailable():
                    why = f"The hook asks for the sandbox, which cannot start: {why}"
                    raise CommandNotStarted(why)
                try:
                    launch = stack.enter_context(self.sandbox.launch(argv, env, cwd=where))
                except ToolError as exc:
                    raise CommandNotStarted(f"The hook asks for the sandbox: {exc}") from None
                argv, env, fds = launch.argv, launch.env, launch.pass_fds
            try:
                finished = await run_process(
                    argv,
                    stdin=_stdin(event),
                    cwd=where,
                    env=env,
                    kill_grace=self.kill_grace,
                    pass_fds=fds,
                )
            except OSError as exc:
                why = f"Error occurred while executing hook command: {exc}"
                raise CommandNotStarted(why) from exc
        return self._answer(event, finished)

    # -- spawning -----------------------------------------------------------------------------

    def _argv(self) -> list[str]:
        if self.args is None:
            return ["/bin/sh", "-c", self.command]
        argv = [self._substitute(part) for part in (self.command, *self.args)]
        code = shell_code_index(self.command, self.args)
        if code is not None:  # shell code: the folder goes in as a variable, never as code
            argv[code + 1] = guarded(self.args[code])
        return argv

    def _substitute(self, text: str) -> str:
        return text.replace("${CLAUDE_PROJECT_DIR}", self.project_dir)

    @cached_property
    def _inherited(self) -> dict[str, str]:
        """The process environment as hooks get it, read once (as Claude Code reads it once),
        without hookline's own credentials (``hookline._support.credentials``)."""
        env = {
            name: value
            for name, value in without_credentials(os.environ).items()
            if not name.startswith("OTEL_") and name != "CLAUDE_ENV_FILE"
        }
        env.update(self.env)
        return env

    def _environment(self, event: HookEvent) -> dict[str, str]:
        env = dict(self._inherited)
        env.update(
            CLAUDE_PROJECT_DIR=self.project_dir,
            CLAUDE_CODE_SESSION_ID=event.session_id,
            CLAUDECODE="1",
            HOOKLINE="1",
            PWD=event.project_dir,
        )
        if self.env_file and event.facts.env_file:
            env_file = self.env_file(event)
            if env_file:
                env["CLAUDE_ENV_FILE"] = env_file
        return env

    # -- reading the answer -------------------------------------------------------------------

    def _answer(self, event: HookEvent, done: Finished) -> Decision | None:
        """The hook's answer, read from its exit and output. Exit 2 where it blocks is a deny
        whatever else the hook printed: output that cannot be read beside it is a failure on
        record whose answer (``fallback``) is that deny, so it denies failing open or closed.
        An error while reading the output (a bug of hookline's, say) is a failure too."""
        blocks = done.returncode == 2 and event.facts.exit_2 == "blocks" and not self.rewake
        try:
            return self._read(event, done)
        except HookFailure as exc:
            if blocks and (exc.fallback is None or exc.fallback.permission != "deny"):
                exc.fallback = self._exit_2(done)
            raise
        except Exception as exc:
            why = f"its output could not be read ({type(exc).__name__}: {exc})"
            raise InvalidHookOutput(why, fallback=self._exit_2(done) if blocks else None) from exc

    def _read(self, event: HookEvent, done: Finished) -> Decision | None:
        if done.returncode < 0:
            raise CommandKilled(_killed_message(done))
        if done.returncode == 2 and self.rewake:
            return self._woken(event, done)
        if done.returncode == 2 and event.facts.exit_2 == "blocks":
            return self._blocking(event, done)
        data = self._json(event, done)
        if done.returncode == 0:
            return self._succeeded(event, data, done)
        if data is not None:
            return self._decision(event, data)
        if done.returncode == 2 and event.facts.exit_2 == "ignored":
            return None
        raise CommandFailed(_failure_message(done))

    def _woken(self, event: HookEvent, done: Finished) -> Decision:
        """An ``asyncRewake`` hook's exit 2: its stderr (else stdout) for the model to read."""
        text, dropped = done.stderr, done.stderr_dropped
        if not text.strip():
            text, dropped = done.stdout, done.stdout_dropped
        said = self._cap(text.strip() or _NO_STDERR, dropped)
        label = event.match_value()
        note = wording.blocking_error(event.name, label, said, command=self.describe())
        return Decision(additional_context=(note,), origin="stdout")  # worded here, as stdout is

    def _json(self, event: HookEvent, done: Finished) -> dict[str, Any] | None:
        """The JSON answer, if stdout is one (``answer_text``: its first character, past blanks
        and a byte-order mark, is ``{``); one that cannot be read (cut at the cap, or not
        parsing) is a failure."""
        text = answer_text(done.stdout_bytes)
        if not text.startswith("{"):
            return None
        if done.stdout_dropped:
            raise OutputOverCap(
                f"printed a JSON answer {done.stdout_dropped} bytes over the {STREAM_CAP}-byte "
                "cap on hook output, so it was cut and cannot be read"
            )
        try:
            data: dict[str, Any] = loads(text)  # text starting with "{" parses to a dict
        except ValueError as exc:
            plain = self._succeeded(event, None, done) if done.returncode == 0 else None
            raise InvalidJson(_invalid_json_message(done, exc), fallback=plain) from None
        return data

    def _succeeded(
        self, event: HookEvent, data: dict[str, Any] | None, done: Finished
    ) -> Decision | None:
        if data is not None:
            return self._decision(event, data)
        text, plain = trimmed(done.stdout).strip(), event.facts.plain_stdout
        if not text or plain is None:
            return None
        text = self._cap(text, done.stdout_dropped)
        if plain == "context":
            label = event.match_value()  # SessionStart:startup; none on UserPromptSubmit
            text = wording.success(event.name, label, text)
        return Decision(additional_context=(text,), origin="stdout")

    def _blocking(self, event: HookEvent, done: Finished) -> Decision:
        """Exit 2 on an event it blocks: a deny, whatever the output says. Output that starts
        like JSON but cannot be read (cut, or not parsing) or is no valid answer still blocks,
        with stderr as the reason, as in Claude Code (``_answer`` makes the failure's answer
        that deny)."""
        data = self._json(event, done)
        try:
            answer = decision_from_output(event.name, data) if data is not None else NO_DECISION
        except WrongHookEvent as exc:  # Claude Code says it could not process the output
            reason = wording.exit_code_2(self.describe(), _UNPROCESSABLE)
            exc.fallback = Decision(permission="deny", reason=reason, origin="exit_code_2")
            raise
        return self._blocked(answer, done)

    def _exit_2(self, done: Finished) -> Decision:
        """The deny of an exit 2 whose output cannot be read; a plain one, should even its
        wording fail."""
        try:
            return self._blocked(NO_DECISION, done)
        except Exception:
            reason = f"[{self.describe()}]: blocked (exit 2)"
            return Decision(permission="deny", reason=reason, origin="exit_code_2")

    def _blocked(self, answer: Decision, done: Finished) -> Decision:
        """The deny of exit 2, keeping what the JSON ``answer`` adds. Its origin is
        ``exit_code_2``, or ``json`` when the JSON's deny gave the reason."""
        if answer.permission == "deny" and answer.reason:
            reason, origin = self._cap(answer.reason), answer.origin
        else:
            stderr = done.stderr if done.stderr.strip() else _NO_STDERR
            reason = self._cap(wording.exit_code_2(self.describe(), stderr), done.stderr_dropped)
            origin = "exit_code_2"
        answer = self._capped(answer)
        return replace(answer, permission="deny", reason=reason, updated_input=None, origin=origin)

    def _decision(self, event: HookEvent, data: dict[str, Any]) -> Decision | None:
        answer = decision_from_output(event.name, data)
        return None if answer.is_empty else self._capped(answer)

    def _capped(self, answer: Decision) -> Decision:
        """The answer with its texts for the model held to ``output_limit`` characters."""
        return replace(
            answer,
            reason=self._cap(answer.reason) if answer.reason else answer.reason,
            additional_context=tuple(self._cap(text) for text in answer.additional_context),
            system_message=tuple(self._cap(text) for text in answer.system_message),
        )

    def _cap(self, text: str, dropped: int = 0) -> str:
        cut = max(len(text) - self.output_limit, 0) + dropped
        if not cut:
            return text
        return f"{text[: self.output_limit]}\n[... {cut} more characters of hook output cut]"


def _stdin(event: HookEvent) -> bytes:
    """The payload as Claude Code writes it: one line of compact JSON and a newline (a lone
    surrogate, which UTF-8 cannot hold, as its ``\\u`` escape, which JSON reads back as it)."""
    line = json.dumps(event.to_payload(), separators=(",", ":"), ensure_ascii=False)
    return f"{line}\n".encode("utf-8", "backslashreplace")


def _invalid_json_message(done: Finished, exc: ValueError) -> str:
    text = trimmed(done.stdout).strip()
    shown = text if len(text) <= 80 else f"{text[:80]}..."
    code = f" (exit {done.returncode})" if done.returncode else ""
    why = str(exc).partition(":")[0]  # json's message without the line and column
    return f"printed output that starts like JSON but does not parse ({why}){code}: {shown!r}"


def _killed_message(done: Finished) -> str:
    try:
        name = signal.Signals(-done.returncode).name
    except ValueError:
        name = f"signal {-done.returncode}"
    stderr = done.stderr.strip().partition("\n")[0]
    return f"was killed by {name}" + (f": {stderr}" if stderr else "")


def _failure_message(done: Finished) -> str:
    """Claude Code's notice for a non-blocking error: the first line of stderr (for exit 2,
    on an event it does not block, all of it)."""
    stderr = done.stderr.strip()
    if done.returncode != 2:
        stderr = stderr.partition("\n")[0]
    return f"Failed with non-blocking status code: {stderr or _NO_STDERR}"

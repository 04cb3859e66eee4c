"""The terminal approval prompt: shows a call waiting for approval and reads the answer.

It lives in the CLI layer, the only one that talks to a terminal; library users plug in any
``hookline.approvals.Approver``.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import sys
import threading
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import click

from hookline.approvals import Approval, ApprovalRequest, Approver, json_kind


class _NoAnswer(Exception):
    """The prompt got no answer; the message says why."""


DENIED_BY_USER = "Denied by the user."
HELP = """  a, y: approve, run it as shown   d, n: deny, with a message for the model
  e: edit, type the input to run as a JSON object   Ctrl-D, Ctrl-C: deny (no answer)"""
CHOICES = {"a": "a", "y": "a", "yes": "a", "approve": "a", "d": "d", "n": "d", "no": "d",
           "deny": "d", "e": "e", "edit": "e", "?": "?", "h": "?", "help": "?"}  # fmt: skip


class TerminalApprover(Approver):
    """Shows the call on a terminal and reads approve, deny or edit. POSIX TTYs only."""

    _lock = threading.Lock()  # one prompt at a time: they all share the terminal

    def __init__(self, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
        self.stdin = sys.stdin if stdin is None else stdin
        self.stdout = sys.stdout if stdout is None else stdout

    def available(self) -> bool:
        """Whether both ends are terminals."""
        try:
            return sys.platform != "win32" and self.stdin.isatty() and self.stdout.isatty()
        except (AttributeError, ValueError):  # not a file, or closed
            return False

    async def approve(self, request: ApprovalRequest) -> Approval | None:
        if not self.available():
            self.last_error = "there is no terminal to ask (stdin or stdout is not a TTY)"
            return None
        stop = threading.Event()  # set when the awaiting task is cancelled: the thread ends
        try:
            answer = await asyncio.to_thread(self._ask, request, stop)
        except OSError as exc:
            self.last_error = f"the terminal failed ({exc})"
            return None
        finally:
            stop.set()
        self.last_error = None
        return answer

    def _ask(self, request: ApprovalRequest, stop: threading.Event) -> Approval:
        with self._lock, _ctrl_c_ends_line(self.stdin):
            try:
                self._show(request)
                return self._choose(request, stop)
            except _NoAnswer:
                self._say("")
                said = f"{request.tool_name} was not run: the user did not answer the prompt."
                return Approval.deny(said, approver="terminal")

    def _choose(self, request: ApprovalRequest, stop: threading.Event) -> Approval:
        while True:
            choice = CHOICES.get(self._read("Approve? [a/d/e/?] > ", stop).lower())
            if choice == "a":
                return Approval.allow(approver="terminal")
            if choice == "d":
                said = self._read(f"Message for the model [{DENIED_BY_USER}] > ", stop)
                return Approval.deny(said or DENIED_BY_USER, approver="terminal")
            if choice != "e":
                self._say(HELP if choice == "?" else "Answer a, d, e or ?.", fg="yellow")
            elif (edited := self._edit(request, stop)) is not None:
                return edited

    def _show(self, r: ApprovalRequest) -> None:
        self._say(f"\n{r.tool_name} needs your approval", fg="cyan", bold=True)
        self._say(f"  asked by: {r.source or 'unknown'}", fg="magenta")
        if r.reason:
            self._say(f"  reason:   {r.reason}", fg="yellow")
        pretty = json.dumps(r.tool_input, indent=2, ensure_ascii=False, default=str)
        self._say("  input:\n" + "\n".join(f"    {line}" for line in pretty.split("\n")))
        if r.original_input is not None and r.original_input != r.tool_input:
            self._say("  rewritten by a hook (original → rewritten):")
            for sign, line in _diff(r.original_input, r.tool_input):
                self._say(f"    {sign} {line}", fg={"-": "red", "+": "green", "~": "yellow"}[sign])

    def _edit(self, request: ApprovalRequest, stop: threading.Event) -> Approval | None:
        """A JSON object, read on while it is unfinished; None (back) on an empty line."""
        self._say(f"  now: {_json(request.tool_input)}", dim=True)
        text = ""
        while line := self._read("... > " if text else "New input (empty: back) > ", stop):
            text = f"{text}\n{line}" if text else line
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                if exc.pos >= len(text):  # it ran off the end: read the next line
                    continue
                self._say(f"Not valid JSON: {exc}. Try again.", fg="red")
            else:
                if isinstance(value, dict):
                    return Approval.edit(value, approver="terminal")
                self._say(f"The input must be a JSON object, not {json_kind(value)}.", fg="red")
            text = ""
        if text:
            self._say("Not valid JSON: it ends unfinished. Try again.", fg="red")
        return None

    def _read(self, prompt: str, stop: threading.Event) -> str:
        """One line typed, stripped; _NoAnswer on end of input, Ctrl-C or ``stop``."""
        click.echo(click.style(prompt, bold=True), file=self.stdout, nl=False)
        fd, data = self.stdin.fileno(), b""
        while not data.endswith(b"\n"):
            if stop.is_set():
                raise _NoAnswer("cancelled")
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # EIO: the terminal went away
                    chunk = b""
                if not chunk or chunk.endswith(b"\x03"):
                    raise _NoAnswer("end of input or Ctrl-C")
                data += chunk
        return data.decode(errors="replace").strip()

    def _say(self, text: str, **style: Any) -> None:
        click.secho(_printable(text), file=self.stdout, **style)


@contextmanager
def _ctrl_c_ends_line(stream: IO[str]) -> Iterator[None]:
    """While the prompt reads, Ctrl-C ends the line (as ``\\x03``) instead of sending SIGINT."""
    import termios  # POSIX only, as ``available`` checks

    fd = stream.fileno()
    saved, mode = termios.tcgetattr(fd), termios.tcgetattr(fd)
    mode[3] &= ~termios.ISIG
    mode[6][termios.VEOL] = b"\x03"
    termios.tcsetattr(fd, termios.TCSANOW, mode)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


def _diff(before: dict[str, Any], after: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The keys a rewrite removed (-), added (+) or changed (~, original → rewritten)."""
    for key in [*before, *(k for k in after if k not in before)]:
        if key not in after:
            yield "-", f"{key}: {_json(before[key])}"
        elif key not in before:
            yield "+", f"{key}: {_json(after[key])}"
        elif before[key] != after[key]:
            yield "~", f"{key}: {_json(before[key])} → {_json(after[key])}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _printable(text: str) -> str:
    """Control and format characters escaped, so a tool input cannot restyle the prompt."""
    escape = {"Cc", "Cf"}
    return "".join(
        f"\\u{ord(c):04x}" if c != "\n" and unicodedata.category(c) in escape else c for c in text
    )

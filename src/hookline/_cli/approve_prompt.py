"""The terminal approval prompt: shows a call waiting for approval and reads the answer.

What the person approves is what runs. Before each prompt the terminal's modes are reset (earlier
output may have turned autowrap off or made text invisible); the whole call is drawn, escaped,
wrapped and flagged by ``approve_screen``; a call taller than the terminal is shown a screenful
at a time, and approving is refused until the last page was seen. Keys typed before a question
appeared are discarded, so type-ahead cannot answer a call nobody has seen.

It lives in the CLI layer, the only one that talks to a terminal; library users plug in any
``hookline._tools.approvals.Approver``.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any, Final

import click

from hookline._cli.answers import json_kind
from hookline._cli.approve_screen import RESET, prompt_lines, terminal_size, wrap
from hookline._cli.render import colour
from hookline._support.display import shown
from hookline._tools.approvals import Approval, ApprovalRequest, Approver, Unavailable

if sys.platform != "win32":  # POSIX only, as ``available`` checks
    import termios


class _NoAnswer(Exception):
    """The prompt got no answer; the message says why."""


DENIED_BY_USER = "Denied by the user."
HELP = """  a, y: approve, run it as shown   d, n: deny, with a message for the model
  e: edit, type the input to run as a JSON object   Ctrl-D, Ctrl-C: deny (no answer)"""
HELP_SESSION: Final = """
  s: approve, and don't ask again this session for: {grant}"""
CHOICES: Final = {
    "a": "a",
    "y": "a",
    "yes": "a",
    "approve": "a",
    "d": "d",
    "n": "d",
    "no": "d",
    "deny": "d",
    "e": "e",
    "edit": "e",
    "?": "?",
    "h": "?",
    "help": "?",
    "s": "s",
    "session": "s",
}


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

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        if not self.available():
            return Unavailable("there is no terminal to ask (stdin or stdout is not a TTY)")
        stop = threading.Event()  # set when the awaiting task is cancelled: the thread ends
        try:
            return await asyncio.to_thread(self._ask, request, stop)
        except OSError as exc:
            return Unavailable(f"the terminal failed ({exc})")
        finally:
            stop.set()

    def _ask(self, request: ApprovalRequest, stop: threading.Event) -> Approval:
        with self._lock, _ctrl_c_ends_line(self.stdin):
            try:
                return self._choose(request, stop, self._show(request, stop))
            except _NoAnswer:
                self._say("")
                said = f"{request.tool_name} was not run: the user did not answer the prompt."
                return Approval.deny(said, approver="terminal")

    def _choose(
        self, request: ApprovalRequest, stop: threading.Event, choice: str | None
    ) -> Approval:
        """The answer: a, s (when the request offers a session grant), d or e."""
        grant = request.session_grant
        keys = "a/s/d/e/?" if grant is not None else "a/d/e/?"
        while True:
            choice = choice or CHOICES.get(self._read(f"Approve? [{keys}] > ", stop).lower())
            if choice == "a":
                return Approval.allow(approver="terminal")
            if choice == "s" and grant is not None:
                return Approval.allow(approver="terminal", scope="session")
            if choice == "d":
                said = self._read(f"Message for the model [{DENIED_BY_USER}] > ", stop)
                return Approval.deny(said or DENIED_BY_USER, approver="terminal")
            if choice != "e":
                said = HELP + (HELP_SESSION.format(grant=grant.describe()) if grant else "")
                answer = f"Answer {keys.replace('/', ', ').replace(', ?', ' or ?')}."
                self._say(said if choice == "?" else answer, fg="yellow")
            elif (edited := self._edit(request, stop)) is not None:
                return edited
            choice = None

    def _show(self, request: ApprovalRequest, stop: threading.Event) -> str | None:
        """Draws the prompt after a reset, a screenful at a time: "d" if denied while paging."""
        self._write(RESET)
        size = terminal_size(self.stdout)
        rows, page = prompt_lines(request, size.columns - 1), max(size.lines - 1, 3)
        while len(rows) >= page + 1:  # the rest and the question do not fit: one page, then ask
            for row in rows[:page]:
                self._say(row.text, **row.style)
            rows = rows[page:]
            if (key := self._more(len(rows), stop)) is not None:
                return key
        for row in rows:
            self._say(row.text, **row.style)
        return None

    def _more(self, left: int, stop: threading.Event) -> str | None:
        """Waits for space (None: the next page) or d (deny); refuses approving unseen lines."""
        while True:
            key = self._key(f"[space] more — {left} lines left · d: deny > ", stop)
            if key in (" ", "\r", "\n"):
                return None
            if key in ("d", "n", "q"):
                return "d"
            if key in ("a", "y", "e"):
                self._say(f"Not yet: {left} lines of this call are still unseen.", fg="yellow")
            else:
                self._say("space: the next page, d: deny.", fg="yellow")

    def _edit(self, request: ApprovalRequest, stop: threading.Event) -> Approval | None:
        """A JSON object, read on while it is unfinished; None (back) on an empty line."""
        width = terminal_size(self.stdout).columns - 1
        for row in wrap(f"  now: {shown(_json(request.tool_input))}", width, "    "):
            self._say(row, dim=True)
        text = ""
        while line := self._read(
            "... > " if text else "New input (empty: back) > ", stop, fresh=not text
        ):
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

    def _read(self, prompt: str, stop: threading.Event, *, fresh: bool = True) -> str:
        """One line typed after ``prompt`` appeared (``fresh``: what was typed before is
        discarded), stripped; _NoAnswer on end of input, Ctrl-C or ``stop``."""
        fd, data = self.stdin.fileno(), b""
        if fresh:
            termios.tcflush(fd, termios.TCIFLUSH)
        click.echo(click.style(prompt, bold=True), file=self.stdout, nl=False, color=colour())
        while not data.endswith(b"\n"):
            chunk = _chunk(fd, stop)
            if not chunk or chunk.endswith(b"\x03"):
                raise _NoAnswer("end of input or Ctrl-C")
            data += chunk
        return data.decode(errors="replace").strip()

    def _key(self, prompt: str, stop: threading.Event) -> str:
        """One key pressed after ``prompt`` appeared, not echoed; _NoAnswer as ``_read``."""
        fd = self.stdin.fileno()
        with _single_keys(fd):
            click.echo(click.style(prompt, bold=True), file=self.stdout, nl=False, color=colour())
            chunk = _chunk(fd, stop)
        self._say("")
        if not chunk or chunk[:1] in (b"\x03", b"\x04"):
            raise _NoAnswer("end of input or Ctrl-C")
        return chunk[:1].decode(errors="replace").lower()

    def _say(self, text: str, **style: Any) -> None:
        click.secho(text, file=self.stdout, color=colour(), **style)

    def _write(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()


def _chunk(fd: int, stop: threading.Event) -> bytes:
    """What the terminal has for ``fd`` once it has something; b"" when it went away."""
    while not select.select([fd], [], [], 0.1)[0]:
        if stop.is_set():
            raise _NoAnswer("cancelled")
    try:
        return os.read(fd, 4096)
    except OSError:  # EIO: the terminal went away
        return b""


@contextmanager
def _single_keys(fd: int) -> Iterator[None]:
    """Each key arrives as it is pressed, unechoed; keys pressed before are discarded."""
    saved, mode = termios.tcgetattr(fd), termios.tcgetattr(fd)
    mode[3] &= ~(termios.ICANON | termios.ECHO)
    mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
    termios.tcsetattr(fd, termios.TCSANOW, mode)
    termios.tcflush(fd, termios.TCIFLUSH)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


@contextmanager
def _ctrl_c_ends_line(stream: IO[str]) -> Iterator[None]:
    """While the prompt reads, Ctrl-C ends the line (as ``\\x03``) instead of sending SIGINT."""
    fd = stream.fileno()
    saved, mode = termios.tcgetattr(fd), termios.tcgetattr(fd)
    mode[3] &= ~termios.ISIG
    mode[6][termios.VEOL] = b"\x03"
    termios.tcsetattr(fd, termios.TCSANOW, mode)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)

"""With ``--output-format json`` or ``stream-json``, stdout holds the CLI's JSON and nothing else.

Python hooks run in this process, so what their code prints (``print()``, from any thread, even
one a timeout left behind) and what a child process they start writes to the stdout it inherits
would land between the JSON lines. ``hook_output_to_stderr`` moves file descriptor 1 to stderr
for as long as it holds, so all of that goes to stderr, and keeps a stream on the real stdout
aside; ``cli_stdout`` names it, and ``render.emit_json`` writes there. Command hooks need none
of this: their stdout is their answer, read from a pipe. Where stdout is no file descriptor (a
test's captured stream), ``sys.stdout`` alone is swapped, which covers ``print()`` still.

Given a ``Reader`` (``hookline._cli.reader``), the CLI's own stream is guarded: once its reader
has gone away, writes to it go nowhere instead of failing, and the run stops.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout, suppress
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from hookline._cli.reader import Reader

#: The real stdout, kept aside while ``hook_output_to_stderr`` holds (innermost last).
_kept: list[TextIO] = []


def cli_stdout() -> TextIO | None:
    """Where the CLI's own output goes: the stdout kept aside while hook output goes to
    stderr; otherwise None, which is click's default (``sys.stdout``)."""
    return _kept[-1] if _kept else None


@contextmanager
def hook_output_to_stderr(*, divert: bool = True, reader: Reader | None = None) -> Iterator[None]:
    """While it holds, everything written to stdout but the CLI's own output (``cli_stdout``)
    goes to stderr. ``divert=False``: nothing moves (text output is for people). ``reader``:
    the CLI's own output is guarded by it."""
    if not divert:
        if reader is None:
            yield
            return
        with _kept_while(reader.guard(sys.stdout)):
            yield
        return
    with suppress(ValueError, OSError):  # closed: nothing to flush
        sys.stdout.flush()  # what the CLI wrote so far stays on stdout
    fds = _fds()
    if fds is None:
        own = reader.guard(sys.stdout) if reader else sys.stdout
        with _kept_while(own), redirect_stdout(sys.stderr):
            yield
        return
    out_fd, err_fd = fds
    kept = open(  # noqa: SIM115 - closed below, after fd 1 is back
        os.dup(out_fd),
        "w",
        encoding=getattr(sys.stdout, "encoding", None) or "utf-8",
        errors=getattr(sys.stdout, "errors", None) or "strict",
    )
    os.dup2(err_fd, out_fd)
    try:
        with _kept_while(reader.guard(kept) if reader else kept):
            yield
    finally:
        with suppress(ValueError, OSError):
            sys.stdout.flush()  # what hook code printed and is still buffered: to stderr
        with suppress(BrokenPipeError):  # the reader went away (``reader`` said it already)
            kept.flush()
        os.dup2(kept.fileno(), out_fd)
        with suppress(BrokenPipeError):
            kept.close()


@contextmanager
def _kept_while(stream: TextIO) -> Iterator[None]:
    _kept.append(stream)
    try:
        yield
    finally:
        _kept.pop()


def _fds() -> tuple[int, int] | None:
    """The file descriptors of stdout and stderr, if both are real files."""
    try:
        return sys.stdout.fileno(), sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both
        return None

"""When the reader of stdout goes away (``hookline run ... | head -1``), the run stops quietly.

``claude -p`` says nothing and exits 0 when its reader leaves; it also goes on running tools
nobody will see the results of. hookline stops: no tool body starts once the reader is known
to be gone, the run is cancelled as a Ctrl-C would cancel it (its session is marked
interrupted, so it can be resumed), and the command exits 0 with no traceback.

The reader is known to be gone when a write to stdout fails with a broken pipe (``Guarded``
wraps the stream the CLI writes to), or, checked just before each tool body starts, when the
pipe or socket stdout points at has no reader left (``poll`` reports an error on it; this
needs no write, so it holds for ``--output-format json`` too, which writes only at the end).
A file or a terminal is never gone.
"""

from __future__ import annotations

import asyncio
import errno
import os
import select
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Final, TextIO, cast

from hookline._agent.observers import Observer

if TYPE_CHECKING:
    from hookline._agent.session import Session
    from hookline._tools.pipeline import ToolStarted

#: How a command ends when its reader went away: 0, as ``claude -p`` exits.
EXIT_READER_GONE: Final = 0


class Reader:
    """Whether someone still reads the CLI's stdout, and what stops the run when nobody does."""

    def __init__(self) -> None:
        self.gone = False
        self._fds: list[int] = []
        self._stop: Callable[[], None] | None = None
        self._stopping = False

    def guard(self, stream: TextIO) -> TextIO:
        """``stream``, whose writes no longer fail once the reader is gone (they go nowhere):
        a ``Guarded`` proxy, used wherever the stream would be."""
        with suppress(AttributeError, OSError, ValueError):
            self._fds.append(stream.fileno())
        return cast("TextIO", Guarded(stream, self))

    def stop_with(self, task: asyncio.Task[Any]) -> None:
        """Cancel ``task`` (soon, on its loop) when the reader goes."""
        loop = task.get_loop()

        def stop() -> None:
            if not loop.is_closed():  # the run ended already: nothing to stop
                loop.call_soon(self._cancel, task)

        self._stop = stop

    def left(self) -> None:
        """The reader went away: later writes go to the null device, and the run is stopped."""
        if self.gone:
            return
        self.gone = True
        for fd in self._fds:
            with suppress(OSError):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, fd)  # what is still buffered, and Python's flush at exit, go nowhere
                os.close(null)
        if self._stop is not None:
            self._stop()

    def check(self) -> bool:
        """Whether the reader is gone, asking the pipe when no write has said so yet."""
        if not self.gone and any(_no_reader(fd) for fd in self._fds):
            self.left()
        return self.gone

    def stopped_here(self) -> None:
        """The run is being stopped where it is: the cancel still to come is not needed."""
        self._stopping = True

    def _cancel(self, task: asyncio.Task[Any]) -> None:
        if not self._stopping and not task.done():
            self._stopping = True
            task.cancel("the reader of stdout went away")


class Guarded:
    """A text stream whose writes and flushes, once they fail for a broken pipe, tell the
    ``Reader`` and are dropped. Everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO, reader: Reader) -> None:
        self._stream, self._reader = stream, reader

    def write(self, text: str) -> int:
        return int(self._guarded(lambda: self._stream.write(text), len(text)))

    def flush(self) -> None:
        self._guarded(self._stream.flush, None)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _guarded(self, act: Callable[[], Any], gone: Any) -> Any:
        if self._reader.gone:
            return gone
        try:
            return act()
        except BrokenPipeError:
            pass
        except OSError as exc:
            if exc.errno not in (errno.EPIPE, errno.ECONNRESET):
                raise
        self._reader.left()
        return gone


class StopWhenGone(Observer):
    """No tool body starts once the reader is gone: the run is cancelled right there, before
    the call runs (as the audit stops a call it cannot record). Add it after the observers
    that print, so a write that fails at a call's start is seen before the call runs."""

    fail_closed = True

    def __init__(self, reader: Reader) -> None:
        self.reader = reader

    def tool_started(self, session: Session, started: ToolStarted) -> None:
        if self.reader.check():
            self.reader.stopped_here()
            raise asyncio.CancelledError("the reader of stdout went away")


def _no_reader(fd: int) -> bool:
    """Whether ``fd`` is a pipe or socket whose other end is closed (poll says error or
    hang-up); a file or a terminal never is."""
    try:
        poll = select.poll()
        poll.register(fd, select.POLLOUT)
        events = poll.poll(0)
    except (OSError, ValueError):
        return False
    return any(mask & (select.POLLERR | select.POLLHUP) for _, mask in events)

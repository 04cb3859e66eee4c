"""A line at the terminal that says a tool is still running, and for how long.

Drawn only where a person watches (``Spinner.at_terminal``: stdout and stderr are both a
terminal), on stderr, once a tool body has run for ``AFTER`` seconds; never into a pipe or a
file, so the text view's output and the JSON modes stay as they are. It is plain text redrawn
after a carriage return and cleared with spaces: no escape sequence, colour or not. A thread
draws it, so a tool that holds the event loop still shows its time; the text view stops it
before printing any line of its own.
"""

from __future__ import annotations

import sys
import threading
from time import monotonic
from typing import TextIO

#: Seconds a tool runs before the spinner shows.
AFTER = 1.0
#: Seconds between redraws.
EVERY = 0.1
FRAMES = "|/-\\"


class Spinner:
    """``| Bash running 3s`` on one line of ``stream``, from ``start`` until ``stop``."""

    def __init__(self, stream: TextIO, *, after: float = AFTER, every: float = EVERY) -> None:
        self.stream = stream
        self.after, self.every = after, every
        self._lock = threading.Lock()
        self._label: str | None = None
        self._since = 0.0
        self._drawn = 0  # characters on the line now
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def at_terminal(cls) -> Spinner | None:
        """A spinner on stderr when a person watches (stdout and stderr are terminals)."""
        return cls(sys.stderr) if _tty(sys.stdout) and _tty(sys.stderr) else None

    def start(self, label: str) -> None:
        """Count from now for ``label`` (already ``shown``: it is printed as it is)."""
        with self._lock:
            self._label, self._since = label, monotonic()
        if self._thread is None:
            self._thread = threading.Thread(target=self._tick, name="hookline-spinner", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Clear the line, if drawn; nothing is drawn again until ``start``."""
        with self._lock:
            self._label = None
            self._clear()

    def close(self) -> None:
        """Stop, and end the thread."""
        self.stop()
        self._closed.set()
        if self._thread is not None:
            self._thread.join()

    def _tick(self) -> None:
        frame = 0
        while not self._closed.wait(self.every):
            with self._lock:
                elapsed = monotonic() - self._since
                if self._label is None or elapsed < self.after:
                    continue
                frame += 1
                self._draw(f"{FRAMES[frame % len(FRAMES)]} {self._label} running {elapsed:.0f}s")

    def _draw(self, text: str) -> None:
        self._write("\r" + text.ljust(self._drawn))
        self._drawn = len(text)

    def _clear(self) -> None:
        if self._drawn:
            self._write("\r" + " " * self._drawn + "\r")
            self._drawn = 0

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: nothing more to draw
            self._closed.set()


def _tty(stream: TextIO | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False

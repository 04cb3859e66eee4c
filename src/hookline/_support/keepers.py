"""This process's link to its watchdog (``hookline._support.reaper``), and the keepers of
calls whose processes outlive them.

``WATCHDOG`` starts the watchdog on first use (and again in a forked child, or after it was
killed), and hands out keepers: one done with its last call when there is one, else one the
watchdog forked ahead. ``Leftovers`` holds the keepers of calls that left processes running
that someone keeps (a session's Bash calls): closing it, or the harness dying, ends them.
"""

from __future__ import annotations

import atexit
import os
import socket
import sys
import threading
import weakref
from collections.abc import Sequence
from contextlib import suppress

from hookline._support import reaper

#: How many keepers wait, forked ahead, for calls to come (so that hooks started together
#: find theirs ready), and how long the watchdog may take to hand over one that is not.
_AHEAD = 4
_ANSWER_WAIT = 30.0
#: How many keepers done with a call are kept for the next ones (the others exit).
_IDLE = 16


class Watchdog:
    """This process's watchdog: it forks a keeper for each call, one call ahead, and ends every
    process of every call when this process dies."""

    def __init__(self, command: Sequence[str] | None = None) -> None:
        #: How the watchdog is started (its socket is its fd 0).
        self.command = list(command or [sys.executable, "-I", "-S", reaper.__file__])
        self._lock = threading.Lock()
        self._owner = 0  # the pid that started the watchdog: a forked child needs its own
        self._pid = 0
        self._sock: socket.socket | None = None
        self._idle: list[socket.socket] = []  # keepers done with a call, for the next ones

    def start(self) -> None:
        """Start the watchdog unless this process has a live one; OSError if it cannot."""
        with self._lock:
            if self._owner != os.getpid() or not self._running():
                self._spawn()

    def keeper(self) -> tuple[socket.socket, bool]:
        """A socket to a keeper for one call, and whether it ran calls before: one that is
        done with its last call, else one forked ahead by the watchdog (the first time, or
        after the watchdog was killed, it is forked now), another then asked for."""
        with self._lock:
            if self._owner == os.getpid() and self._idle:
                return self._idle.pop(), True
            for _ in range(2):
                if self._owner != os.getpid() or self._sock is None:
                    self._spawn()
                assert self._sock is not None
                try:
                    _, fds, _, _ = socket.recv_fds(self._sock, 16, 1)
                    self._sock.send(b"n")
                except OSError:
                    fds = []
                if fds:
                    os.set_inheritable(fds[0], False)
                    return socket.socket(fileno=fds[0]), False
                self._sock.close()  # it was killed: its keepers go on; a new one takes over
                self._sock = None
            raise OSError("the watchdog forks no keeper for the command")

    def reuse(self, keeper: socket.socket) -> None:
        """Keep ``keeper`` (done with its call, nothing of it left) for a later call."""
        with self._lock:
            if self._owner == os.getpid() and len(self._idle) < _IDLE:
                self._idle.append(keeper)
                return
        keeper.close()

    def close(self) -> None:
        """Let the watchdog and its keepers go: they end every call still running, and exit."""
        with self._lock:
            if self._owner != os.getpid():
                return
            for sock in (self._sock, *self._idle):
                if sock is not None:
                    sock.close()
            if self._sock is not None:
                with suppress(ChildProcessError):
                    os.waitpid(self._pid, 0)
            self._sock, self._idle = None, []

    def let_go(self) -> None:
        """Close this side of the watchdog's and the waiting keepers' sockets, without waiting
        (at exit: what the kernel would close anyway, closed as it is meant to be)."""
        with self._lock:
            for sock in (self._sock, *self._idle):
                if sock is not None:
                    sock.close()
            self._sock, self._idle = None, []

    def _running(self) -> bool:
        if self._sock is None:
            return False
        try:
            return os.waitpid(self._pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def _spawn(self) -> None:
        for sock in (self._sock, *self._idle):  # a forked copy of the parent's would hide
            if sock is not None:  # the parent's death from its watchdog and keepers
                sock.close()
        self._sock, self._idle = None, []
        if self._owner == os.getpid():
            with suppress(ChildProcessError):
                os.waitpid(self._pid, os.WNOHANG)  # the one replaced, if it was killed
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._pid = os.posix_spawn(
                self.command[0],
                self.command,
                dict(os.environ),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, theirs.fileno(), 0),
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_DUP2, 1, 2),
                ],
                setsid=True,
            )
            ours.settimeout(_ANSWER_WAIT)
            for _ in range(_AHEAD):  # the first keepers, forked while this process goes on
                ours.send(b"n")
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._owner, self._sock = os.getpid(), ours


#: This process's watchdog.
WATCHDOG = Watchdog()
atexit.register(WATCHDOG.let_go)


class Leftovers:
    """Processes that calls left running (a Bash command's ``server &``, kept for its session):
    they end when this is closed or let go of (garbage), or when the harness dies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[socket.socket] = []
        weakref.finalize(self, _close_all, self._calls)  # the same list, changed in place

    def keep(self, call: socket.socket) -> None:
        """Keep ``call``'s processes until ``close``; a call with nothing left is let go."""
        with self._lock:
            self._calls[:] = [c for c in (*self._calls, call) if _still_running(c)]

    def close(self) -> None:
        """End every process kept (the keepers end them when their call's socket closes)."""
        with self._lock:
            _close_all(self._calls)

    def __len__(self) -> int:
        with self._lock:
            self._calls[:] = [c for c in self._calls if _still_running(c)]
            return len(self._calls)


def _close_all(calls: list[socket.socket]) -> None:
    for call in calls:
        call.close()
    calls.clear()


def _still_running(call: socket.socket) -> bool:
    """Whether the keeper at the other end is still there (it leaves once nothing is left);
    a call that is not kept is closed."""
    try:
        running = call.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        running = True
    except OSError:
        running = False
    if not running:
        call.close()
    return running

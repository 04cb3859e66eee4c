"""Several worker processes on one listening socket: ``hookline serve --workers N``.

The command binds the socket and loads the folder's settings once (a trust question is asked
once, in the terminal), then forks ``N`` workers. Each worker builds its own judge, audit writer
and uvicorn server (``serve_one``) and accepts from the socket they all inherit; the kernel hands
each connection to one of them. What the workers share is on disk, never in memory:

    the audit       ``<state>/audit.jsonl``, appended under ``flock``: one hash chain, whichever
                    worker writes; each worker copies the file's records to the store in order
    tokens, glass   ``tokens.json`` and the break-glass file, read again when they change
    the rate        not shared: each worker keeps its own buckets (``hookline._serve.rate``),
                    so a token may make up to N times ``--rate`` across N workers

The supervisor (this process) only waits. SIGTERM or SIGINT is passed to every worker (as
SIGTERM), which stops as a single server does (the calls in flight answered, its audit closed);
SIGHUP is passed on as it is, and each worker reloads its policy (each also reloads on its own
when the policy's files change, each with its own ``policy_reload`` record). A worker that
ends on its own is started again, unless it ended within ``SETTLE`` seconds of its start: a
worker that cannot start (a store it cannot open) stops them all, with exit status 1.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from types import FrameType

#: A worker that ends sooner than this after its start is a worker that cannot start.
SETTLE: Final = 5.0
_STOPS: Final = frozenset({signal.SIGTERM, signal.SIGINT})
#: Passed on to every worker as it is: SIGHUP reloads the policy (``hookline._serve.reload``).
_PASSED: Final = frozenset({signal.SIGHUP} if hasattr(signal, "SIGHUP") else ())
_HANDLED: Final = _STOPS | _PASSED


class Workers:
    """``count`` forked processes each running ``serve_one``, kept running until a signal."""

    def __init__(
        self,
        count: int,
        serve_one: Callable[[], None],
        *,
        note: Callable[[str], None],
        settle: float = SETTLE,
    ) -> None:
        self.count = count
        self.settle = settle
        self.serve_one = serve_one
        self.note = note
        self.started: dict[int, float] = {}  # pid -> when it was forked
        self.stopping = False

    def run(self) -> int:
        """Start the workers and wait for them; the exit status (0 once stopped by a signal)."""
        before = {sig: signal.signal(sig, self._stop) for sig in _STOPS}
        before |= {sig: signal.signal(sig, self._pass_on) for sig in _PASSED}
        try:
            for _ in range(self.count):
                self._fork()
            return self._wait()
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)

    def _fork(self) -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)  # none lands on the wrong handler
        pid = os.fork()
        if pid == 0:  # the worker: serve, then end without running the parent's clean-ups
            status = 1
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                for sig in _PASSED:  # until the worker's reload watcher takes it
                    signal.signal(sig, signal.SIG_IGN)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, _HANDLED)
                self.serve_one()
                status = 0
            except BaseException as exc:
                print(f"hookline serve: a worker failed: {exc}", file=sys.stderr, flush=True)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        self.started[pid] = time.monotonic()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HANDLED)

    def _wait(self) -> int:
        status = 0
        while self.started:
            pid, code = os.wait()
            began = self.started.pop(pid, None)
            if began is None or self.stopping:
                continue
            if time.monotonic() - began < self.settle:
                self.note(f"a worker ended as it started ({_how(code)}): stopping the others")
                status = 1
                self._stop(signal.SIGTERM, None)
                continue
            self.note(f"a worker ended ({_how(code)}): starting another")
            self._fork()
        return status

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        """Pass a stop on to every worker (once)."""
        if self.stopping:
            return
        self.stopping = True
        self._pass_on(signal.SIGTERM, frame)

    def _pass_on(self, signum: int, frame: FrameType | None) -> None:
        for pid in list(self.started):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)


def _how(code: int) -> str:
    if os.WIFSIGNALED(code):
        return f"signal {signal.Signals(os.WTERMSIG(code)).name}"
    return f"exit status {os.waitstatus_to_exitcode(code)}"

"""Blocking work off the event loop, in a thread that a timeout can leave behind.

Nothing can kill a thread. What a timeout can do is stop waiting for it: the run moves on and
the result is a timeout. ``asyncio.to_thread`` is no good for that: its pool's threads are
joined when ``asyncio.run`` ends and when the interpreter exits, so a body that never returns
would keep the process from ending long after its timeout. ``in_thread`` runs each call on a
daemon thread of hookline's own instead. Cancelling the await (a timeout) returns at once; the
thread goes on until its body returns, its result is dropped, and it never keeps the process
alive. A body that works in steps can stop early: it is handed a ``Stop``, set when the await
is cancelled.

The threads are kept for reuse (``Workers``): starting one costs a thread creation and a wait
for the new thread to run, which on a busy machine was most of what a ``Read`` call cost. A
call is given an idle thread, or a new one when all are busy (so a body that never returns
holds up no other call); a thread idle for ``IDLE_SECONDS`` ends.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import queue
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, TypeVar

T = TypeVar("T")
_Outcome = tuple[Any, BaseException | None]


class Stop:
    """A flag ``in_thread`` sets when the await is cancelled (a timeout): a body working in steps
    checks ``is_set`` between them and ends. Not a ``threading.Event``: nothing waits on it, and
    an Event makes a lock and a condition for every call (a Read's included) that none uses."""

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True  # one store, seen by the worker thread at its next check

    def is_set(self) -> bool:
        return self._set


async def in_thread(fn: Callable[..., T], /, *args: Any, stop: Stop | None = None) -> T:
    """``fn(*args)`` in a daemon thread, awaited; what it raises (anything) is raised here."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[_Outcome] = loop.create_future()
    context = contextvars.copy_context()  # as asyncio.to_thread: the caller's context variables

    def work() -> None:
        try:
            outcome: _Outcome = (context.run(fn, *args), None)
        except BaseException as exc:  # handed over whole: a SystemExit must not end the thread
            outcome = (None, exc)  # unseen, nor cross a future that treats it specially
        with suppress(RuntimeError):  # the loop is closed: nobody waits for this any more
            loop.call_soon_threadsafe(_settle, done, outcome)

    WORKERS.submit(work)
    try:
        result, raised = await done
    except asyncio.CancelledError:
        if stop is not None:
            stop.set()
        raise
    if raised is not None:
        raise raised
    return result  # type: ignore[no-any-return]


def _settle(done: asyncio.Future[_Outcome], outcome: _Outcome) -> None:
    if not done.done():  # cancelled: the awaiting side has moved on
        done.set_result(outcome)


#: Seconds a worker thread waits for another call before it ends.
IDLE_SECONDS = 30.0


class Workers:
    """Daemon threads that run one call at a time and wait, idle, for the next.

    ``submit`` hands a call to the thread that went idle last (so few stay warm), or starts
    one when none is idle: a call never waits for another to finish.
    """

    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        #: Told when a call ends (``settled``).
        self._ended = threading.Condition(self._lock)
        #: Calls handed over and not yet returned.
        self._running = 0
        #: The inboxes of the idle threads, the one that went idle last at the end.
        self._idle: list[queue.SimpleQueue[Callable[[], None]]] = []

    def submit(self, job: Callable[[], None]) -> None:
        """Run ``job()`` on a worker thread; ``job`` must not raise."""
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
            self._running += 1
        if inbox is None:
            inbox = queue.SimpleQueue()
            worker = threading.Thread(target=self._serve, args=(inbox,), daemon=True)
            worker.name = f"hookline worker {worker.name}"
            worker.start()
        inbox.put(job)

    def settled(self, timeout: float) -> bool:
        """Wait until no call runs (the ones a timeout left behind too); False if ``timeout``
        seconds pass first."""
        with self._ended:
            return self._ended.wait_for(lambda: self._running == 0, timeout)

    def forget(self) -> None:
        """Drop the idle threads (after ``fork``, the child has none of them)."""
        self._lock = threading.Lock()
        self._ended = threading.Condition(self._lock)
        self._running = 0
        self._idle = []

    def _serve(self, inbox: queue.SimpleQueue[Callable[[], None]]) -> None:
        while True:
            try:
                job = inbox.get(timeout=self.idle_seconds)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:  # else a call was just handed to it: take it
                        self._idle.remove(inbox)
                        return
                continue
            job()
            del job  # nothing of the call outlives it while the thread waits
            with self._lock:
                self._idle.append(inbox)
                self._running -= 1
                self._ended.notify_all()


#: The worker threads ``in_thread`` runs calls on.
WORKERS = Workers()
os.register_at_fork(after_in_child=WORKERS.forget)

"""Blocking work off the event loop, in a thread that a timeout can leave behind.

Nothing can kill a thread. What a timeout can do is stop waiting for it: the run moves on and
the result is a timeout. ``asyncio.to_thread`` is no good for that: its pool's threads are
joined when ``asyncio.run`` ends and when the interpreter exits, so a body that never returns
would keep the process from ending long after its timeout. ``in_thread`` starts a daemon thread
of its own for each call instead. Cancelling the await (a timeout) returns at once; the thread
goes on until its body returns, its result is dropped, and it never keeps the process alive.
A body that works in steps can stop early: it is handed ``stop``, set when the await is
cancelled.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, TypeVar

T = TypeVar("T")
_Outcome = tuple[Any, BaseException | None]


async def in_thread(fn: Callable[..., T], /, *args: Any, stop: threading.Event | None = None) -> T:
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

    name = getattr(fn, "__qualname__", type(fn).__qualname__)
    threading.Thread(target=work, name=f"hookline: {name}", daemon=True).start()
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

"""Run a coroutine at once, up to its first suspension: most hook callbacks never suspend.

``async def hook(input_data, tool_use_id, context): return {}`` is a coroutine only in name.
Handing it to the event loop as a task costs a task, a timer for its timeout and a few turns of
the loop, several times what the hook does. ``run_eagerly`` steps the coroutine here instead (as
Python 3.12's eager tasks do): when it returns without ever waiting, its result is at hand;
when it waits, what is left of it is an awaitable that goes on exactly where it stopped, so the
caller awaits it, under a timeout or in a task, as it would have the coroutine.

The first step runs in the caller's task and context, and cannot be interrupted: the same
holds for any step of a coroutine, and for the plain functions hooks mostly are. What is left
must be awaited in that same task: a coroutine may have entered a timeout or a cancel scope
(anyio's, httpx's), which belongs to the task it was entered in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Coroutine, Generator
from types import CoroutineType
from typing import Any, Generic, TypeVar

T = TypeVar("T")


def run_eagerly(awaitable: Awaitable[T]) -> T | Awaitable[T]:
    """Its result if ``awaitable`` is a coroutine that finishes without waiting; else what to
    await for the rest (any other awaitable is returned as it is). What the first step raises
    is raised here. Only for results that are not awaitable themselves: the two would look
    alike."""
    if type(awaitable) is not CoroutineType and not isinstance(awaitable, Coroutine):
        return awaitable  # (a native coroutine is told apart first: the ABC check is slower)
    try:
        waiting_on = awaitable.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    return Rest(awaitable, waiting_on)


class Rest(Generic[T]):
    """A coroutine that has run up to a suspension, and what it waits on there; awaiting it
    goes on from there (``yield from``, as PEP 380 spells it out, resumed mid-way)."""

    __slots__ = ("_coroutine", "_waiting_on")

    def __init__(self, coroutine: Coroutine[Any, Any, T], waiting_on: Any) -> None:
        self._coroutine = coroutine
        self._waiting_on = waiting_on

    def __await__(self) -> Generator[Any, Any, T]:
        coroutine, waiting_on = self._coroutine, self._waiting_on
        while True:
            try:
                sent = yield waiting_on
            except GeneratorExit:
                coroutine.close()
                raise
            except BaseException as exc:  # a cancellation or timeout, thrown in where it waits
                try:
                    waiting_on = coroutine.throw(exc)
                except StopIteration as done:
                    return done.value  # type: ignore[no-any-return]
            else:
                try:
                    waiting_on = coroutine.send(sent)
                except StopIteration as done:
                    return done.value  # type: ignore[no-any-return]

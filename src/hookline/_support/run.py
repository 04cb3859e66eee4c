"""``asyncio.run`` without a cost that grows with the result.

On Python 3.11 ``asyncio.run`` ends by asking ``signal.getsignal``, which, handed the partial
it installed for Ctrl-C, builds the text of a ValueError that holds ``repr`` of the main task,
and a finished task's repr holds its result's. A run's result holds every call and hook run of
the run, so that text grows with the run's length, and is written twice and dropped. ``run``
keeps the result out of the task.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``: its result, which the finished task does not hold."""
    kept: list[T] = []

    async def holding() -> None:
        kept.append(await main)

    asyncio.run(holding())
    return kept[0]

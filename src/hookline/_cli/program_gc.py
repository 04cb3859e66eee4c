"""The garbage collector tuned for a run of the ``hookline`` program, and put back after it.

A run makes many short-lived objects (events, records, messages) and few cycles, while
start-up leaves tens of thousands of long-lived ones (modules, classes, the agent). With the
interpreter's defaults a young collection comes every 700 allocations and each older one walks
the start-up heap again. For the run, the start-up heap is frozen (``gc.freeze``: never walked)
and young collections come every ``YOUNG`` allocations instead. Both are put back when the run
ends, so a caller of ``main()`` in its own process (a test, a benchmark) keeps its settings.

The program tunes only its own process: the library never touches the interpreter's settings.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

#: Allocations between young collections during a run (the interpreter's default is 700).
YOUNG: Final = 10_000


@contextmanager
def tuned() -> Iterator[None]:
    """During the block: the heap as it is now frozen, young collections every ``YOUNG``
    allocations; after it, the thresholds as they were and the heap walked again."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()

"""How long the live asks and the session grants stay in the store.

An ask is kept ``KEEP_ASKS`` seconds after its deadline (each answer is on the audit record of
the call that waited on it, so dropping the row loses nothing of record); a session grant holds
for the server's grant lifetime (``hookline._serve.grants``) and is dropped after it. A server
process tidies as asks come, at most once every ``EVERY`` seconds; several processes on one
store tidy the same rows, which is harmless. A tidying that fails leaves the rows for the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from hookline.storage import AskStore

#: Seconds an ask is kept in the store after its deadline.
KEEP_ASKS: Final = 7 * 24 * 3600.0
#: Seconds between a process's tidyings of the store.
EVERY: Final = 3600.0


@dataclass(eq=False)
class Retention:
    """One server process's tidying of ``store``: grants older than ``grant_life`` seconds,
    asks ``keep`` seconds past their deadline."""

    store: AskStore
    grant_life: float
    keep: float = KEEP_ASKS
    every: float = EVERY
    _last: float = float("-inf")

    async def tidy(self) -> int:
        """Drop what is past its time, unless this process did so less than ``every`` seconds
        ago; how many rows went (0 when it did not look, or the store failed)."""
        now = time.monotonic()
        if now - self._last < self.every:
            return 0
        self._last = now
        wall = time.time()
        before, grants_before = wall - self.keep, wall - self.grant_life
        with contextlib.suppress(Exception):
            forget = self.store.forget_asks
            return await asyncio.to_thread(forget, before=before, grants_before=grants_before)
        return 0

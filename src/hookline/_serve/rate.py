"""How often a token may ask: a token bucket per token, on a clock the tests hand in.

Each token's bucket holds up to ``burst`` calls and fills at ``rate`` calls a second; a call
takes one, and a call that finds it empty is refused. A burst lets an agent's tool calls in
parallel through; the rate bounds an agent in a loop. ``Limits(rate=0)`` limits nothing.

``Quiet`` keeps a flood of refusals from flooding the audit: one record per reason and caller
every ``every`` seconds, and the number of refusals left off the record on the next one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Final

Clock = Callable[[], float]
#: Calls a second, and how many at once, a token may make unless the server is told otherwise.
RATE: Final = 20.0
BURST: Final = 100
#: The most callers ``Quiet`` remembers at once.
_KEYS: Final = 10_000


@dataclass(slots=True)
class Bucket:
    level: float
    at: float


@dataclass
class Limits:
    """A bucket per key (a token's name), filled at ``rate`` a second, holding ``burst``."""

    rate: float = RATE
    burst: int = BURST
    clock: Clock = time.monotonic
    _buckets: dict[Hashable, Bucket] = field(default_factory=dict)

    def take(self, key: Hashable) -> bool:
        """Whether ``key`` may make a call now (and the call counted)."""
        if self.rate <= 0:
            return True
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(float(self.burst), now)
        bucket.level = min(float(self.burst), bucket.level + (now - bucket.at) * self.rate)
        bucket.at = now
        if bucket.level < 1:
            return False
        bucket.level -= 1
        return True

    def wait(self, key: Hashable) -> int:
        """Whole seconds until ``key`` may call again (a 429's ``Retry-After``)."""
        bucket = self._buckets.get(key)
        if bucket is None or self.rate <= 0 or bucket.level >= 1:
            return 0
        return max(1, math.ceil((1 - bucket.level) / self.rate))


@dataclass
class Quiet:
    """Which refusals go on record: the first of each key every ``every`` seconds."""

    every: float = 5.0
    clock: Clock = time.monotonic
    _last: dict[Hashable, float] = field(default_factory=dict)
    _left_off: dict[Hashable, int] = field(default_factory=dict)

    def due(self, key: Hashable) -> int | None:
        """None: leave this refusal off the record (it is counted); else record it, with the
        number of refusals of ``key`` left off since the last record."""
        now = self.clock()
        last = self._last.get(key)
        if last is not None and now - last < self.every:
            self._left_off[key] = self._left_off.get(key, 0) + 1
            return None
        if len(self._last) >= _KEYS:  # a flood from many addresses: start again
            self._last.clear()
        self._last[key] = now
        return self._left_off.pop(key, 0)

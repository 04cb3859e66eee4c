"""How often a token may ask: a token bucket per token, on a clock the tests hand in.

Each token's bucket holds up to ``burst`` calls and fills at ``rate`` calls a second; a call
takes one, and a call that finds it empty is refused. A burst lets an agent's tool calls in
parallel through; the rate bounds an agent in a loop. ``Limits(rate=0)`` limits nothing.

The buckets live in one process (``Buckets``), or, for a server of several worker processes,
in memory they share (``SharedBuckets``, made before the workers fork): a token's rate is the
server's, whichever worker its calls land on.

``Quiet`` keeps a flood of refusals from flooding the audit: one record per reason and caller
every ``every`` seconds, and the number of refusals left off the record on the next one.
"""

from __future__ import annotations

import fcntl
import hashlib
import math
import mmap
import os
import struct
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

Clock = Callable[[], float]
#: Calls a second, and how many at once, a token may make unless the server is told otherwise.
RATE: Final = 20.0
BURST: Final = 100
#: The most callers ``Quiet`` remembers at once.
_KEYS: Final = 10_000
#: Buckets a ``SharedBuckets`` holds: tokens a server knows, with room to spare.
_SLOTS: Final = 4096
#: One shared bucket: its key's hash (0: free), its level, when it was last filled.
_SLOT: Final = "<qdd"
_SLOT_SIZE: Final = struct.calcsize(_SLOT)


@dataclass(slots=True)
class Bucket:
    level: float
    at: float


class Buckets:
    """The buckets of one process, by key."""

    def __init__(self) -> None:
        self._buckets: dict[str, Bucket] = {}

    @contextmanager
    def held(self, key: str) -> Iterator[dict[str, Bucket]]:
        """The buckets, ``key``'s among them if it has one, to read and change."""
        yield self._buckets

    def get(self, key: str) -> Bucket | None:
        return self._buckets.get(key)


class SharedBuckets(Buckets):
    """Buckets in memory shared by the processes forked after it was made, under one lock:
    ``slots`` of them (past that many keys, a new key takes over the last slot it tried).

    The lock is a record lock on a file the processes share (``fcntl.lockf``): the kernel
    lets it go when its holder dies, so a worker killed while it holds the lock stops no other
    (a semaphore would stay taken, and every token's next call would wait for ever). Record
    locks are a process's, so threads of one process take a thread lock first."""

    def __init__(self, slots: int = _SLOTS) -> None:
        self.slots = slots
        self._memory = mmap.mmap(-1, slots * _SLOT_SIZE)  # shared with forked children
        self._fd, path = tempfile.mkstemp(prefix="hookline-rate-")  # the lock's, open
        os.unlink(path)
        weakref.finalize(self, os.close, self._fd)
        self._threads = threading.Lock()

    @contextmanager
    def _lock(self) -> Iterator[None]:
        with self._threads:
            fcntl.lockf(self._fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.lockf(self._fd, fcntl.LOCK_UN)

    @contextmanager
    def held(self, key: str) -> Iterator[dict[str, Bucket]]:
        wanted = _hash(key)
        with self._lock():
            slot, bucket = self._find(wanted)
            found = {} if bucket is None else {key: bucket}
            yield found
            if key in found:
                kept = found[key]
                at = slot * _SLOT_SIZE
                struct.pack_into(_SLOT, self._memory, at, wanted, kept.level, kept.at)

    def get(self, key: str) -> Bucket | None:
        with self._lock():
            return self._find(_hash(key))[1]

    def _find(self, wanted: int) -> tuple[int, Bucket | None]:
        """The slot of the key hashed ``wanted`` (or the free one it would take), its bucket."""
        start = wanted % self.slots
        slot = start
        for step in range(self.slots):
            slot = (start + step) % self.slots
            held, level, at = struct.unpack_from(_SLOT, self._memory, slot * _SLOT_SIZE)
            if held == wanted:
                return slot, Bucket(level, at)
            if held == 0:
                break
        return slot, None


@dataclass
class Limits:
    """A bucket per key (a token's name), filled at ``rate`` a second, holding ``burst``."""

    rate: float = RATE
    burst: int = BURST
    clock: Clock = time.monotonic
    buckets: Buckets = field(default_factory=Buckets)

    def take(self, key: str) -> bool:
        """Whether ``key`` may make a call now (and the call counted)."""
        if self.rate <= 0:
            return True
        now = self.clock()
        with self.buckets.held(key) as held:
            bucket = held.setdefault(key, Bucket(float(self.burst), now))
            bucket.level = min(float(self.burst), bucket.level + (now - bucket.at) * self.rate)
            bucket.at = now
            if bucket.level < 1:
                return False
            bucket.level -= 1
            return True

    def wait(self, key: str) -> int:
        """Whole seconds until ``key`` may call again (a 429's ``Retry-After``)."""
        bucket = self.buckets.get(key)
        if bucket is None or self.rate <= 0 or bucket.level >= 1:
            return 0
        return max(1, math.ceil((1 - bucket.level) / self.rate))


def _hash(key: str) -> int:
    """A key's 63-bit hash, never 0 (a free slot's), the same in every process."""
    digest = hashlib.blake2b(key.encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") >> 1) or 1


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

"""A dispatch's shared budget of seconds (SessionEnd's): each hook gets what is left of it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookline._events import HookEvent


@dataclass(frozen=True, slots=True)
class Budget:
    """Seconds the hooks of one dispatch share, and when (event-loop time) they run out."""

    seconds: float
    ends: float

    @classmethod
    def of(cls, seconds: float) -> Budget:
        return cls(seconds, asyncio.get_running_loop().time() + seconds)

    def limit(self, timeout: float) -> float:
        """What a hook whose own timeout is ``timeout`` may take from now."""
        return min(timeout, max(0.0, self.ends - asyncio.get_running_loop().time()))

    def spent(self, event: HookEvent) -> str:
        return f"still running when the {event.name} hooks' budget of {self.seconds:g}s ran out"

"""Hook health: per hook, from the audit's records, how often it ran, what it decided, how long
it took and how it failed.

    health(rows)    one ``HookHealth`` per hook (its name, source and event), slowest first

A hook run is a ``hook`` record, or one riding in a tool call's records (``unfolded`` gives
those back as rows of their own); each carries its ``duration_ms`` and, when the hook did not
give a usable answer, its ``failure`` kind (``timeout``, ``exception``, ``invalid``,
``wrong_event``, ``cancelled``: ``hookline._errors``). Latency percentiles are nearest-rank:
the p95 of 20 runs is the 19th fastest, a time some run really took.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hookline.audit._records import unfolded

if TYPE_CHECKING:
    from hookline.storage import AuditRow

#: A run that decided nothing is counted under this word.
NO_DECISION = "none"


@dataclass(slots=True)
class HookHealth:
    """One hook's runs: counts per decision and per failure kind, and their latencies (ms)."""

    hook: str
    source: str
    event: str
    handler: str | None = None
    decisions: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    runs: int = 0

    def add(self, row: AuditRow) -> None:
        data = row.data
        self.runs += 1
        self.decisions[row.decision or NO_DECISION] += 1
        if data.get("failure"):
            self.failures[str(data["failure"])] += 1
        duration = data.get("duration_ms")
        if isinstance(duration, int | float) and not isinstance(duration, bool):
            self.latencies.append(float(duration))

    def percentile(self, p: float) -> float | None:
        """The nearest-rank ``p``th percentile of the latencies (None: none recorded)."""
        if not self.latencies:
            return None
        ordered = sorted(self.latencies)
        return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]

    @property
    def slowest(self) -> float | None:
        return max(self.latencies) if self.latencies else None

    def to_dict(self, *, slow_ms: float | None = None) -> dict[str, Any]:
        p95 = self.percentile(95)
        data: dict[str, Any] = {
            "hook": self.hook,
            "source": self.source,
            "event": self.event,
            "handler": self.handler,
            "runs": self.runs,
            "decisions": dict(self.decisions.most_common()),
            "failures": dict(self.failures.most_common()),
            "p50_ms": self.percentile(50),
            "p95_ms": p95,
            "max_ms": self.slowest,
        }
        if slow_ms is not None:
            data["slow"] = p95 is not None and p95 > slow_ms
        return data


def health(rows: Iterable[AuditRow]) -> list[HookHealth]:
    """Each hook's health from ``rows`` (records as the store keeps them), slowest p95 first,
    then the most runs."""
    hooks: dict[tuple[str, str, str], HookHealth] = {}
    for row in unfolded(rows):
        if row.kind != "hook":
            continue
        data = row.data
        key = (str(data.get("hook") or "?"), str(data.get("source") or ""), row.event or "?")
        known = hooks.get(key)
        if known is None:
            handler = data.get("handler")
            known = hooks[key] = HookHealth(*key, handler=str(handler) if handler else None)
        known.add(row)
    return sorted(hooks.values(), key=lambda h: (-(h.percentile(95) or 0.0), -h.runs, h.hook))

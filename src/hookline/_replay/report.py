"""What changes between what happened (or one policy) and another policy, event by event.

Each event gets at most one change, the first that applies:

- ``newly-denied``: it ran (or the first policy let it), and now it is refused;
- ``newly-allowed``: it was refused (or deferred), and now it runs;
- ``newly-asked`` / ``newly-deferred``: now a person is asked, or the call waits for one;
- ``newly-stopped``: a hook now stops the run at this event;
- ``unclear-before``: now refused or asked, where the record does not tell what happened (a
  Claude Code call that ended in an error: a refusal and a failure look alike there);
- ``rewritten`` / ``context``: the same permission, with another rewrite of the input, or
  other context for the model.

Nothing in a policy having a say (``none``) counts as allowed: the call would have run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from hookline._replay.judged import Verdict
from hookline._replay.recorded import Recorded

#: Every change a replay reports, in the order ``--fail-on`` lists them.
CHANGES: Final = (
    "newly-denied",
    "newly-allowed",
    "newly-asked",
    "newly-deferred",
    "newly-stopped",
    "unclear-before",
    "rewritten",
    "context",
)
#: A recorded outcome as the permission it was.
_AS_PERMISSION: Final = {"allowed": "allow", "denied": "deny", "deferred": "defer", "asked": "ask"}
_RUNS: Final = frozenset({"allow", "none"})


@dataclass(frozen=True, slots=True)
class Replayed:
    """One recorded event, what happened (or the first policy's verdict), and the verdict."""

    recorded: Recorded
    after: Verdict
    before: Verdict | None = None  # ``--diff``: the first policy's

    @property
    def was(self) -> str:
        """allow, deny, defer, ask, stop, none: what the record says, or the first policy."""
        if self.before is not None:
            return self.before.permission
        return _AS_PERMISSION.get(self.recorded.outcome, self.recorded.outcome)

    @property
    def change(self) -> str | None:
        was, now = self.was, self.after.permission
        if now == "stop" and was != "stop":
            return "newly-stopped"
        if was in ("error", "unknown"):
            return "unclear-before" if now in ("deny", "ask", "defer") else None
        moved = _moved(was, now)
        if moved is not None:
            return moved
        before = self.before
        if before is not None:
            if before.rewritten != self.after.rewritten:
                return "rewritten"
            return "context" if before.context != self.after.context else None
        if self.after.rewritten is not None:
            return "rewritten"
        return "context" if self.after.context else None

    def to_dict(self) -> dict[str, Any]:
        recorded = self.recorded
        return {
            "source": recorded.source,
            "session_id": recorded.session_id,
            "event": recorded.event,
            "tool_name": recorded.tool_name,
            "tool_use_id": recorded.tool_use_id,
            "tool_input": recorded.tool_input,
            "prompt": recorded.prompt,
            "redacted_input": recorded.redacted,
            "was": self.was,
            "now": self.after.to_dict(),
            "before": self.before.to_dict() if self.before is not None else None,
            "change": self.change,
        }


def _moved(was: str, now: str) -> str | None:
    """The change of permission alone, or None when it is the same in effect."""
    if (was in _RUNS) == (now in _RUNS) and (was in _RUNS or was == now):
        return None
    if now == "deny":
        return "newly-denied"
    if now in _RUNS:
        return "newly-allowed"
    return "newly-asked" if now == "ask" else "newly-deferred"


@dataclass(frozen=True, slots=True)
class Totals:
    """How many events were replayed, and the changes by kind, by who decides now, by tool."""

    events: int
    by_change: Counter[str]
    by_who: Counter[str]
    by_tool: Counter[str]
    #: What the shadow rules and hooks would have decided: "deny Bash(rm *): would deny".
    shadow: Counter[str]

    @classmethod
    def of(cls, replayed: list[Replayed]) -> Totals:
        changed = [(r, r.change) for r in replayed if r.change is not None]
        return cls(
            len(replayed),
            Counter(change for _, change in changed),
            Counter(f"{change}: {r.after.by or r.after.permission}" for r, change in changed),
            Counter(r.recorded.tool_name or r.recorded.event for r, _ in changed),
            Counter(f"{hook}: would {said}" for r in replayed for hook, said, _ in r.after.shadow),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "events": self.events,
            "changed": sum(self.by_change.values()),
            "by_change": dict(self.by_change.most_common()),
            "by_who": dict(self.by_who.most_common()),
            "by_tool": dict(self.by_tool.most_common()),
            "shadow": dict(self.shadow.most_common()),
        }

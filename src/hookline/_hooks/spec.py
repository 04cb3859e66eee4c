"""A configured hook: a small frozen value, kept apart from running it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, final

from hookline._events import event_class

if TYPE_CHECKING:
    from hookline._hooks.runners import HookRunner
    from hookline._matchers import Matcher

#: gate: votes (allow / deny / ask / defer), concurrently with the other gates.
#: transformer: rewrites, one after another in declared order, each seeing the previous result.
#: observer: sees the final value after the decision; its answer is ignored; cannot block.
HookKind = Literal["gate", "transformer", "observer"]
KINDS: Final = ("gate", "transformer", "observer")

#: closed: a failure (raise, timeout, invalid answer) is a deny. open: a failure is no decision.
FailurePolicy = Literal["closed", "open"]

#: Seconds a Python hook (an Agent SDK callback too) may take unless it says otherwise: the
#: Agent SDK's default. Settings handlers have Claude Code's (``HANDLER_TIMEOUT``).
PYTHON_HOOK_TIMEOUT: Final = 60.0
#: Seconds a settings handler may take unless it or its event (``facts.timeout``) says otherwise
#: (Claude Code's defaults); also how long the HTTP approver waits. Here, not in
#: ``claude.handlers``, so the approvals need not import every handler kind to know it.
HANDLER_TIMEOUT: Final = 600.0


@final
@dataclass(frozen=True, slots=True)
class HookSpec:
    """Everything about one registered hook except how it is run, which its runner knows."""

    event: str
    runner: HookRunner
    matcher: Matcher
    name: str
    kind: HookKind = "gate"
    timeout: float = PYTHON_HOOK_TIMEOUT
    failure: FailurePolicy = "open"
    priority: int = 0
    #: Where it came from, for people: "python:hooks.py", "sdk", "settings:.claude/settings.json".
    source: str = "python"
    #: Registration order; ties in priority keep it.
    seq: int = 0
    #: A shadow hook runs and is recorded ("would have denied") but decides nothing: a rule
    #: tried on real traffic before it is turned on.
    shadow: bool = False

    @property
    def sort_key(self) -> tuple[int, int]:
        """Declared order: higher priority first, then registration order."""
        return (-self.priority, self.seq)


def default_failure(event: str, kind: HookKind, *, in_process: bool) -> FailurePolicy:
    """The failure policy a hook gets when it does not choose one: closed for an in-process
    gate where the event says so (``EventFacts.fails_closed``), open elsewhere."""
    closed = in_process and kind == "gate" and event_class(event).facts.fails_closed
    return "closed" if closed else "open"

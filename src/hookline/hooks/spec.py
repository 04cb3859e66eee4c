"""A configured hook: a small frozen value, kept apart from running it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, final

if TYPE_CHECKING:
    from hookline.hooks.runners import HookRunner
    from hookline.matchers import Matcher

#: gate: votes (allow / deny / ask / defer), concurrently with the other gates.
#: transformer: rewrites, one after another in declared order, each seeing the previous result.
#: observer: sees the final value after the decision; its answer is ignored; cannot block.
HookKind = Literal["gate", "transformer", "observer"]
KINDS: Final = ("gate", "transformer", "observer")

#: closed: a failure (raise, timeout, invalid answer) is a deny. open: a failure is no decision.
FailurePolicy = Literal["closed", "open"]

#: Events where an in-process gate fails closed unless it says otherwise (as Agent SDK callbacks).
FAIL_CLOSED_EVENTS: Final = frozenset({"PreToolUse", "UserPromptSubmit"})

#: Seconds a Python hook may take, unless it says otherwise.
DEFAULT_TIMEOUT: Final = 60.0


@final
@dataclass(frozen=True, slots=True)
class HookSpec:
    """Everything about one registered hook except how it is run, which its runner knows."""

    event: str
    runner: HookRunner
    matcher: Matcher
    name: str
    kind: HookKind = "gate"
    timeout: float = DEFAULT_TIMEOUT
    failure: FailurePolicy = "open"
    priority: int = 0
    #: Where it came from, for people: "python:hooks.py", "sdk", "settings:.claude/settings.json".
    source: str = "python"
    #: Registration order; ties in priority keep it.
    seq: int = 0

    @property
    def sort_key(self) -> tuple[int, int]:
        """Declared order: higher priority first, then registration order."""
        return (-self.priority, self.seq)


def default_failure(event: str, kind: HookKind, *, in_process: bool) -> FailurePolicy:
    """The failure policy a hook gets when it does not choose one."""
    return "closed" if in_process and kind == "gate" and event in FAIL_CLOSED_EVENTS else "open"

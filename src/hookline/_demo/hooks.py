"""The demo's hooks: a safety gate, a path rewrite, and ledgers. Read them as examples.

Each is a plain function of the event; ``install`` registers them with their kind and matcher.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hookline import Decision, HookRegistry, PostToolUse, PreToolUse, ToolBlocked, TurnEnd

Say = Callable[[str, str], None]

#: Commands that are mostly irreversible: refused whatever the model says.
DANGEROUS_PATTERNS = ("rm -rf", "rm -r", "mkfs", "dd if", "shutdown", "reboot", "format")


def safety_gate(event: PreToolUse) -> Decision:
    """Bash is refused: dangerous patterns outright, everything else until a human approves."""
    command = str(event.tool_input.get("command", ""))
    matched = next((p for p in DANGEROUS_PATTERNS if p in command), None)
    if matched:
        return Decision.deny(
            f"dangerous command pattern '{matched}' is blocked by policy. It will be refused "
            "every time; do not retry it."
        )
    return Decision.deny(
        "commands are disabled for the agent: a person must approve and run them. Use Read to "
        "look at files instead, or ask the user to run the command."
    )


def normalise_path(event: PreToolUse) -> Decision | None:
    """``./x`` becomes ``x`` before the call runs (and before the gates look at it)."""
    path = event.tool_input.get("path")
    if isinstance(path, str) and path.startswith("./"):
        return Decision.rewrite({**event.tool_input, "path": path[2:]})
    return None


@dataclass
class Ledgers:
    """The two ledgers: calls that ran, and calls that were refused."""

    say: Say
    executed: list[dict[str, Any]] = field(default_factory=list)
    blocked: list[dict[str, Any]] = field(default_factory=list)

    def record_executed(self, event: PostToolUse) -> None:
        self.executed.append({"name": event.tool_name, "input": event.tool_input, "ok": True})
        self.say(
            "hook", f"[post-hook] recorded {event.tool_name} -> ok ({len(self.executed)} so far)"
        )

    def record_blocked(self, event: ToolBlocked) -> None:
        self.blocked.append(
            {"name": event.tool_name, "input": event.tool_input, "reason": event.reason}
        )
        self.say(
            "blocked", f"[blocked-hook] {event.tool_name} {event.tool_input} -- {event.reason}"
        )

    def turn_ended(self, event: TurnEnd) -> None:
        self.say("hook", f"[turn-hook] turn ended: {event.prompt!r} took {event.steps} model calls")


def install(registry: HookRegistry, ledgers: Ledgers) -> None:
    """Plug the demo's policy into a registry; the agent itself knows none of it."""
    registry.add("PreToolUse", safety_gate, matcher="Bash", name="safety_gate")
    registry.add(
        "PreToolUse", normalise_path, matcher="read_file", kind="transformer", name="normalise_path"
    )
    registry.add("PostToolUse", ledgers.record_executed, kind="observer", name="audit_ledger")
    registry.add("ToolBlocked", ledgers.record_blocked, kind="observer", name="blocked_ledger")
    registry.add("TurnEnd", ledgers.turn_ended, kind="observer", name="turn_observer")

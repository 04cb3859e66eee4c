"""Test doubles that ship with hookline: use them instead of mocks.

``ScriptedModel`` plays model turns from a script; ``RecordingHook`` remembers every event it saw
(register it as an observer on any events); ``FakeRunner`` answers with a fixed decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hookline.decisions import Decision
from hookline.events import EVENTS, HookEvent
from hookline.hooks.registry import HookRegistry, Registration
from hookline.hooks.runners import HookRunner
from hookline.models.scripted import ScriptedModel

__all__ = ["FakeRunner", "RecordingHook", "ScriptedModel"]


@dataclass
class RecordingHook:
    """An observer that keeps every event it is shown, in order."""

    events: list[HookEvent] = field(default_factory=list)

    def __call__(self, event: HookEvent) -> None:
        self.events.append(event)

    @property
    def names(self) -> list[str]:
        """Event names, with the tool name for tool events: ``["PreToolUse:Bash", ...]``."""
        return [
            f"{e.name}:{e.tool_name}" if hasattr(e, "tool_name") else e.name for e in self.events
        ]

    def attach(self, registry: HookRegistry, events: list[str] | None = None) -> list[Registration]:
        """Observe ``events`` (all of hookline's events by default)."""
        return [
            registry.add(name, self, kind="observer", name="recording")
            for name in (events or list(EVENTS))
        ]


class FakeRunner(HookRunner):
    """A hook runner that answers ``decision`` and counts its calls."""

    def __init__(self, decision: Decision | None = None, *, name: str = "fake") -> None:
        self.decision = decision
        self.name = name
        self.calls = 0
        self.inline = True

    async def run(self, event: HookEvent) -> Decision | None:
        return self.call(event)

    def call(self, event: HookEvent) -> Decision | None:
        self.calls += 1
        return self.decision

    def describe(self) -> str:
        return self.name

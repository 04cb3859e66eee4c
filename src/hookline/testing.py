"""Test doubles that ship with hookline: use them instead of mocks.

``ScriptedModel`` plays model turns from a script; ``RecordingHook`` remembers every event it saw
(register it as an observer on any events); ``FakeRunner`` answers with a fixed decision.
"""

from __future__ import annotations

from typing import Any

from hookline._decisions import Decision
from hookline._events import EVENTS, HookEvent
from hookline._hooks.registry import HookRegistry, Registration
from hookline._hooks.runners import HookRunner
from hookline.models._scripted import ScriptedModel

__all__ = ["FakeRunner", "RecordingHook", "ScriptedModel"]


class RecordingHook:
    """A hook that keeps every event it is shown, in order, and answers ``answer`` each time.

    Register it as an observer to record a run (``attach``), or as a gate to answer too.
    """

    def __init__(self, answer: Decision | dict[str, Any] | None = None) -> None:
        self.answer = answer
        self.events: list[HookEvent] = []

    def __call__(self, event: HookEvent) -> Decision | dict[str, Any] | None:
        self.events.append(event)
        return self.answer

    @property
    def names(self) -> list[str]:
        """What it saw: ``Event``, or ``Event:tool`` for tool events."""
        return [_label(e) for e in self.events]

    def attach(self, registry: HookRegistry, events: list[str] | None = None) -> list[Registration]:
        """Observe ``events`` (all of hookline's events by default)."""
        return [
            registry.add(name, self, kind="observer", name="recording")
            for name in (events or list(EVENTS))
        ]


def _label(event: HookEvent) -> str:
    tool_name = getattr(event, "tool_name", None)
    return f"{event.name}:{tool_name}" if tool_name else event.name


class FakeRunner(HookRunner):
    """A hook runner that answers ``decision`` and counts its calls."""

    def __init__(self, decision: Decision | None = None, *, name: str = "fake") -> None:
        self.decision = decision
        self.name = name
        self.calls = 0
        self.inline = True

    async def run(self, event: HookEvent) -> Decision | None:
        self.calls += 1
        return self.decision

    def describe(self) -> str:
        return self.name

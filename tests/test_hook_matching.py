"""Which hooks see an event: a matcher that reads only the match value (a tool name) is asked
once per value and its answer kept with the registry's plan; any other is asked for each event,
when it was asked before; a change to the registry starts afresh."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from hookline import Decision, HookEngine, HookRegistry, PreToolUse, arg, tool_name
from hookline._events import HookEvent
from hookline._matchers import Matcher


class Counted(Matcher):
    """A matcher that counts the events it is asked about and takes every one."""

    __slots__ = ("asked", "by_name")

    def __init__(self, *, by_name: bool) -> None:
        self.asked: list[str] = []
        self.by_name = by_name

    def __call__(self, event: HookEvent) -> bool:
        self.asked.append(event.tool_use_id)  # type: ignore[attr-defined]
        return True


def _fire(
    engine: HookEngine, pre: Callable[..., PreToolUse], calls: list[tuple[str, dict[str, Any]]]
) -> list[str | None]:
    """Dispatch one PreToolUse per (tool, input); each dispatch's permission."""

    async def each() -> list[str | None]:
        out = []
        for tool, tool_input in calls:
            dispatch = await engine.dispatch(pre(tool, **tool_input))
            out.append(dispatch.decision.permission)
        return out

    return asyncio.run(each())


def test_a_tool_name_matcher_is_asked_once_per_tool_name(pre_tool_use):
    counted = Counted(by_name=True)
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: Decision.deny("no"), matcher=counted)
    calls = [("Bash", {}), ("Bash", {}), ("Read", {}), ("Bash", {})]
    assert _fire(HookEngine(registry), pre_tool_use, calls) == ["deny"] * 4
    assert len(counted.asked) == 2  # Bash, Read


def test_a_matcher_that_reads_more_is_asked_for_every_event(pre_tool_use):
    counted = Counted(by_name=False)
    rm = tool_name("Bash") & arg("command", contains="rm")
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: Decision.ask("sure?"), matcher=counted)
    registry.add("PreToolUse", lambda e: Decision.deny("no rm"), matcher=rm)
    calls = [("Bash", {"command": "ls"}), ("Bash", {"command": "rm -rf x"}), ("Read", {})]
    assert _fire(HookEngine(registry), pre_tool_use, calls) == ["ask", "deny", "ask"]
    assert len(counted.asked) == 3
    assert not rm.by_name and (tool_name("Bash") | tool_name("Read")).by_name


def test_a_hook_added_after_a_dispatch_sees_the_next_event(pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: None, matcher="Bash")
    engine = HookEngine(registry)
    assert _fire(engine, pre_tool_use, [("Bash", {})]) == [None]
    remove = registry.add("PreToolUse", lambda e: Decision.deny("no"), matcher="Bash")
    assert _fire(engine, pre_tool_use, [("Bash", {})]) == ["deny"]
    remove()
    assert _fire(engine, pre_tool_use, [("Bash", {})]) == [None]


def test_a_plan_keeps_the_picks_of_a_bounded_number_of_values(pre_tool_use):
    registry = HookRegistry()
    registry.add("PreToolUse", lambda e: Decision.deny("no"), matcher="Tool7|Tool300")
    calls = [(f"Tool{i}", {}) for i in range(400)]
    said = _fire(HookEngine(registry), pre_tool_use, calls + calls[::-1])
    assert [i for i, permission in enumerate(said) if permission] == [7, 300, 499, 792]
    picks = registry.plan("PreToolUse").picks
    assert picks is not None and len(picks) == 256

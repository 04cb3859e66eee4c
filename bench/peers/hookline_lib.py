"""hookline's library loop: ``await Agent(...).run(prompt)``, hooks in a ``HookRegistry``.

The model is hookline's own double, ``ScriptedModel``; the gates are PreToolUse hooks of kind
``gate`` (matcher ``noop``) answering ``Decision.allow()``, the observers PostToolUse hooks of
kind ``observer``. As in bench_tool_calls.py, each run gets a fresh agent in a fresh temporary
folder (on tmpfs where there is one), where its transcript is written.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import peerkit
from peerkit import SHAPE, TOOL

import hookline
from benchkit import SCRATCH
from hookline import Agent, Decision, HookRegistry, PostToolUse, PreToolUse, ScriptedModel


@hookline.tool(name=TOOL)
async def noop(x: int) -> str:
    """Do nothing and say so."""
    return await peerkit.noop(x)


def gate(event: PreToolUse) -> Decision:
    return Decision.allow() if peerkit.allowed(event.tool_input["x"]) else Decision.deny("big")


def observer(event: PostToolUse) -> None:
    peerkit.observed(event.tool_response)


def registry(hooks: int) -> HookRegistry:
    """The gates and observers as hookline's own hooks (one function object each)."""
    gates, observers = SHAPE[hooks]
    made = HookRegistry()
    for _ in range(gates):
        made.add("PreToolUse", lambda e: gate(e), matcher=TOOL, kind="gate")
    for _ in range(observers):
        made.add("PostToolUse", lambda e: observer(e), matcher=TOOL, kind="observer")
    return made


def script(calls: int) -> list[dict[str, Any]]:
    """``calls`` turns of one ``noop`` call each, then the final text."""
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"t{i}", "name": TOOL, "input": {"x": i}}]} for i in range(calls)
    ]
    return [*turns, {"text": peerkit.FINAL}]


@asynccontextmanager
async def agent(
    calls: int, hooks: int, *, make_hooks: Callable[[int], Any] = registry
) -> AsyncIterator[Callable[[], Awaitable[str]]]:
    with tempfile.TemporaryDirectory(dir=SCRATCH) as tmp:
        model = ScriptedModel(script(calls))
        made = Agent(model, tools=[noop], hooks=make_hooks(hooks), cwd=tmp, max_turns=calls + 1)

        async def run() -> str:
            return (await made.run("call noop")).final_text

        yield run
        await made.close()


if __name__ == "__main__":
    peerkit.main(
        agent, dist="hookline", hook="HookRegistry: PreToolUse gates, PostToolUse observers"
    )

"""Strands Agents' hooks alone, fired as its tool executor fires them (bench_dispatch.py).

One "call": a ``BeforeToolCallEvent`` (the agent, the tool, the tool use, the invocation state)
handed to ``HookRegistry.invoke_callbacks_async``, then an ``AfterToolCallEvent`` with the
result. The gates and observers are strands_agents.py's (``SHAPE``: 1 is one gate; 5 is two
gates and three observers). Every call is checked: each gate let it through and each observer
saw it.
"""

from __future__ import annotations

from time import perf_counter
from typing import Any

import peerkit
from peerkit import SHAPE, TOOL
from strands import Agent
from strands.hooks import AfterToolCallEvent, BeforeToolCallEvent
from strands_agents import Hooks, ScriptedModel, noop

_AGENTS: dict[int, Any] = {}


def _agent(hooks: int) -> Any:
    if hooks not in _AGENTS:
        _AGENTS[hooks] = Agent(model=ScriptedModel(0), tools=[noop], hooks=[Hooks(hooks)],
                               callback_handler=None)  # fmt: skip
    return _AGENTS[hooks]


async def batch(calls: int, hooks: int) -> float:
    """µs per call, both events built and their callbacks invoked; every call checked."""
    agent, state = _agent(hooks), {}
    registry, tool = agent.hooks, agent.tool_registry.registry[TOOL]
    peerkit.reset()
    start = perf_counter()
    for i in range(calls):
        use = {"toolUseId": f"t{i}", "name": TOOL, "input": {"x": i}}
        before, _ = await registry.invoke_callbacks_async(BeforeToolCallEvent(
            agent=agent, selected_tool=tool, tool_use=use, invocation_state=state))  # fmt: skip
        if before.cancel_tool:
            raise SystemExit(f"a gate stopped call {i}")
        result = {"toolUseId": f"t{i}", "status": "success", "content": [{"text": "ok"}]}
        await registry.invoke_callbacks_async(AfterToolCallEvent(
            agent=agent, selected_tool=tool, tool_use=use, invocation_state=state,
            result=result))  # fmt: skip
    elapsed = (perf_counter() - start) / calls * 1e6
    gates, observers = SHAPE[hooks]
    seen = (peerkit.TALLY.gated, peerkit.TALLY.observed)
    if seen != (gates * calls, observers * calls):
        raise SystemExit(f"{hooks} Strands hooks, {calls} calls: gated, observed = {seen}")
    return elapsed

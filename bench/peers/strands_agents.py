"""Strands Agents: ``await Agent(...).invoke_async(prompt)``.

The model is a custom model provider (a ``strands.models.Model``) streaming one ``toolUse`` per
turn in the Bedrock event shape the SDK reads, then a text. The hooks are the SDK's typed hook
callbacks from a ``HookProvider``: gates on ``BeforeToolCallEvent`` (a gate that passes leaves
``cancel_tool`` alone), observers on ``AfterToolCallEvent``. No callback handler (the default
one prints the stream); the default conversation manager is kept.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import peerkit
from peerkit import SHAPE, TOOL
from strands import Agent, tool
from strands.hooks import AfterToolCallEvent, BeforeToolCallEvent, HookProvider, HookRegistry
from strands.models import Model


class ScriptedModel(Model):
    """``calls`` turns of one ``noop`` call each, then the final text."""

    def __init__(self, calls: int) -> None:
        self.calls, self.turn = calls, 0

    def update_config(self, **model_config: Any) -> None:
        """Nothing to configure."""

    def get_config(self) -> dict[str, Any]:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the bench asks for text")

    async def stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        turn, self.turn = self.turn, self.turn + 1
        yield {"messageStart": {"role": "assistant"}}
        if turn < self.calls:
            use = {"name": TOOL, "toolUseId": f"t{turn}"}
            yield {"contentBlockStart": {"start": {"toolUse": use}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": f'{{"x": {turn}}}'}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": peerkit.FINAL}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


@tool
async def noop(x: int) -> str:
    """Do nothing and say so.

    Args:
        x: any number
    """
    return await peerkit.noop(x)


def gate(event: BeforeToolCallEvent) -> None:
    if not peerkit.allowed(event.tool_use["input"]["x"]):
        event.cancel_tool = "big"


def observer(event: AfterToolCallEvent) -> None:
    peerkit.observed(event.result)


class Hooks(HookProvider):
    """The gates and observers (one callback object each)."""

    def __init__(self, hooks: int) -> None:
        self.gates, self.observers = SHAPE[hooks]

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        for _ in range(self.gates):
            registry.add_callback(BeforeToolCallEvent, lambda e: gate(e))
        for _ in range(self.observers):
            registry.add_callback(AfterToolCallEvent, lambda e: observer(e))


@asynccontextmanager
async def agent(calls: int, hooks: int) -> AsyncIterator[Callable[[], Awaitable[str]]]:
    made = Agent(
        model=ScriptedModel(calls), tools=[noop], hooks=[Hooks(hooks)], callback_handler=None
    )

    async def run() -> str:
        return str(await made.invoke_async("call noop")).strip()

    yield run


if __name__ == "__main__":
    peerkit.main(
        agent, dist="strands-agents", hook="HookProvider: BeforeToolCallEvent, AfterToolCallEvent"
    )

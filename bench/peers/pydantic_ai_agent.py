"""Pydantic AI: ``await Agent(...).run(prompt)``.

The model is the library's own double, ``FunctionModel``, answering one ``ToolCallPart`` per
turn, then a ``TextPart``. The hooks are the ``Hooks`` capability: gates on
``before_tool_execute`` (for tool ``noop``; a gate that passes returns the arguments, one that
refuses raises ``SkipToolExecution``), observers on ``after_tool_execute``. They are ``async
def``, as the library's documentation writes them: a plain ``def`` hook is run in a thread.
The request limit (50 by default) is raised to the run's length.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import peerkit
from peerkit import SHAPE, TOOL
from pydantic_ai import Agent
from pydantic_ai.capabilities import Hooks
from pydantic_ai.exceptions import SkipToolExecution
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import UsageLimits


def scripted(calls: int) -> FunctionModel:
    """``calls`` turns of one ``noop`` call each, then the final text."""
    turns = iter(range(calls + 1))

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = next(turns)
        if turn < calls:
            return ModelResponse(parts=[ToolCallPart(TOOL, {"x": turn}, tool_call_id=f"t{turn}")])
        return ModelResponse(parts=[TextPart(peerkit.FINAL)])

    return FunctionModel(answer)


async def noop(x: int) -> str:
    """Do nothing and say so."""
    return await peerkit.noop(x)


async def gate(ctx: Any, *, call: Any, tool_def: Any, args: dict[str, Any]) -> dict[str, Any]:
    if not peerkit.allowed(args["x"]):
        raise SkipToolExecution("big")
    return args


async def observer(ctx: Any, *, call: Any, tool_def: Any, args: Any, result: Any) -> Any:
    peerkit.observed(result)
    return result


def capability(hooks: int) -> Hooks[None]:
    """The gates and observers (one function object each)."""
    gates, observers = SHAPE[hooks]
    made: Hooks[None] = Hooks()
    for _ in range(gates):
        made.on.before_tool_execute(tools=[TOOL])(lambda ctx, **kw: gate(ctx, **kw))
    for _ in range(observers):
        made.on.after_tool_execute(tools=[TOOL])(lambda ctx, **kw: observer(ctx, **kw))
    return made


@asynccontextmanager
async def agent(calls: int, hooks: int) -> AsyncIterator[Callable[[], Awaitable[str]]]:
    made = Agent(scripted(calls), tools=[noop], capabilities=[capability(hooks)])
    limits = UsageLimits(request_limit=calls + 1)

    async def run() -> str:
        return str((await made.run("call noop", usage_limits=limits)).output)

    yield run


if __name__ == "__main__":
    peerkit.main(
        agent, dist="pydantic-ai-slim", hook="Hooks: before_tool_execute, after_tool_execute"
    )

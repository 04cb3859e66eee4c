"""LangChain v1: ``await create_agent(...).ainvoke({"messages": [...]})`` (a LangGraph graph).

The model is a ``BaseChatModel`` subclass that binds tools (to itself) and answers one
``AIMessage`` with one tool call per turn, then a text. The hooks are agent middleware, the
v1 hook: each gate and each observer is its own ``wrap_tool_call`` middleware (``async def``,
since the run is async); a gate that passes calls the handler, one that refuses answers a
``ToolMessage``; an observer calls the handler and looks at what came back. The graph's
recursion limit (25 steps by default) is raised to the run's length.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import peerkit
from langchain.agents import create_agent
from langchain.agents.middleware import wrap_tool_call
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from peerkit import SHAPE, TOOL


class ScriptedChatModel(BaseChatModel):
    """``calls`` turns of one ``noop`` call each, then the final text."""

    turns: Iterator[int]
    calls: int

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self  # the script already knows its one tool

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        turn = next(self.turns)
        if turn < self.calls:
            call = {"name": TOOL, "args": {"x": turn}, "id": f"t{turn}", "type": "tool_call"}
            message = AIMessage(content="", tool_calls=[call])
        else:
            message = AIMessage(content=peerkit.FINAL)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(self, messages: list[BaseMessage], *args: Any, **kw: Any) -> ChatResult:
        return self._generate(messages)


@tool
async def noop(x: int) -> str:
    """Do nothing and say so."""
    return await peerkit.noop(x)


async def gate(request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
    if not peerkit.allowed(request.tool_call["args"]["x"]):
        return ToolMessage(content="big", tool_call_id=request.tool_call["id"], status="error")
    return await handler(request)


async def observer(request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
    result = await handler(request)
    peerkit.observed(result)
    return result


def middleware(hooks: int) -> list[Any]:
    """The gates and observers, one named middleware each."""
    gates, observers = SHAPE[hooks]
    return [
        *(wrap_tool_call(name=f"gate{i}")(gate) for i in range(gates)),
        *(wrap_tool_call(name=f"observer{i}")(observer) for i in range(observers)),
    ]


@asynccontextmanager
async def agent(calls: int, hooks: int) -> AsyncIterator[Callable[[], Awaitable[str]]]:
    model = ScriptedChatModel(turns=iter(range(calls + 1)), calls=calls)
    graph = create_agent(model, tools=[noop], middleware=middleware(hooks))
    config: RunnableConfig = {"recursion_limit": 2 * calls + 10}
    prompt: Any = {"messages": [{"role": "user", "content": "call noop"}]}

    async def run() -> str:
        state = await graph.ainvoke(prompt, config=config)
        return str(state["messages"][-1].content)

    yield run


if __name__ == "__main__":
    peerkit.main(agent, dist="langchain", hook="middleware: wrap_tool_call")

"""The OpenAI Agents SDK: ``await Runner.run(agent, prompt)``.

The model is a ``Model`` subclass that answers one ``function_call`` per turn, then a message.
The hooks are the SDK's tool guardrails, the hook it gives for one tool call: the gates are
``tool_input_guardrails`` answering ``ToolGuardrailFunctionOutput.allow()`` (they read the
arguments from their JSON string, as the SDK hands them over), the observers
``tool_output_guardrails`` that allow too. Tracing is turned off (it would export to OpenAI).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import peerkit
from agents import (
    Agent,
    Model,
    ModelResponse,
    Runner,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    ToolOutputGuardrailData,
    Usage,
    function_tool,
    set_tracing_disabled,
    tool_input_guardrail,
    tool_output_guardrail,
)
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from peerkit import SHAPE, TOOL

set_tracing_disabled(True)


class ScriptedModel(Model):
    """``calls`` turns of one ``noop`` call each, then the final text."""

    def __init__(self, calls: int) -> None:
        self.calls, self.turn = calls, 0

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        turn, self.turn = self.turn, self.turn + 1
        if turn < self.calls:
            item: Any = ResponseFunctionToolCall(
                type="function_call", call_id=f"t{turn}", name=TOOL, arguments=f'{{"x": {turn}}}'
            )
        else:
            text = ResponseOutputText(type="output_text", text=peerkit.FINAL, annotations=[])
            item = ResponseOutputMessage(
                id="m", type="message", role="assistant", status="completed", content=[text]
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("the bench runs Runner.run, which does not stream")


def gate(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
    x = json.loads(data.context.tool_arguments)["x"]
    if peerkit.allowed(x):
        return ToolGuardrailFunctionOutput.allow()
    return ToolGuardrailFunctionOutput.reject_content("big")


def observer(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
    peerkit.observed(data.output)
    return ToolGuardrailFunctionOutput.allow()


def tool(hooks: int) -> Any:
    """``noop`` as a function tool carrying the gates and observers (one guardrail each)."""
    gates, observers = SHAPE[hooks]

    async def noop(x: int) -> str:
        """Do nothing and say so."""
        return await peerkit.noop(x)

    return function_tool(
        noop,
        tool_input_guardrails=[
            tool_input_guardrail(name=f"gate{i}")(lambda d: gate(d)) for i in range(gates)
        ],
        tool_output_guardrails=[
            tool_output_guardrail(name=f"observer{i}")(lambda d: observer(d))
            for i in range(observers)
        ],
    )


@asynccontextmanager
async def agent(calls: int, hooks: int) -> AsyncIterator[Callable[[], Awaitable[str]]]:
    made = Agent(name="bench", model=ScriptedModel(calls), tools=[tool(hooks)])

    async def run() -> str:
        result = await Runner.run(made, "call noop", max_turns=calls + 1)
        return str(result.final_output)

    yield run


if __name__ == "__main__":
    peerkit.main(agent, dist="openai-agents", hook="tool_input_guardrails + tool_output_guardrails")

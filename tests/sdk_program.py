"""Run a Claude Agent SDK program on hookline the way the SDK's end-to-end tests run theirs:
``ClaudeSDKClient(options=...)``, ``query`` each prompt, read ``receive_response()`` to its
``ResultMessage``. The model is scripted (``RecordingModel``), so a test decides exactly which
tools it calls and reads what it was shown."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hookline import ClaudeAgentOptions, ClaudeSDKClient
from hookline._agent import messages as agent_messages
from hookline.types import Message, ResultMessage, ToolResultBlock, UserMessage
from recording_model import RecordingModel


def converse(sdk_options: ClaudeAgentOptions, *prompts: str) -> list[Message]:
    """Every message the program reads, answering ``prompts`` in turn on one client."""

    async def program() -> list[Message]:
        seen: list[Message] = []
        async with ClaudeSDKClient(options=sdk_options) as client:
            for prompt in prompts:
                await client.query(prompt)
                async for message in client.receive_response():
                    seen.append(message)
        return seen

    return asyncio.run(program())


def options(
    cwd: Path, turns: Sequence[dict[str, Any]], **fields: Any
) -> tuple[ClaudeAgentOptions, RecordingModel]:
    """The SDK options for a program in ``cwd`` whose model answers ``turns``."""
    model = RecordingModel(turns)
    return ClaudeAgentOptions(cwd=cwd, model=model, **fields), model


def use(call_id: str, tool_name: str, **tool_input: Any) -> dict[str, Any]:
    """A model turn that calls one tool."""
    return {"tool_calls": [{"id": call_id, "name": tool_name, "input": tool_input}]}


def bash(call_id: str, command: str) -> dict[str, Any]:
    return use(call_id, "Bash", command=command)


def results(messages: Sequence[Message]) -> dict[str, ToolResultBlock]:
    """The tool results the program read, by tool use id."""
    return {
        block.tool_use_id: block
        for message in messages
        if isinstance(message, UserMessage) and isinstance(message.content, list)
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }


def outcome(messages: Sequence[Message]) -> ResultMessage:
    """The last message, which ends every response: its ``ResultMessage``."""
    last = messages[-1]
    assert isinstance(last, ResultMessage), f"the response ended with {last!r}"
    return last


def shown(model: RecordingModel, call_id: str) -> agent_messages.ToolResultBlock:
    """The result of ``call_id`` as the model last read it."""
    blocks = [block for message in model.seen[-1].messages for block in message.content]
    found = [b for b in blocks if isinstance(b, agent_messages.ToolResultBlock)]
    return next(b for b in found if b.tool_use_id == call_id)

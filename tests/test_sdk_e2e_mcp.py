"""Claude Agent SDK programs with in-process MCP tools (``@tool``, ``create_sdk_mcp_server``),
run on hookline unchanged but for the import.

The programs are those of the SDK's own end-to-end SDK-MCP tests, with the same tools, options
and checks on which handlers ran; the model is scripted, so each test also shows what the
model was offered and read. A refused call is shown by its handler never running."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from hookline import (
    ClaudeAgentOptions,
    HookMatcher,
    PermissionResultDeny,
    ResultMessage,
    SystemMessage,
    create_sdk_mcp_server,
    query,
    tool,
)
from recording_model import RecordingModel
from sdk_program import converse, results, shown, use

Args = dict[str, Any]


class SpecModel(RecordingModel):
    """The recording model, keeping the whole tool specs of each request."""

    def __init__(self, turns: Sequence[dict[str, Any]]) -> None:
        super().__init__(turns)
        self.specs: list[list[dict[str, Any]]] = []

    def record(self, messages: Any, tools: Sequence[dict[str, Any]], system: str | None) -> None:
        super().record(messages, tools, system)
        self.specs.append([dict(spec) for spec in tools])


def server(name: str, executions: list[str], *, fail: bool = False) -> Any:
    """The SDK tests' server: ``echo`` and ``greet``, each noting in ``executions`` that its
    handler ran; with ``fail`` a third tool, ``explode``, whose handler raises."""

    @tool("echo", "Repeat the text it is given", {"text": str})
    async def echo_tool(args: Args) -> Args:
        executions.append("echo")
        return {"content": [{"type": "text", "text": f"Echo: {args['text']}"}]}

    @tool("greet", "Say hello to someone", {"name": str})
    async def greet_tool(args: Args) -> Args:
        executions.append("greet")
        return {"content": [{"type": "text", "text": f"Hello, {args['name']}!"}]}

    @tool("explode", "Always fails", {})
    async def explode_tool(args: Args) -> Args:
        executions.append("explode")
        raise ValueError("the handler broke")

    tools = [echo_tool, greet_tool, *([explode_tool] if fail else [])]
    return create_sdk_mcp_server(name=name, version="1.0.0", tools=tools)


def program(
    tmp_path: Path, turns: Sequence[dict[str, Any]], **fields: Any
) -> tuple[ClaudeAgentOptions, SpecModel]:
    model = SpecModel([*turns, {"text": "done"}])
    return ClaudeAgentOptions(cwd=tmp_path, model=model, **fields), model


# -- the SDK's programs ---------------------------------------------------------------------------


def test_an_sdk_mcp_tool_runs_when_allowed_and_the_model_reads_its_result(tmp_path: Path) -> None:
    executions: list[str] = []
    opts, model = program(
        tmp_path,
        [use("t1", "mcp__test__echo", text="any text")],
        mcp_servers={"test": server("test", executions)},
        allowed_tools=["mcp__test__echo"],
    )

    messages = converse(opts, "Use mcp__test__echo on some text")

    assert executions == ["echo"]
    assert results(messages)["t1"].content == "Echo: any text"
    assert shown(model, "t1").content == "Echo: any text"


def test_disallowed_tools_keep_an_sdk_mcp_tool_from_running(tmp_path: Path) -> None:
    executions: list[str] = []
    opts, model = program(
        tmp_path,
        [use("t1", "mcp__test__greet", name="Alice"), use("t2", "mcp__test__echo", text="test")],
        mcp_servers={"test": server("test", executions)},
        disallowed_tools=["mcp__test__echo"],
        allowed_tools=["mcp__test__greet"],
    )

    converse(opts, "Greet Alice, then echo something")

    assert executions == ["greet"]
    assert shown(model, "t1").content == "Hello, Alice!"
    assert shown(model, "t2").is_error


def test_several_sdk_mcp_tools_run_in_sequence(tmp_path: Path) -> None:
    executions: list[str] = []
    opts, model = program(
        tmp_path,
        [use("t1", "mcp__multi__echo", text="test"), use("t2", "mcp__multi__greet", name="Bob")],
        mcp_servers={"multi": server("multi", executions)},
        allowed_tools=["mcp__multi__echo", "mcp__multi__greet"],
    )

    converse(opts, "Use mcp__multi__echo, then mcp__multi__greet for Bob")

    assert executions == ["echo", "greet"]
    assert shown(model, "t2").content == "Hello, Bob!"


def test_without_permissions_an_sdk_mcp_tool_does_not_run(tmp_path: Path) -> None:
    executions: list[str] = []
    opts, model = program(
        tmp_path,
        [use("t1", "mcp__noperm__echo", text="hi")],
        mcp_servers={"noperm": server("noperm", executions)},
    )

    messages = converse(opts, "Use mcp__noperm__echo")

    assert executions == []
    assert shown(model, "t1").is_error
    assert results(messages)["t1"].is_error is True


def test_query_with_a_string_prompt_runs_an_sdk_mcp_tool(tmp_path: Path) -> None:
    executions: list[str] = []
    opts, _ = program(
        tmp_path,
        [use("t1", "mcp__test__echo", text="hello world")],
        mcp_servers={"test": server("test", executions)},
        allowed_tools=["mcp__test__echo"],
    )

    async def run() -> list[Any]:
        messages = []
        async for message in query(prompt="Echo 'hello world' with mcp__test__echo", options=opts):
            messages.append(message)
            if isinstance(message, ResultMessage):
                break
        return messages

    messages = asyncio.run(run())

    assert executions == ["echo"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].subtype == "success"


# -- hooks, can_use_tool, failures and what the model is offered ----------------------------------


@pytest.mark.parametrize("matcher", ["mcp__test__echo", "mcp__test__.*", "mcp__.*"])
def test_a_pre_tool_use_hook_matched_on_the_mcp_name_denies_it(
    tmp_path: Path, matcher: str
) -> None:
    executions: list[str] = []
    seen: list[str] = []

    async def deny(input_data: Any, tool_use_id: str | None, context: Any) -> Any:
        seen.append(input_data["tool_name"])
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "Echo is switched off",
            }
        }

    opts, model = program(
        tmp_path,
        [use("t1", "mcp__test__echo", text="hi")],
        mcp_servers={"test": server("test", executions)},
        allowed_tools=["mcp__test__echo"],
        hooks={"PreToolUse": [HookMatcher(matcher=matcher, hooks=[deny])]},
    )

    converse(opts, "Echo hi")

    assert seen == ["mcp__test__echo"]
    assert executions == []
    assert "Echo is switched off" in shown(model, "t1").content


def test_a_hook_matched_on_another_tool_leaves_the_mcp_tool_alone(tmp_path: Path) -> None:
    executions: list[str] = []
    seen: list[str] = []

    async def deny(input_data: Any, tool_use_id: str | None, context: Any) -> Any:
        seen.append(input_data["tool_name"])
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}

    opts, _ = program(
        tmp_path,
        [use("t1", "mcp__test__echo", text="hi")],
        mcp_servers={"test": server("test", executions)},
        allowed_tools=["mcp__test__echo"],
        hooks={"PreToolUse": [HookMatcher(matcher="mcp__test__greet", hooks=[deny])]},
    )

    converse(opts, "Echo hi")

    assert seen == []
    assert executions == ["echo"]


def test_can_use_tool_is_asked_for_an_sdk_mcp_tool_by_its_mcp_name(tmp_path: Path) -> None:
    executions: list[str] = []
    asked: list[tuple[str, Args]] = []

    async def can_use_tool(name: str, input_data: Args, context: Any) -> PermissionResultDeny:
        asked.append((name, input_data))
        return PermissionResultDeny(message="Greetings are paused")

    opts, model = program(
        tmp_path,
        [use("t1", "mcp__test__greet", name="Ann")],
        mcp_servers={"test": server("test", executions)},
        can_use_tool=can_use_tool,
    )

    converse(opts, "Greet Ann")

    assert asked == [("mcp__test__greet", {"name": "Ann"})]
    assert executions == []
    assert "Greetings are paused" in shown(model, "t1").content


def test_a_handler_that_raises_is_an_error_result_the_model_reads(tmp_path: Path) -> None:
    executions: list[str] = []
    opts, model = program(
        tmp_path,
        [use("t1", "mcp__test__explode"), use("t2", "mcp__test__echo", text="after")],
        mcp_servers={"test": server("test", executions, fail=True)},
        allowed_tools=["mcp__test__explode", "mcp__test__echo"],
    )

    messages = converse(opts, "Try the tool that fails, then echo")

    assert executions == ["explode", "echo"]
    read = shown(model, "t1")
    assert read.is_error and "the handler broke" in read.content
    assert results(messages)["t1"].is_error is True
    assert shown(model, "t2").content == "Echo: after"


def test_the_model_is_offered_the_sdk_tools_with_their_schemas(tmp_path: Path) -> None:
    opts, model = program(tmp_path, [], mcp_servers={"test": server("test", [])})

    messages = converse(opts, "What tools do you have?")

    offered = {spec["name"]: spec for spec in model.specs[0]}
    echo = offered["mcp__test__echo"]
    assert echo["description"] == "Repeat the text it is given"
    assert echo["input_schema"]["properties"] == {"text": {"type": "string"}}
    assert echo["input_schema"]["required"] == ["text"]
    assert "mcp__test__greet" in offered and "Bash" in offered
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert {"mcp__test__echo", "mcp__test__greet"} <= set(init.data["tools"])

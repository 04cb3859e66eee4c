"""Tool input limits: too deep or too big is a clear failed result, never a RecursionError."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, Decision, ScriptedModel
from hookline._hooks.engine import HookEngine
from hookline._hooks.registry import HookRegistry
from hookline._tools.base import Toolbox, ToolCall, ToolContext, Workspace
from hookline._tools.builtin import Read
from hookline._tools.limits import REFUSED_KEY, InputLimits, measure
from hookline._tools.pipeline import ToolPipeline


def nested(depth: int) -> dict[str, Any]:
    """A tool input ``depth`` levels deep (the input object itself is level 1), built without
    recursion."""
    top: dict[str, Any] = {"file_path": "notes.txt"}
    node: Any = top
    for level in range(depth - 1):
        child: Any = [] if level % 2 == 0 else {}
        if isinstance(node, dict):
            node["x"] = child
        else:
            node.append(child)
        node = child
    return top


def run_agent(tmp_path: Path, tool_input: dict[str, Any]) -> tuple[Any, list[str]]:
    (tmp_path / "notes.txt").write_text("hello\n")
    model = ScriptedModel(
        [{"tool_calls": [{"name": "Read", "input": tool_input}]}, {"text": "understood"}]
    )
    agent = Agent(model, cwd=str(tmp_path))
    seen: list[str] = []

    @agent.registry.on("PreToolUse")
    def record(event: Any) -> Decision | None:
        seen.append(event.tool_name)
        return None

    return agent.run_sync("read it"), seen


@pytest.mark.parametrize("depth", [800, 100_000])
def test_a_deeply_nested_input_fails_with_a_clear_error_before_any_hook(
    tmp_path: Path, depth: int
) -> None:
    result, seen = run_agent(tmp_path, nested(depth))
    call = result.tool_calls[0]
    assert (call.status, call.content) == (
        "failed",
        f"tool input is nested {depth} deep; the limit is 64",
    )
    assert seen == []  # no hook saw it
    assert result.final_text == "understood"  # the run went on: the model read the refusal
    json.dumps(call.to_dict())  # what is kept of the call is small and plain


def test_a_twenty_megabyte_string_fails_with_a_clear_error(tmp_path: Path) -> None:
    result, seen = run_agent(tmp_path, {"file_path": "notes.txt", "extra": "x" * 20_000_000})
    call = result.tool_calls[0]
    assert call.status == "failed"
    assert call.content == "tool input is more than 1,000,000 bytes as JSON; the limit is 1,000,000"
    assert seen == []


def test_an_input_within_the_limits_runs(tmp_path: Path) -> None:
    result, seen = run_agent(tmp_path, {"file_path": "notes.txt"})
    assert (result.tool_calls[0].status, seen) == ("executed", ["Read"])


def test_the_pipeline_checks_limits_it_is_given_when_driven_directly(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    pipeline = ToolPipeline(
        Toolbox([Read()]),
        HookEngine(HookRegistry()),
        limits=InputLimits(max_bytes=100, max_depth=2),
    )
    ctx = ToolContext(cwd=tmp_path, workspace=Workspace.of(tmp_path))
    scope = Agent(ScriptedModel([]), cwd=str(tmp_path)).session.scope

    def status(tool_input: dict[str, Any]) -> tuple[str, str]:
        result = asyncio.run(pipeline.run(ToolCall("t1", "Read", tool_input), scope, ctx))
        return result.status, result.content

    assert status({"file_path": "notes.txt"})[0] == "executed"
    assert status({"file_path": "notes.txt", "x": [[1]]}) == (
        "failed",
        "tool input is nested 3 deep; the limit is 2",
    )
    assert status({"file_path": "n" * 200})[1].startswith("tool input is more than 100 bytes")


@pytest.mark.parametrize(
    ("value", "depth"),
    [(1, 0), ({}, 1), ({"a": [1, {"b": "c"}]}, 3), ([[], [[[]]]], 4)],
)
def test_nesting_counts_containers_on_the_deepest_path(value: Any, depth: int) -> None:
    assert measure(value, max_bytes=10**9)[0] == depth


@pytest.mark.parametrize(
    "value",
    [{}, [], {"a": 1, "b": [True, None, 2.5, "é"]}, ["x" * 50, {"k": {"l": []}}], 10**4000,
     {"command": "ls -la", "timeout": 5, "x": None, "é": 1.5}],
)  # fmt: skip
def test_json_size_is_close_to_the_compact_json_length(value: Any) -> None:
    exact = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
    assert abs(measure(value, max_bytes=10**9)[1] - exact) <= 2


def test_a_stand_in_keeps_its_reason_and_a_small_input_is_left_alone() -> None:
    limits = InputLimits(max_depth=1)
    small = ToolCall("t", "Read", {"file_path": "a"})
    assert limits.fit(small) is small
    fitted = limits.fit(ToolCall("t", "Read", {"a": {}}))
    assert fitted.input == {REFUSED_KEY: "tool input is nested 2 deep; the limit is 1"}
    assert limits.problem(fitted.input) == "tool input is nested 2 deep; the limit is 1"


# -- a file tool's file text ----------------------------------------------------------------

#: About 5.8 MB of file text: what Claude Code wrote in one Write, as asked.
BIG_TEXT = "".join(f"line {n:07d} of a big file written by the model\n" for n in range(120_000))


def write_agent(tmp_path: Path, tool_input: dict[str, Any]) -> tuple[Any, Path]:
    """A run whose model asks for one Write of ``tool_input``; a command hook on PreToolUse
    writes the length of the content it was given to ``seen.txt``."""
    seen = tmp_path / "seen.txt"
    hook = (
        "python3 -c 'import json,sys; e=json.load(sys.stdin); "
        f'open("{seen}","w").write(str(len(e["tool_input"].get("content",""))))\''
    )
    settings = {"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
        {"type": "command", "command": hook}]}]}}  # fmt: skip
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    from hookline import load_project

    model = ScriptedModel(
        [{"tool_calls": [{"name": "Write", "input": tool_input}]}, {"text": "written"}]
    )
    agent = Agent(model, **load_project(project, mode="acceptEdits").agent_options())
    return agent.run_sync("write it"), seen


def test_a_write_of_several_megabytes_runs_as_in_claude_code(tmp_path: Path) -> None:
    target = tmp_path / "project" / "big.txt"
    result, seen = write_agent(tmp_path, {"file_path": str(target), "content": BIG_TEXT})
    call = result.tool_calls[0]
    assert call.status == "executed", call.content
    assert target.read_text() == BIG_TEXT
    assert seen.read_text() == str(len(BIG_TEXT))  # the hook was given the whole text


def test_file_text_over_its_own_limit_is_refused_before_any_hook(tmp_path: Path) -> None:
    target = tmp_path / "project" / "huge.txt"
    result, seen = write_agent(tmp_path, {"file_path": str(target), "content": "x" * 33_000_000})
    call = result.tool_calls[0]
    assert call.status == "failed"
    assert call.content == (
        "the file text is more than 32,000,000 bytes; the limit is 32,000,000: write the file "
        "in parts (Write, then Edit)"
    )
    assert not target.exists() and not seen.exists()


@pytest.mark.parametrize(
    ("tool_input", "why"),
    [
        pytest.param(
            {"file_path": "a.txt", "content": "x", "note": "y" * 2_000_000},
            "tool input is more than 1,000,000 bytes as JSON; the limit is 1,000,000",
            id="another-field-keeps-1MB",
        ),
        pytest.param(
            {"file_path": "a.txt", "content": ["x" * 10] * 200_000},
            "tool input is more than 1,000,000 bytes as JSON; the limit is 1,000,000",
            id="content-not-a-string",
        ),
        pytest.param(
            {**nested(100), "content": "x"},
            "tool input is nested 100 deep; the limit is 64",
            id="depth-still-holds",
        ),
    ],
)
def test_only_a_file_tools_text_gets_the_larger_limit(tool_input: dict[str, Any], why: str) -> None:
    limits = InputLimits()
    assert limits.problem(tool_input, "Write") == why
    assert limits.problem({"command": "x" * 2_000_000}, "Bash") == (
        "tool input is more than 1,000,000 bytes as JSON; the limit is 1,000,000"
    )
    assert limits.problem({"file_path": "a", "content": BIG_TEXT}, "Write") is None
    assert limits.problem({"file_path": "a", "content": BIG_TEXT}, "Read") is not None


def test_a_hook_may_rewrite_a_write_to_big_file_text(tmp_path: Path) -> None:
    target = tmp_path / "big.txt"
    model = ScriptedModel(
        [{"tool_calls": [{"name": "Write", "input": {"file_path": str(target), "content": "x"}}]},
         {"text": "written"}]
    )  # fmt: skip
    agent = Agent(model, cwd=str(tmp_path))
    agent.registry.add(
        "PreToolUse",
        lambda e: Decision.rewrite({**e.tool_input, "content": BIG_TEXT}),
        kind="transformer",
    )
    result = agent.run_sync("write it")
    assert result.tool_calls[0].status == "executed", result.tool_calls[0].content
    assert target.read_text() == BIG_TEXT

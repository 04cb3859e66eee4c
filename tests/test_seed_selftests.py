"""Seed 000's four self-tests (step7-hooks/test.js), rebuilt on hookline.

The seed's harness: a safety hook and a path-rewrite hook on PreToolUse, an audit ledger on
PostToolUse (calls that ran) and a blocked ledger on ToolBlocked (calls that were refused).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from hookline import Decision, PostToolUse, PreToolUse, ToolBlocked, tool
from hookline._agent.messages import ToolResultBlock

DANGEROUS_PATTERNS = ["rm -rf", "rm -r", "mkfs", "dd if", "shutdown", "reboot", "format"]


def safety_pre_hook(event: PreToolUse) -> Decision | None:
    """Refuse dangerous commands, and any command at all: a human runs those."""
    command = str(event.tool_input.get("command", ""))
    matched = next((p for p in DANGEROUS_PATTERNS if p in command), None)
    if matched:
        return Decision.deny(f"危险命令模式「{matched}」被策略拦截")
    return Decision.deny("命令执行类工具默认禁止：命令应由人工审批，不交给模型直接执行")


def path_normalize_pre_hook(event: PreToolUse) -> Decision | None:
    """Rewrite ``./x`` to ``x``."""
    path = event.tool_input.get("path")
    if isinstance(path, str) and path.startswith("./"):
        return Decision.rewrite({**event.tool_input, "path": path[2:]})
    return None


@dataclass
class SeedHarness:
    """The seed's tools, with its sentinel and its two ledgers."""

    fragile_executed: bool = False
    audit: list[dict[str, Any]] = field(default_factory=list)
    blocked_log: list[dict[str, Any]] = field(default_factory=list)

    def tools(self) -> list[Any]:
        @tool
        def run_command(command: str) -> str:
            return f"ran {command}"

        @tool
        def read_file(path: str) -> str:
            return f"contents of {path}"

        @tool
        def fragile() -> str:
            self.fragile_executed = True
            return "fragile ran"

        return [run_command, read_file, fragile]

    def audit_post_hook(self, event: PostToolUse) -> None:
        self.audit.append({"name": event.tool_name, "args": event.tool_input})

    def blocked_hook(self, event: ToolBlocked) -> None:
        self.blocked_log.append(
            {"name": event.tool_name, "args": event.tool_input, "reason": event.reason}
        )


@pytest.fixture
def seed(agent_with):
    """``seed(script)``: the seed harness and an agent with its hooks registered."""

    def make(script):
        harness = SeedHarness()
        agent = agent_with(script, harness.tools())
        agent.registry.add("PreToolUse", safety_pre_hook, matcher="run_command")
        agent.registry.add("PreToolUse", path_normalize_pre_hook, matcher="read_file",
                           kind="transformer")  # fmt: skip
        agent.registry.add("PostToolUse", harness.audit_post_hook, kind="observer")
        agent.registry.add("ToolBlocked", harness.blocked_hook, kind="observer")
        return harness, agent

    return make


def test_1_when_a_pre_hook_blocks_the_tool_never_runs_and_the_block_is_recorded(seed, use):
    harness, agent = seed([use("fragile"), {"text": "done"}])
    agent.registry.add("PreToolUse", lambda e: Decision.deny("off limits"),
                       matcher="fragile")  # fmt: skip

    result = agent.run_sync("break something")

    assert harness.fragile_executed is False
    assert harness.blocked_log == [{"name": "fragile", "args": {}, "reason": "off limits"}]
    assert harness.audit == []
    assert [r.status for r in result.tool_calls] == ["blocked"]


def test_2_the_post_hook_fires_after_each_execution(seed, use):
    harness, agent = seed(
        [use("read_file", path="package.json"), use("run_command", command="whoami"),
         use("read_file", path="./package.json"), {"text": "done"}]
    )  # fmt: skip

    agent.run_sync("read package.json twice")

    assert harness.audit == [
        {"name": "read_file", "args": {"path": "package.json"}},
        {"name": "read_file", "args": {"path": "package.json"}},
    ]
    assert [b["args"] for b in harness.blocked_log] == [{"command": "whoami"}]


def test_3_a_hook_unregistered_by_its_handle_stops_and_unmatched_tools_are_unaffected(seed):
    harness, agent = seed([])
    handle = agent.registry.add("PreToolUse", lambda e: Decision.deny("no fragile"),
                                matcher="fragile")  # fmt: skip

    async def calls():
        unmatched = await agent.call_tool("read_file", {"path": "a.txt"})
        before = await agent.call_tool("fragile", {})
        handle()
        after = await agent.call_tool("fragile", {})
        return unmatched, before, after

    unmatched, before, after = asyncio.run(calls())

    assert (unmatched.status, unmatched.content) == ("executed", "contents of a.txt")
    assert before.status == "blocked"
    assert after.status == "executed" and harness.fragile_executed is True


def test_4_a_blocked_call_returns_to_the_models_history_as_an_error_result(seed, use):
    _, agent = seed([use("run_command", command="rm -rf /"), {"text": "I will not do that."}])

    result = agent.run_sync("clean the disk")

    assert (result.stop_reason, result.final_text) == ("end_turn", "I will not do that.")
    assert agent.model.calls == 2
    assert agent.model.requests == [1, 3]  # the second call was shown the tool result
    shown = agent.session.messages[: agent.model.requests[1]]
    assert shown[-1].role == "user"
    assert shown[-1].content == (
        ToolResultBlock(
            "toolu_run_command",
            "PreToolUse:run_command hook error: 危险命令模式「rm -rf」被策略拦截",
            is_error=True,
        ),
    )

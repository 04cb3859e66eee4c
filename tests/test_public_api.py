"""The curated public surface: ``hookline.__all__`` is exactly this list, and all of it imports."""

from __future__ import annotations

import importlib

import pytest

import hookline

EXPECTED = {
    # the agent
    "Agent", "AgentOptions", "ClaudeAgentOptions", "RunResult", "Message", "ModelClient",
    # permissions and approvals
    "PermissionPolicy", "Approval", "ApprovalRequest", "Approver",
    # models shipped as doubles
    "ScriptedModel", "RuleModel",
    # decisions
    "Decision", "NO_DECISION", "merge",
    # errors
    "HooklineError", "ConfigError", "HookFailure", "HookTimeout", "InvalidHookOutput",
    "ToolError", "ToolInputError",
    # events
    "EVENTS", "HookEvent", "SessionStart", "SessionEnd", "UserPromptSubmit", "TurnStart",
    "TurnEnd", "PreToolUse", "PermissionRequest", "PostToolBatch", "PostToolUse",
    "PostToolUseFailure",
    "ToolBlocked", "Stop",
    # hooks
    "HookEngine", "HookRun", "Dispatch", "HookRegistry", "Registration", "HookRunner",
    "HookMatcher",
    # matchers
    "Matcher", "tool_name", "arg", "all_of", "any_of", "not_",
    # tools
    "Tool", "ToolCall", "ToolContext", "ToolResult", "Workspace", "FunctionTool", "tool",
    "__version__",
}  # fmt: skip


def test_all_is_exactly_the_curated_surface():
    assert len(hookline.__all__) == len(set(hookline.__all__))
    assert set(hookline.__all__) == EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_public_name_is_importable(name):
    module = importlib.import_module("hookline")
    assert getattr(module, name) is not None
    namespace: dict[str, object] = {}
    exec(f"from hookline import {name}", namespace)
    assert namespace[name] is getattr(hookline, name)

"""The curated public surface: ``hookline.__all__`` is exactly this list, and all of it imports."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import hookline

EXPECTED = {
    # the agent
    "Agent", "AgentOptions", "ClaudeAgentOptions", "RunResult", "Message", "ModelClient",
    "AgentDefinition",
    # the project as `hookline run` loads it
    "Project", "load_project",
    # permissions and approvals
    "PermissionPolicy", "Approval", "ApprovalRequest", "Approver", "Unavailable",
    # observers at the side of a run
    "Observer", "Handle",
    # models shipped as doubles
    "ScriptedModel", "RuleModel",
    # decisions
    "Decision", "NO_DECISION", "merge",
    # errors
    "HooklineError", "ConfigError", "HookFailure", "HookTimeout", "InvalidHookOutput",
    "ToolError", "ToolInputError", "ModelError",
    # events
    "EVENTS", "HookEvent", "SessionStart", "SessionEnd", "UserPromptSubmit", "TurnStart",
    "TurnEnd", "PreToolUse", "PermissionRequest", "PostToolBatch", "PostToolUse",
    "PostToolUseFailure",
    "ToolBlocked", "Stop", "Notification", "InstructionsLoaded", "PreModelRequest",
    "PostModelResponse", "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
    "CwdChanged", "FileChanged", "ConfigChange", "PreModelSwitch", "PostModelSwitch",
    # hooks
    "HookEngine", "HookRun", "Dispatch", "HookRegistry", "Registration", "HookRunner",
    "HookMatcher",
    # matchers
    "Matcher", "tool_name", "arg", "all_of", "any_of", "not_",
    # tools
    "Tool", "ToolCall", "ToolContext", "ToolResult", "Workspace", "FunctionTool", "tool",
    # the Claude Agent SDK's messages, permission and hook types, errors (hookline.sdk)
    "AssistantMessage", "UserMessage", "SystemMessage", "ResultMessage", "StreamEvent",
    "TextBlock", "ThinkingBlock", "ToolUseBlock", "ToolResultBlock", "ContentBlock",
    "PermissionMode", "PermissionUpdate", "PermissionResult", "PermissionResultAllow",
    "PermissionResultDeny", "ToolPermissionContext", "CanUseTool",
    "HookCallback", "HookContext", "HookInput", "HookJSONOutput",
    "ClaudeSDKError", "CLIConnectionError", "CLINotFoundError", "ProcessError", "ResultError",
    "CLIJSONDecodeError",
    # the Claude Agent SDK's way to run an agent, and its in-process MCP tools
    "query", "ClaudeSDKClient", "create_sdk_mcp_server", "SdkMcpTool",
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


def test_load_project_gives_what_a_run_uses(tmp_path: Path) -> None:
    """A library user gets the CLI's configuration from ``load_project``: the settings' hooks,
    deny rules and redaction, and an agent built from it keeps the deny rule (the tool never
    runs: its sentinel stays unset)."""
    claude = tmp_path / ".claude"
    claude.mkdir()
    (claude / "settings.json").write_text(
        '{"permissions": {"deny": ["Bash(touch:*)"]}, "redact": ["tok_[a-z]+"],'
        ' "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}'
    )
    project = hookline.load_project(tmp_path)
    assert project.cwd == str(tmp_path.resolve())
    assert [spec.event for spec in project.hooks] == ["Stop"]
    assert project.redact == ("tok_[a-z]+",)
    assert project.warnings == ()
    sentinel = tmp_path / "SENTINEL"
    turn = {"tool_calls": [{"name": "Bash", "input": {"command": f"touch {sentinel}"}}]}
    model = hookline.ScriptedModel([turn, {"text": "done"}])
    options = {**project.agent_options(), "permission_mode": "bypassPermissions"}
    result = hookline.Agent(model, **options).run_sync("go")
    assert [call.status for call in result.tool_calls] == ["blocked"]
    assert not sentinel.exists()

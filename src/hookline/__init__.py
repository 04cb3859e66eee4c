"""hookline: an agent harness whose rules live in lifecycle hooks.

A prompt asks a model to follow a rule; a hook guarantees it. The public surface is listed in
``__all__`` and checked by a test; everything else is internal.

This is also where the layers meet: the agent knows stores and the audit log only as
interfaces, and the package plugs in its own (``store="..."`` URLs and paths, ``audit=True``),
each imported when first used. So are the public names (``_WHERE``): ``import hookline`` costs
a few milliseconds, and a command or a script pays only for the modules it touches.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline.agent.model import install_resolver
from hookline.agent.observers import Observer, install_audit
from hookline.agent.store import SessionStore, install_opener

if TYPE_CHECKING:  # the names __getattr__ gives, for type checkers and readers
    from hookline._support.version import __version__
    from hookline.agent.loop import Agent
    from hookline.agent.messages import Message
    from hookline.agent.model import ModelClient
    from hookline.agent.observers import Handle
    from hookline.agent.options import AgentOptions
    from hookline.agent.result import RunResult
    from hookline.agent.subagent_types import AgentDefinition
    from hookline.decisions import NO_DECISION, Decision, merge
    from hookline.errors import (
        ConfigError,
        HookFailure,
        HooklineError,
        HookTimeout,
        InvalidHookOutput,
        ModelError,
        ToolError,
        ToolInputError,
    )
    from hookline.events import (
        EVENTS,
        ConfigChange,
        CwdChanged,
        FileChanged,
        HookEvent,
        InstructionsLoaded,
        Notification,
        PermissionMode,
        PermissionRequest,
        PostCompact,
        PostModelResponse,
        PostModelSwitch,
        PostToolBatch,
        PostToolUse,
        PostToolUseFailure,
        PreCompact,
        PreModelRequest,
        PreModelSwitch,
        PreToolUse,
        SessionEnd,
        SessionStart,
        Stop,
        SubagentStart,
        SubagentStop,
        ToolBlocked,
        TurnEnd,
        TurnStart,
        UserPromptSubmit,
    )
    from hookline.hooks.engine import Dispatch, HookEngine, HookRun
    from hookline.hooks.registry import HookRegistry, Registration
    from hookline.hooks.runners import HookRunner
    from hookline.hooks.sdk import HookMatcher
    from hookline.matchers import Matcher, all_of, any_of, arg, not_, tool_name
    from hookline.models.rule_model import RuleModel
    from hookline.models.scripted import ScriptedModel
    from hookline.permissions import PermissionPolicy
    from hookline.project import Project, load_project
    from hookline.sdk.client import ClaudeSDKClient, query
    from hookline.sdk.errors import (
        ClaudeSDKError,
        CLIConnectionError,
        CLIJSONDecodeError,
        CLINotFoundError,
        ProcessError,
        ResultError,
    )
    from hookline.sdk.options import ClaudeAgentOptions
    from hookline.sdk.tools import SdkMcpTool, create_sdk_mcp_server, tool
    from hookline.sdk.types import (
        AssistantMessage,
        CanUseTool,
        ContentBlock,
        HookCallback,
        HookContext,
        HookInput,
        HookJSONOutput,
        PermissionResult,
        PermissionResultAllow,
        PermissionResultDeny,
        PermissionUpdate,
        ResultMessage,
        StreamEvent,
        SystemMessage,
        TextBlock,
        ThinkingBlock,
        ToolPermissionContext,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )
    from hookline.tools.approvals import Approval, ApprovalRequest, Approver, Unavailable
    from hookline.tools.base import Tool, ToolCall, ToolContext, ToolResult, Workspace
    from hookline.tools.function import FunctionTool

#: Where each public name lives. ``import hookline`` loads none of them: a name is imported
#: on first use (``hookline.Agent``, ``from hookline import Agent``), so a command or a script
#: pays only for what it touches (``hookline --version`` never builds an agent).
_WHERE: Final[dict[str, tuple[str, ...]]] = {
    "hookline.agent.loop": ("Agent",),
    "hookline.agent.messages": ("Message",),
    "hookline.agent.model": ("ModelClient",),
    "hookline.agent.observers": ("Handle", "Observer"),
    "hookline.agent.options": ("AgentOptions",),
    "hookline.agent.result": ("RunResult",),
    "hookline.agent.subagent_types": ("AgentDefinition",),
    "hookline.decisions": ("NO_DECISION", "Decision", "merge"),
    "hookline.errors": (
        "ConfigError", "HookFailure", "HooklineError", "HookTimeout", "InvalidHookOutput",
        "ModelError", "ToolError", "ToolInputError",
    ),
    "hookline.events": (
        "EVENTS", "HookEvent", "InstructionsLoaded", "Notification", "PermissionRequest",
        "PostModelResponse", "PostToolBatch", "PostToolUse", "PostToolUseFailure",
        "PreModelRequest", "PreToolUse", "SessionEnd", "SessionStart", "Stop", "ToolBlocked",
        "TurnEnd", "TurnStart", "UserPromptSubmit", "SubagentStart", "SubagentStop",
        "PreCompact", "PostCompact", "CwdChanged", "FileChanged", "ConfigChange",
        "PreModelSwitch", "PostModelSwitch", "PermissionMode",
    ),
    "hookline.hooks.engine": ("Dispatch", "HookEngine", "HookRun"),
    "hookline.hooks.registry": ("HookRegistry", "Registration"),
    "hookline.hooks.runners": ("HookRunner",),
    "hookline.hooks.sdk": ("HookMatcher",),
    "hookline.matchers": ("Matcher", "all_of", "any_of", "arg", "not_", "tool_name"),
    "hookline.models.rule_model": ("RuleModel",),
    "hookline.models.scripted": ("ScriptedModel",),
    "hookline.permissions": ("PermissionPolicy",),
    "hookline.project": ("Project", "load_project"),
    "hookline.tools.approvals": ("Approval", "ApprovalRequest", "Approver", "Unavailable"),
    "hookline.tools.base": ("Tool", "ToolCall", "ToolContext", "ToolResult", "Workspace"),
    "hookline.tools.function": ("FunctionTool",),
    "hookline._support.version": ("__version__",),
    "hookline.sdk.client": ("ClaudeSDKClient", "query"),
    "hookline.sdk.options": ("ClaudeAgentOptions",),
    "hookline.sdk.errors": (
        "ClaudeSDKError", "CLIConnectionError", "CLINotFoundError", "ProcessError", "ResultError",
        "CLIJSONDecodeError",
    ),
    "hookline.sdk.tools": ("SdkMcpTool", "create_sdk_mcp_server", "tool"),
    "hookline.sdk.types": (
        "AssistantMessage", "UserMessage", "SystemMessage", "ResultMessage", "StreamEvent",
        "TextBlock", "ThinkingBlock", "ToolUseBlock", "ToolResultBlock", "ContentBlock",
        "PermissionUpdate", "PermissionResult", "PermissionResultAllow", "PermissionResultDeny",
        "ToolPermissionContext", "CanUseTool", "HookCallback", "HookContext", "HookInput",
        "HookJSONOutput",
    ),
}  # fmt: skip
_MODULE: Final = {name: module for module, names in _WHERE.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE.get(name) or _sdk_module(name)
    if module is None:
        raise AttributeError(f"module 'hookline' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: later lookups are plain module attributes
    return value


def _sdk_module(name: str) -> str | None:
    """``hookline.types`` for the other names a Claude Agent SDK program imports from the SDK's
    top level (hook input types, MCP server configs, ...), and for those it does not have yet,
    whose import it refuses with a message that says so; None for any other name."""
    if name.startswith("__"):
        return None
    types = importlib.import_module("hookline.types")
    return "hookline.types" if name in types.__all__ or name in types.NOT_PROVIDED else None


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def _open_store(url_or_path: str | None, *, state_dir: Path) -> SessionStore:
    """``hookline.storage.open_store``, imported when a store is first opened."""
    from hookline.storage import open_store

    return open_store(url_or_path, state_dir=state_dir)


def _agent_audit(agent: Agent) -> Observer:
    """``hookline.audit.log.agent_audit``, imported when an agent first turns the audit on."""
    from hookline.audit.log import agent_audit

    return agent_audit(agent)


def _named_model(spec: str) -> ModelClient:
    """``hookline.models.choice.model_from_spec``, imported when a model is first named."""
    from hookline.models.choice import model_from_spec

    return model_from_spec(spec)


install_opener(_open_store)
install_audit(_agent_audit)
install_resolver(_named_model)

__all__ = [
    "EVENTS",
    "NO_DECISION",
    "Agent",
    "AgentDefinition",
    "AgentOptions",
    "Approval",
    "ApprovalRequest",
    "Approver",
    "AssistantMessage",
    "CLIConnectionError",
    "CLIJSONDecodeError",
    "CLINotFoundError",
    "CanUseTool",
    "ClaudeAgentOptions",
    "ClaudeSDKClient",
    "ClaudeSDKError",
    "ConfigChange",
    "ConfigError",
    "ContentBlock",
    "CwdChanged",
    "Decision",
    "Dispatch",
    "FileChanged",
    "FunctionTool",
    "Handle",
    "HookCallback",
    "HookContext",
    "HookEngine",
    "HookEvent",
    "HookFailure",
    "HookInput",
    "HookJSONOutput",
    "HookMatcher",
    "HookRegistry",
    "HookRun",
    "HookRunner",
    "HookTimeout",
    "HooklineError",
    "InstructionsLoaded",
    "InvalidHookOutput",
    "Matcher",
    "Message",
    "ModelClient",
    "ModelError",
    "Notification",
    "Observer",
    "PermissionMode",
    "PermissionPolicy",
    "PermissionRequest",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionUpdate",
    "PostCompact",
    "PostModelResponse",
    "PostModelSwitch",
    "PostToolBatch",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "PreModelRequest",
    "PreModelSwitch",
    "PreToolUse",
    "ProcessError",
    "Project",
    "Registration",
    "ResultError",
    "ResultMessage",
    "RuleModel",
    "RunResult",
    "ScriptedModel",
    "SdkMcpTool",
    "SessionEnd",
    "SessionStart",
    "Stop",
    "StreamEvent",
    "SubagentStart",
    "SubagentStop",
    "SystemMessage",
    "TextBlock",
    "ThinkingBlock",
    "Tool",
    "ToolBlocked",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolInputError",
    "ToolPermissionContext",
    "ToolResult",
    "ToolResultBlock",
    "ToolUseBlock",
    "TurnEnd",
    "TurnStart",
    "Unavailable",
    "UserMessage",
    "UserPromptSubmit",
    "Workspace",
    "__version__",
    "all_of",
    "any_of",
    "arg",
    "create_sdk_mcp_server",
    "load_project",
    "merge",
    "not_",
    "query",
    "tool",
    "tool_name",
]

"""hookline: an agent harness whose rules live in lifecycle hooks.

A prompt asks a model to follow a rule; a hook guarantees it. The public surface is listed in
``__all__`` and checked by a test; everything else is internal.

This is also where the layers meet: the agent knows stores and the audit log only as
interfaces, and the package plugs in its own (``store="..."`` URLs and paths, ``audit=True``).
"""

from __future__ import annotations

from hookline.agent.loop import Agent
from hookline.agent.messages import Message
from hookline.agent.model import ModelClient
from hookline.agent.observers import Handle, Observer, install_audit
from hookline.agent.options import AgentOptions, ClaudeAgentOptions
from hookline.agent.result import RunResult
from hookline.agent.store import install_opener
from hookline.audit.log import agent_audit
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
    HookEvent,
    InstructionsLoaded,
    Notification,
    PermissionRequest,
    PostModelResponse,
    PostToolBatch,
    PostToolUse,
    PostToolUseFailure,
    PreModelRequest,
    PreToolUse,
    SessionEnd,
    SessionStart,
    Stop,
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
from hookline.storage import open_store
from hookline.tools.approvals import Approval, ApprovalRequest, Approver, Unavailable
from hookline.tools.base import Tool, ToolCall, ToolContext, ToolResult, Workspace
from hookline.tools.function import FunctionTool, tool

install_opener(open_store)
install_audit(agent_audit)

__version__ = "0.1.0"

__all__ = [
    "EVENTS",
    "NO_DECISION",
    "Agent",
    "AgentOptions",
    "Approval",
    "ApprovalRequest",
    "Approver",
    "ClaudeAgentOptions",
    "ConfigError",
    "Decision",
    "Dispatch",
    "FunctionTool",
    "Handle",
    "HookEngine",
    "HookEvent",
    "HookFailure",
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
    "PermissionPolicy",
    "PermissionRequest",
    "PostModelResponse",
    "PostToolBatch",
    "PostToolUse",
    "PostToolUseFailure",
    "PreModelRequest",
    "PreToolUse",
    "Project",
    "Registration",
    "RuleModel",
    "RunResult",
    "ScriptedModel",
    "SessionEnd",
    "SessionStart",
    "Stop",
    "Tool",
    "ToolBlocked",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolInputError",
    "ToolResult",
    "TurnEnd",
    "TurnStart",
    "Unavailable",
    "UserPromptSubmit",
    "Workspace",
    "__version__",
    "all_of",
    "any_of",
    "arg",
    "load_project",
    "merge",
    "not_",
    "tool",
    "tool_name",
]

"""hookline: an agent harness whose rules live in lifecycle hooks.

A prompt asks a model to follow a rule; a hook guarantees it. The public surface is ``__all__``
here and in the public packages (docs/architecture.md, "Public boundary"), checked by a test;
every other module is internal.

The public names are imported when first used (``_EXPORTS``): ``import hookline`` costs a few
milliseconds, and a command or a script pays only for the modules it touches.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

from hookline._support import moved
from hookline._support.exports import Exports

moved.install()  # the old names of modules that moved still import, with a warning

if TYPE_CHECKING:  # the table below, for type checkers (a test keeps the two equal)
    from hookline._agent.loop import Agent as Agent
    from hookline._agent.messages import Message as Message
    from hookline._agent.model import ModelClient as ModelClient
    from hookline._agent.model import StreamingModelClient as StreamingModelClient
    from hookline._agent.observers import Handle as Handle
    from hookline._agent.observers import Observer as Observer
    from hookline._agent.options import AgentOptions as AgentOptions
    from hookline._agent.options import AgentSettings as AgentSettings
    from hookline._agent.result import RunResult as RunResult
    from hookline._agent.subagent_types import AgentDefinition as AgentDefinition
    from hookline._decisions import NO_DECISION as NO_DECISION
    from hookline._decisions import Decision as Decision
    from hookline._decisions import merge as merge
    from hookline._errors import ConfigError as ConfigError
    from hookline._errors import HookFailure as HookFailure
    from hookline._errors import HooklineError as HooklineError
    from hookline._errors import HookTimeout as HookTimeout
    from hookline._errors import InvalidHookOutput as InvalidHookOutput
    from hookline._errors import ModelError as ModelError
    from hookline._errors import RecordError as RecordError
    from hookline._errors import ToolError as ToolError
    from hookline._errors import ToolInputError as ToolInputError
    from hookline._errors import WrongHookEvent as WrongHookEvent
    from hookline._events import EVENTS as EVENTS
    from hookline._events import ConfigChange as ConfigChange
    from hookline._events import CwdChanged as CwdChanged
    from hookline._events import FileChanged as FileChanged
    from hookline._events import HookEvent as HookEvent
    from hookline._events import InstructionsLoaded as InstructionsLoaded
    from hookline._events import Notification as Notification
    from hookline._events import PermissionMode as PermissionMode
    from hookline._events import PermissionRequest as PermissionRequest
    from hookline._events import PostCompact as PostCompact
    from hookline._events import PostModelResponse as PostModelResponse
    from hookline._events import PostModelSwitch as PostModelSwitch
    from hookline._events import PostToolBatch as PostToolBatch
    from hookline._events import PostToolUse as PostToolUse
    from hookline._events import PostToolUseFailure as PostToolUseFailure
    from hookline._events import PreCompact as PreCompact
    from hookline._events import PreModelRequest as PreModelRequest
    from hookline._events import PreModelSwitch as PreModelSwitch
    from hookline._events import PreToolUse as PreToolUse
    from hookline._events import SessionEnd as SessionEnd
    from hookline._events import SessionStart as SessionStart
    from hookline._events import Stop as Stop
    from hookline._events import SubagentStart as SubagentStart
    from hookline._events import SubagentStop as SubagentStop
    from hookline._events import ToolBlocked as ToolBlocked
    from hookline._events import TurnEnd as TurnEnd
    from hookline._events import TurnStart as TurnStart
    from hookline._events import UserPromptSubmit as UserPromptSubmit
    from hookline._hooks.engine import Dispatch as Dispatch
    from hookline._hooks.engine import HookEngine as HookEngine
    from hookline._hooks.engine import HookRun as HookRun
    from hookline._hooks.registry import HookRegistry as HookRegistry
    from hookline._hooks.registry import Registration as Registration
    from hookline._hooks.runners import HookRunner as HookRunner
    from hookline._hooks.sdk_matchers import HookMatcher as HookMatcher
    from hookline._matchers import Matcher as Matcher
    from hookline._matchers import all_of as all_of
    from hookline._matchers import any_of as any_of
    from hookline._matchers import arg as arg
    from hookline._matchers import not_ as not_
    from hookline._matchers import tool_name as tool_name
    from hookline._project import Project as Project
    from hookline._project import load_project as load_project
    from hookline._support.version import __version__ as __version__
    from hookline._tools.approvals import Approval as Approval
    from hookline._tools.approvals import ApprovalRequest as ApprovalRequest
    from hookline._tools.approvals import Approver as Approver
    from hookline._tools.approvals import Unavailable as Unavailable
    from hookline._tools.base import Tool as Tool
    from hookline._tools.base import ToolCall as ToolCall
    from hookline._tools.base import ToolContext as ToolContext
    from hookline._tools.base import ToolResult as ToolResult
    from hookline._tools.base import Workspace as Workspace
    from hookline._tools.function import FunctionTool as FunctionTool
    from hookline.audit import AuditError as AuditError
    from hookline.models import RuleModel as RuleModel
    from hookline.models import ScriptedModel as ScriptedModel
    from hookline.permissions import PermissionPolicy as PermissionPolicy
    from hookline.sdk import ClaudeAgentOptions as ClaudeAgentOptions
    from hookline.sdk import ClaudeSDKClient as ClaudeSDKClient
    from hookline.sdk import ClaudeSDKError as ClaudeSDKError
    from hookline.sdk import CLIConnectionError as CLIConnectionError
    from hookline.sdk import CLIJSONDecodeError as CLIJSONDecodeError
    from hookline.sdk import CLINotFoundError as CLINotFoundError
    from hookline.sdk import MessageParseError as MessageParseError
    from hookline.sdk import ProcessError as ProcessError
    from hookline.sdk import ResultError as ResultError
    from hookline.sdk import SdkMcpTool as SdkMcpTool
    from hookline.sdk import create_sdk_mcp_server as create_sdk_mcp_server
    from hookline.sdk import query as query
    from hookline.sdk import tool as tool
    from hookline.types import AssistantMessage as AssistantMessage
    from hookline.types import CanUseTool as CanUseTool
    from hookline.types import ContentBlock as ContentBlock
    from hookline.types import HookCallback as HookCallback
    from hookline.types import HookContext as HookContext
    from hookline.types import HookInput as HookInput
    from hookline.types import HookJSONOutput as HookJSONOutput
    from hookline.types import PermissionResult as PermissionResult
    from hookline.types import PermissionResultAllow as PermissionResultAllow
    from hookline.types import PermissionResultDeny as PermissionResultDeny
    from hookline.types import PermissionUpdate as PermissionUpdate
    from hookline.types import ResultMessage as ResultMessage
    from hookline.types import StreamEvent as StreamEvent
    from hookline.types import SystemMessage as SystemMessage
    from hookline.types import TextBlock as TextBlock
    from hookline.types import ThinkingBlock as ThinkingBlock
    from hookline.types import ToolPermissionContext as ToolPermissionContext
    from hookline.types import ToolResultBlock as ToolResultBlock
    from hookline.types import ToolUseBlock as ToolUseBlock
    from hookline.types import UserMessage as UserMessage

#: The public names, by where each is defined: the one list of hookline's API at the top level
#: (``__all__`` is made from it). ``import hookline`` loads none of them: a name is imported on
#: first use (``hookline.Agent``, ``from hookline import Agent``), so a command or a script
#: pays only for what it touches (``hookline --version`` never builds an agent). Names another
#: public package gives (``hookline.sdk``, ``hookline.types``, ``hookline.models``, ...) come
#: from that package, which lists where they are defined.
_EXPORTS: Final = Exports.of(
    __name__,
    {
        "hookline._support.version": ("__version__",),
        "hookline._agent.loop": ("Agent",),
        "hookline._agent.messages": ("Message",),
        "hookline._agent.model": ("ModelClient", "StreamingModelClient"),
        "hookline._agent.observers": ("Handle", "Observer"),
        "hookline._agent.options": ("AgentOptions", "AgentSettings"),
        "hookline._agent.result": ("RunResult",),
        "hookline._agent.subagent_types": ("AgentDefinition",),
        "hookline.audit": ("AuditError",),
        "hookline._decisions": ("NO_DECISION", "Decision", "merge"),
        "hookline._errors": (
            "ConfigError",
            "HookFailure",
            "HooklineError",
            "HookTimeout",
            "InvalidHookOutput",
            "ModelError",
            "RecordError",
            "ToolError",
            "ToolInputError",
            "WrongHookEvent",
        ),
        "hookline._events": (
            "EVENTS",
            "HookEvent",
            "InstructionsLoaded",
            "Notification",
            "PermissionRequest",
            "PostModelResponse",
            "PostToolBatch",
            "PostToolUse",
            "PostToolUseFailure",
            "PreModelRequest",
            "PreToolUse",
            "SessionEnd",
            "SessionStart",
            "Stop",
            "ToolBlocked",
            "TurnEnd",
            "TurnStart",
            "UserPromptSubmit",
            "SubagentStart",
            "SubagentStop",
            "PreCompact",
            "PostCompact",
            "CwdChanged",
            "FileChanged",
            "ConfigChange",
            "PreModelSwitch",
            "PostModelSwitch",
            "PermissionMode",
        ),
        "hookline._hooks.engine": ("Dispatch", "HookEngine", "HookRun"),
        "hookline._hooks.registry": ("HookRegistry", "Registration"),
        "hookline._hooks.runners": ("HookRunner",),
        "hookline._hooks.sdk_matchers": ("HookMatcher",),
        "hookline._matchers": ("Matcher", "all_of", "any_of", "arg", "not_", "tool_name"),
        "hookline.models": ("RuleModel", "ScriptedModel"),
        "hookline.permissions": ("PermissionPolicy",),
        "hookline._project": ("Project", "load_project"),
        "hookline.sdk": (
            "ClaudeAgentOptions",
            "ClaudeSDKClient",
            "SdkMcpTool",
            "create_sdk_mcp_server",
            "query",
            "tool",
            "ClaudeSDKError",
            "CLIConnectionError",
            "CLINotFoundError",
            "ProcessError",
            "ResultError",
            "CLIJSONDecodeError",
            "MessageParseError",
        ),
        "hookline._tools.approvals": ("Approval", "ApprovalRequest", "Approver", "Unavailable"),
        "hookline._tools.base": ("Tool", "ToolCall", "ToolContext", "ToolResult", "Workspace"),
        "hookline._tools.function": ("FunctionTool",),
        "hookline.types": (
            "AssistantMessage",
            "UserMessage",
            "SystemMessage",
            "ResultMessage",
            "StreamEvent",
            "TextBlock",
            "ThinkingBlock",
            "ToolUseBlock",
            "ToolResultBlock",
            "ContentBlock",
            "PermissionUpdate",
            "PermissionResult",
            "PermissionResultAllow",
            "PermissionResultDeny",
            "ToolPermissionContext",
            "CanUseTool",
            "HookCallback",
            "HookContext",
            "HookInput",
            "HookJSONOutput",
        ),
    },
)

__all__ = _EXPORTS.names


def __getattr__(name: str) -> Any:
    if name in _EXPORTS.home or _sdk_module(name) is None:
        return _EXPORTS.get(name)
    value = getattr(importlib.import_module("hookline.types"), name)
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


__dir__ = _EXPORTS.dir

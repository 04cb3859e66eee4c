"""The Claude Agent SDK's types (claude-agent-sdk 0.2.189), under its names, field for field.

A program written for ``claude_agent_sdk`` builds and reads these exactly as it did there:
each dataclass has the SDK's fields in the SDK's order with its defaults (positional and keyword
construction both work, ``dataclasses.fields`` lists the same names), each TypedDict the SDK's
keys. ``HookMatcher``, ``AgentDefinition``, ``PermissionMode`` and ``ClaudeAgentOptions`` are
hookline's own, imported here so one module holds the whole vocabulary.

What is here: content blocks and messages (``hookline.sdk._message_types``: what ``query``
yields), permission updates and results (``hookline.sdk._permission_types``: what
``can_use_tool`` takes and answers), hook inputs and outputs (``hookline.sdk._hook_types``),
all re-exported here; MCP server configs, sandbox settings, presets. What is not (session
stores, plugins, task and rate-limit messages, ...) is listed in ``hookline.types``, which says
so on import.

No ``from __future__ import annotations`` here: Python 3.11 reads ``NotRequired`` in a
TypedDict only from a real annotation, and SDK programs read ``__required_keys__``.
"""

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from hookline._agent.subagent_types import AgentDefinition
from hookline._events import PermissionMode
from hookline._hooks.sdk_matchers import HookMatcher
from hookline.sdk._hook_types import (
    AsyncHookJSONOutput,
    BackgroundTaskSummary,
    BaseHookInput,
    CwdChangedHookSpecificOutput,
    ElicitationHookSpecificOutput,
    ElicitationResultHookSpecificOutput,
    FileChangedHookSpecificOutput,
    HookCallback,
    HookContext,
    HookEffort,
    HookEvent,
    HookInput,
    HookJSONOutput,
    HookSpecificOutput,
    MessageDisplayHookSpecificOutput,
    NotificationHookInput,
    NotificationHookSpecificOutput,
    PermissionDeniedHookSpecificOutput,
    PermissionRequestHookInput,
    PermissionRequestHookSpecificOutput,
    PostModelSwitchHookSpecificOutput,
    PostToolBatchHookSpecificOutput,
    PostToolUseFailureHookInput,
    PostToolUseFailureHookSpecificOutput,
    PostToolUseHookInput,
    PostToolUseHookSpecificOutput,
    PreCompactHookInput,
    PreModelSwitchHookSpecificOutput,
    PreToolUseHookInput,
    PreToolUseHookSpecificOutput,
    SessionCronSummary,
    SessionStartHookSpecificOutput,
    StopHookInput,
    StopHookSpecificOutput,
    SubagentStartHookInput,
    SubagentStartHookSpecificOutput,
    SubagentStopHookInput,
    SubagentStopHookSpecificOutput,
    SyncHookJSONOutput,
    UserPromptExpansionHookSpecificOutput,
    UserPromptSubmitHookInput,
    UserPromptSubmitHookSpecificOutput,
    WorktreeCreateHookSpecificOutput,
)
from hookline.sdk._message_types import (
    AssistantMessage,
    AssistantMessageError,
    ContentBlock,
    DeferredToolUse,
    HookEventMessage,
    Message,
    MessageOrigin,
    MessageOriginKind,
    ModelUsage,
    ResultMessage,
    ServerToolName,
    ServerToolResultBlock,
    ServerToolUseBlock,
    StreamEvent,
    SystemMessage,
    TaskNotificationOriginSubkind,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from hookline.sdk._options import ClaudeAgentOptions
from hookline.sdk._permission_types import (
    CanUseTool,
    CanUseToolShadowedWarning,
    PermissionBehavior,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    PermissionUpdateDestination,
    ToolPermissionContext,
)

# -- presets and small vocabularies ----------------------------------------------------------------

SdkBeta = Literal["context-1m-2025-08-07"]
SettingSource = Literal["user", "project", "local"]
EffortLevel: TypeAlias = Literal["low", "medium", "high", "xhigh", "max"]


class SystemPromptPreset(TypedDict):
    """Claude Code's own system prompt, with ``append`` added to it."""

    type: Literal["preset"]
    preset: Literal["claude_code"]
    append: NotRequired[str]
    exclude_dynamic_sections: NotRequired[bool]
    snapshot: NotRequired[bool]


class SystemPromptCustom(TypedDict):
    """A system prompt of your own, in the form that can also set ``snapshot``."""

    type: Literal["custom"]
    prompt: str
    snapshot: NotRequired[bool]


class SystemPromptFile(TypedDict):
    """A system prompt read from a file."""

    type: Literal["file"]
    path: str


class ToolsPreset(TypedDict):
    """Every built-in tool of Claude Code."""

    type: Literal["preset"]
    preset: Literal["claude_code"]


class SandboxNetworkConfig(TypedDict, total=False):
    allowedDomains: list[str]
    deniedDomains: list[str]
    allowManagedDomainsOnly: bool
    allowUnixSockets: list[str]
    allowAllUnixSockets: bool
    allowLocalBinding: bool
    allowMachLookup: list[str]
    httpProxyPort: int
    socksProxyPort: int


#: Violations left unreported: a command pattern (``"*"``: any) -> substrings of the violation.
SandboxIgnoreViolations: TypeAlias = dict[str, list[str]]


class SandboxSettings(TypedDict, total=False):
    """How Bash commands are sandboxed (``ClaudeAgentOptions.sandbox``)."""

    enabled: bool
    autoAllowBashIfSandboxed: bool
    excludedCommands: list[str]
    allowUnsandboxedCommands: bool
    network: SandboxNetworkConfig
    ignoreViolations: SandboxIgnoreViolations
    enableWeakerNestedSandbox: bool


ThinkingDisplay = Literal["summarized", "omitted"]


class ThinkingConfigAdaptive(TypedDict):
    type: Literal["adaptive"]
    display: NotRequired[ThinkingDisplay]


class ThinkingConfigEnabled(TypedDict):
    type: Literal["enabled"]
    budget_tokens: int
    display: NotRequired[ThinkingDisplay]


class ThinkingConfigDisabled(TypedDict):
    type: Literal["disabled"]


ThinkingConfig = ThinkingConfigAdaptive | ThinkingConfigEnabled | ThinkingConfigDisabled

# -- MCP servers -----------------------------------------------------------------------------------


class McpStdioServerConfig(TypedDict):
    type: NotRequired[Literal["stdio"]]
    command: str
    args: NotRequired[list[str]]
    env: NotRequired[dict[str, str]]


class McpSSEServerConfig(TypedDict):
    type: Literal["sse"]
    url: str
    headers: NotRequired[dict[str, str]]


class McpHttpServerConfig(TypedDict):
    type: Literal["http"]
    url: str
    headers: NotRequired[dict[str, str]]


class McpSdkServerConfig(TypedDict):
    """An in-process server (``create_sdk_mcp_server``); ``instance`` is the server object."""

    type: Literal["sdk"]
    name: str
    instance: Any


McpServerConfig = (
    McpStdioServerConfig | McpSSEServerConfig | McpHttpServerConfig | McpSdkServerConfig
)

__all__ = [
    "AgentDefinition",
    "AssistantMessage",
    "AssistantMessageError",
    "AsyncHookJSONOutput",
    "BackgroundTaskSummary",
    "BaseHookInput",
    "CanUseTool",
    "CanUseToolShadowedWarning",
    "ClaudeAgentOptions",
    "ContentBlock",
    "CwdChangedHookSpecificOutput",
    "DeferredToolUse",
    "EffortLevel",
    "ElicitationHookSpecificOutput",
    "ElicitationResultHookSpecificOutput",
    "FileChangedHookSpecificOutput",
    "HookCallback",
    "HookContext",
    "HookEffort",
    "HookEvent",
    "HookEventMessage",
    "HookInput",
    "HookJSONOutput",
    "HookMatcher",
    "HookSpecificOutput",
    "McpHttpServerConfig",
    "McpSSEServerConfig",
    "McpSdkServerConfig",
    "McpServerConfig",
    "McpStdioServerConfig",
    "Message",
    "MessageDisplayHookSpecificOutput",
    "MessageOrigin",
    "MessageOriginKind",
    "ModelUsage",
    "NotificationHookInput",
    "NotificationHookSpecificOutput",
    "PermissionBehavior",
    "PermissionDeniedHookSpecificOutput",
    "PermissionMode",
    "PermissionRequestHookInput",
    "PermissionRequestHookSpecificOutput",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRuleValue",
    "PermissionUpdate",
    "PermissionUpdateDestination",
    "PostModelSwitchHookSpecificOutput",
    "PostToolBatchHookSpecificOutput",
    "PostToolUseFailureHookInput",
    "PostToolUseFailureHookSpecificOutput",
    "PostToolUseHookInput",
    "PostToolUseHookSpecificOutput",
    "PreCompactHookInput",
    "PreModelSwitchHookSpecificOutput",
    "PreToolUseHookInput",
    "PreToolUseHookSpecificOutput",
    "ResultMessage",
    "SandboxIgnoreViolations",
    "SandboxNetworkConfig",
    "SandboxSettings",
    "SdkBeta",
    "ServerToolName",
    "ServerToolResultBlock",
    "ServerToolUseBlock",
    "SessionCronSummary",
    "SessionStartHookSpecificOutput",
    "SettingSource",
    "StopHookInput",
    "StopHookSpecificOutput",
    "StreamEvent",
    "SubagentStartHookInput",
    "SubagentStartHookSpecificOutput",
    "SubagentStopHookInput",
    "SubagentStopHookSpecificOutput",
    "SyncHookJSONOutput",
    "SystemMessage",
    "SystemPromptCustom",
    "SystemPromptFile",
    "SystemPromptPreset",
    "TaskNotificationOriginSubkind",
    "TextBlock",
    "ThinkingBlock",
    "ThinkingConfig",
    "ThinkingConfigAdaptive",
    "ThinkingConfigDisabled",
    "ThinkingConfigEnabled",
    "ThinkingDisplay",
    "ToolPermissionContext",
    "ToolResultBlock",
    "ToolUseBlock",
    "ToolsPreset",
    "UserMessage",
    "UserPromptExpansionHookSpecificOutput",
    "UserPromptSubmitHookInput",
    "UserPromptSubmitHookSpecificOutput",
    "WorktreeCreateHookSpecificOutput",
]

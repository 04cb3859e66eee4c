"""The Claude Agent SDK's types (claude-agent-sdk 0.2.189), under its names, field for field.

A program written for ``claude_agent_sdk`` builds and reads these exactly as it did there:
each dataclass has the SDK's fields in the SDK's order with its defaults (positional and keyword
construction both work, ``dataclasses.fields`` lists the same names), each TypedDict the SDK's
keys. ``HookMatcher``, ``AgentDefinition``, ``PermissionMode`` and ``ClaudeAgentOptions`` are
hookline's own, imported here so one module holds the whole vocabulary.

What is here: content blocks and messages (what ``query`` yields; ``hookline.sdk.parse``
makes them from stream lines), permission updates and results (what ``can_use_tool`` takes and
answers), hook inputs and outputs (``hookline.sdk.hook_types``, all re-exported here), MCP
server configs, sandbox settings, presets. What is not (session stores, plugins, task and
rate-limit messages, ...) is listed in ``hookline.types``, which says so on import.

No ``from __future__ import annotations`` here: Python 3.11 reads ``NotRequired`` in a
TypedDict only from a real annotation, and SDK programs read ``__required_keys__``.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, Required, Self, TypeAlias, TypedDict, TypeVar

from hookline.agent.subagent_types import AgentDefinition
from hookline.events import PermissionMode
from hookline.hooks.sdk import HookMatcher
from hookline.sdk.hook_types import (
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
from hookline.sdk.options import ClaudeAgentOptions

_T = TypeVar("_T")

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

# -- content blocks --------------------------------------------------------------------------------


@dataclass
class TextBlock:
    text: str


@dataclass
class ThinkingBlock:
    thinking: str
    signature: str


@dataclass
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]


@dataclass
class ToolResultBlock:
    tool_use_id: str
    content: str | list[dict[str, Any]] | None = None
    is_error: bool | None = None


ServerToolName = Literal[
    "advisor",
    "web_search",
    "web_fetch",
    "code_execution",
    "bash_code_execution",
    "text_editor_code_execution",
    "tool_search_tool_regex",
    "tool_search_tool_bm25",
]


@dataclass
class ServerToolUseBlock:
    """A tool the model's API runs itself (web search, ...): nobody answers it."""

    id: str
    name: ServerToolName
    input: dict[str, Any]


@dataclass
class ServerToolResultBlock:
    """What a server-side tool gave back, as the API sent it."""

    tool_use_id: str
    content: dict[str, Any]


ContentBlock = (
    TextBlock
    | ThinkingBlock
    | ToolUseBlock
    | ToolResultBlock
    | ServerToolUseBlock
    | ServerToolResultBlock
)

# -- messages --------------------------------------------------------------------------------------

AssistantMessageError = Literal[
    "authentication_failed",
    "billing_error",
    "rate_limit",
    "invalid_request",
    "server_error",
    "unknown",
]
MessageOriginKind = Literal[
    "human",
    "channel",
    "peer",
    "task-notification",
    "coordinator",
    "unclassified",
    "observer",
    "auto-continuation",
    "observer-activity",
]
TaskNotificationOriginSubkind = Literal["scheduled-trigger", "peer-send-message"]
#: Where a user message came from; only ``kind`` is always there (``from`` is a keyword, hence
#: the call form).
MessageOrigin = TypedDict(
    "MessageOrigin",
    {
        "kind": Required[MessageOriginKind],
        "server": str,
        "from": str,
        "name": str,
        "fromSession": str,
        "senderTaskId": str,
        "body": str,
        "verifiedPeerPid": int,
        "subkind": TaskNotificationOriginSubkind,
    },
    total=False,
)


@dataclass
class UserMessage:
    content: str | list[ContentBlock]
    uuid: str | None = None
    parent_tool_use_id: str | None = None
    tool_use_result: dict[str, Any] | None = None
    origin: MessageOrigin | None = None


@dataclass
class AssistantMessage:
    content: list[ContentBlock]
    model: str
    parent_tool_use_id: str | None = None
    error: AssistantMessageError | None = None
    usage: dict[str, Any] | None = None
    message_id: str | None = None
    stop_reason: str | None = None
    session_id: str | None = None
    uuid: str | None = None
    user_message_uuid: str | None = None
    user_message_uuids: list[str] | None = None


@dataclass
class SystemMessage:
    """A ``system`` line: ``subtype`` (``"init"``, ...) and the whole line as ``data``."""

    subtype: str
    data: dict[str, Any]


@dataclass
class HookEventMessage(SystemMessage):
    """A hook's ``hook_started`` or ``hook_response`` line (with ``include_hook_events``): the
    event it answered, and the whole line as ``data``."""

    hook_event_name: str = ""
    session_id: str | None = None
    uuid: str | None = None


@dataclass
class DeferredToolUse:
    """The tool call a PreToolUse hook deferred, which ended the run."""

    id: str
    name: str
    input: dict[str, Any]


class ModelUsage(TypedDict):
    inputTokens: int
    outputTokens: int
    cacheReadInputTokens: int
    cacheCreationInputTokens: int
    webSearchRequests: int
    costUSD: float
    contextWindow: int
    maxOutputTokens: int
    canonicalModel: NotRequired[str]
    provider: NotRequired[str]


@dataclass
class ResultMessage:
    """The last message of a run: how it ended, how long it took, what it used."""

    subtype: str
    duration_ms: int
    duration_api_ms: int
    is_error: bool
    num_turns: int
    session_id: str
    stop_reason: str | None = None
    total_cost_usd: float | None = None
    usage: dict[str, Any] | None = None
    result: str | None = None
    structured_output: Any = None
    model_usage: dict[str, ModelUsage] | None = None
    permission_denials: list[Any] | None = None
    deferred_tool_use: DeferredToolUse | None = None
    errors: list[str] | None = None
    api_error_status: int | None = None
    uuid: str | None = None
    terminal_reason: str | None = None
    origin: MessageOrigin | None = None
    user_message_uuid: str | None = None
    user_message_uuids: list[str] | None = None


@dataclass
class StreamEvent:
    """One raw event of the model's streamed answer (``include_partial_messages``)."""

    uuid: str
    session_id: str
    event: dict[str, Any]
    parent_tool_use_id: str | None = None
    user_message_uuid: str | None = None
    user_message_uuids: list[str] | None = None


#: What ``query`` and ``ClaudeSDKClient`` yield (``hookline.Message`` is another thing: one
#: message of hookline's own conversation).
Message = UserMessage | AssistantMessage | SystemMessage | ResultMessage | StreamEvent

# -- permissions -----------------------------------------------------------------------------------

PermissionUpdateDestination = Literal["userSettings", "projectSettings", "localSettings", "session"]
PermissionBehavior = Literal["allow", "deny", "ask"]
_RULE_UPDATES = ("addRules", "replaceRules", "removeRules")
_DIRECTORY_UPDATES = ("addDirectories", "removeDirectories")


@dataclass
class PermissionRuleValue:
    """A rule: a tool, and what it covers of it (``"npm test"``); None covers every use."""

    tool_name: str
    rule_content: str | None = None


@dataclass
class PermissionUpdate:
    """A change to the permission rules, the mode or the allowed directories."""

    type: Literal[
        "addRules",
        "replaceRules",
        "removeRules",
        "setMode",
        "addDirectories",
        "removeDirectories",
    ]
    rules: list[PermissionRuleValue] | None = None
    behavior: PermissionBehavior | None = None
    mode: PermissionMode | None = None
    directories: list[str] | None = None
    destination: PermissionUpdateDestination | None = None

    def to_dict(self) -> dict[str, Any]:
        """The update in Claude Code's control-protocol shape.

        No destination means ``"session"``; a rule without content has no ``ruleContent`` key
        (Claude Code refuses a null one). A ValueError when a field this type needs is None,
        or the type is none of the six: Claude Code would drop the whole answer instead.
        """
        wire: dict[str, Any] = {"type": self.type, "destination": self.destination or "session"}
        if self.type in _RULE_UPDATES:
            rules = self._needed("rules", self.rules, "a list of PermissionRuleValue")
            wire["rules"] = [_wire_rule(rule) for rule in rules]
            wire["behavior"] = self._needed("behavior", self.behavior, "'allow', 'deny' or 'ask'")
        elif self.type == "setMode":
            wire["mode"] = self._needed("mode", self.mode, "a permission mode ('acceptEdits', ...)")
        elif self.type in _DIRECTORY_UPDATES:
            wire["directories"] = self._needed("directories", self.directories, "a list of paths")
        else:
            kinds = ", ".join((*_RULE_UPDATES, "setMode", *_DIRECTORY_UPDATES))
            raise ValueError(
                f"PermissionUpdate type {self.type!r} cannot be sent: it is none of {kinds}"
            )
        return wire

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Self:
        """The update ``to_dict`` wrote (or Claude Code sent); a KeyError without ``type``."""
        rules = data.get("rules")
        return cls(
            type=data["type"],
            rules=None if rules is None else [_rule(wire) for wire in rules],
            behavior=data.get("behavior"),
            mode=data.get("mode"),
            directories=data.get("directories"),
            destination=data.get("destination"),
        )

    def _needed(self, name: str, value: _T | None, what: str) -> _T:
        if value is None:
            raise ValueError(f"PermissionUpdate(type={self.type!r}) needs {name}: set it to {what}")
        return value


def _wire_rule(rule: PermissionRuleValue) -> dict[str, Any]:
    wire: dict[str, Any] = {"toolName": rule.tool_name}
    if rule.rule_content is not None:
        wire["ruleContent"] = rule.rule_content
    return wire


def _rule(wire: dict[str, Any]) -> PermissionRuleValue:
    return PermissionRuleValue(tool_name=wire["toolName"], rule_content=wire.get("ruleContent"))


@dataclass
class ToolPermissionContext:
    """What ``can_use_tool`` learns besides the tool and its input."""

    signal: Any | None = None
    suggestions: list[PermissionUpdate] = field(default_factory=list)
    tool_use_id: str | None = None
    agent_id: str | None = None
    blocked_path: str | None = None
    decision_reason: str | None = None
    title: str | None = None
    display_name: str | None = None
    description: str | None = None


@dataclass
class PermissionResultAllow:
    behavior: Literal["allow"] = "allow"
    updated_input: dict[str, Any] | None = None
    updated_permissions: list[PermissionUpdate] | None = None


@dataclass
class PermissionResultDeny:
    behavior: Literal["deny"] = "deny"
    message: str = ""
    interrupt: bool = False


PermissionResult = PermissionResultAllow | PermissionResultDeny
CanUseTool = Callable[[str, dict[str, Any], ToolPermissionContext], Awaitable[PermissionResult]]


class CanUseToolShadowedWarning(UserWarning):
    """``can_use_tool`` is set, but other options allow some calls before it is asked."""


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

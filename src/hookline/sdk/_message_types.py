"""The Agent SDK's content blocks and messages (claude-agent-sdk 0.2.189), field for field.

What ``query`` and ``ClaudeSDKClient`` yield; ``hookline.sdk._parse`` makes them from stream
lines. Import them from ``hookline.types`` (``hookline.sdk._types`` re-exports every name).

No ``from __future__ import annotations`` here: SDK programs read the real annotations.
"""

from dataclasses import dataclass
from typing import Any, Literal, NotRequired, Required, TypedDict

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

"""The Claude Agent SDK types shim: ``claude_agent_sdk.types`` on hookline, so a program written
for the SDK imports its types from here (``from hookline.types import AssistantMessage``).

Every name hookline provides is defined in ``hookline.sdk._types`` and listed in its
``__all__``. A name of the SDK that hookline does not provide yet (session stores, plugins,
task and rate-limit messages, ...) is an ImportError that says so and where the coverage is
written down, rather than Python's bare "cannot import name"; any other unknown name is the
usual AttributeError.
"""

from __future__ import annotations

from typing import Final

import hookline.sdk._types as _sdk_types
from hookline.sdk._types import *  # noqa: F403  (exactly hookline.sdk._types.__all__)

__all__ = list(_sdk_types.__all__)

#: Where the SDK's coverage is written down.
DOCS: Final = "docs/agent-sdk.md"

#: Names of claude-agent-sdk 0.2.189 (its ``types`` module and its package's ``__all__``) that
#: hookline does not provide yet. ``query``, ``ClaudeSDKClient``, ``tool``, the errors ... are
#: provided by the ``hookline`` package itself, and so are not listed.
NOT_PROVIDED: Final = frozenset(
    {
        # session stores, listing and editing sessions
        "SessionStore",
        "InMemorySessionStore",
        "SessionKey",
        "SessionListSubkeysKey",
        "SessionStoreEntry",
        "SessionStoreFlushMode",
        "SessionStoreListEntry",
        "SessionSummaryEntry",
        "SDKSessionInfo",
        "SessionMessage",
        "ForkSessionResult",
        "MirrorErrorMessage",
        "list_sessions",
        "get_session_info",
        "get_session_messages",
        "list_subagents",
        "get_subagent_messages",
        "rename_session",
        "tag_session",
        "delete_session",
        "fork_session",
        "list_sessions_from_store",
        "get_session_info_from_store",
        "get_session_messages_from_store",
        "list_subagents_from_store",
        "get_subagent_messages_from_store",
        "rename_session_via_store",
        "tag_session_via_store",
        "delete_session_via_store",
        "fork_session_via_store",
        "fold_session_summary",
        "project_key_for_directory",
        "import_session_to_store",
        # plugins, task budgets, the CLI transport, the tool-annotations class (a tool's
        # annotations are kept as given: a dict or mcp.types.ToolAnnotations)
        "SdkPluginConfig",
        "TaskBudget",
        "Transport",
        "ToolAnnotations",
        # task, rate-limit, reset and hook-event messages
        "TaskStartedMessage",
        "TaskProgressMessage",
        "TaskUpdatedMessage",
        "TaskNotificationMessage",
        "TaskNotificationStatus",
        "TaskUpdatedStatus",
        "TaskUsage",
        "TERMINAL_TASK_STATUSES",
        "RateLimitEvent",
        "RateLimitInfo",
        "RateLimitStatus",
        "RateLimitType",
        "ConversationResetMessage",
        # the init message's shape, MCP server status and context usage
        "SystemInitData",
        "SystemInitMcpServer",
        "SystemInitPlugin",
        "SystemInitPluginError",
        "FastModeState",
        "FastModeDisabledReason",
        "McpServerStatus",
        "McpServerStatusConfig",
        "McpServerConnectionStatus",
        "McpServerInfo",
        "McpStatusResponse",
        "McpToolAnnotations",
        "McpToolInfo",
        "McpSdkServerConfigStatus",
        "McpClaudeAIProxyServerConfig",
        "ContextUsageCategory",
        "ContextUsageResponse",
        # the control protocol between the SDK and its Claude Code process
        "SDKControlRequest",
        "SDKControlResponse",
        "SDKControlInterruptRequest",
        "SDKControlPermissionRequest",
        "SDKControlInitializeRequest",
        "SDKControlSetPermissionModeRequest",
        "SDKHookCallbackRequest",
        "SDKControlMcpMessageRequest",
        "SDKControlRewindFilesRequest",
        "SDKControlMcpReconnectRequest",
        "SDKControlMcpToggleRequest",
        "SDKControlStopTaskRequest",
        "ControlResponse",
        "ControlErrorResponse",
    }
)


def __getattr__(name: str) -> object:
    if name in NOT_PROVIDED:
        raise ImportError(
            f"hookline does not provide claude_agent_sdk's {name} yet: see {DOCS}",
            name=__name__,
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

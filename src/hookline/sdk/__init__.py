"""The Claude Agent SDK's programming surface on hookline: a program written for
``claude_agent_sdk`` runs here when only its imports change (``claude_agent_sdk`` becomes
``hookline``, ``claude_agent_sdk.types`` becomes ``hookline.types``). The ``hookline`` package
gives these names too; each is imported when first used, so ``import hookline`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hookline._support.exports import Exports

if TYPE_CHECKING:  # the table below, for type checkers (a test keeps the two equal)
    from hookline.sdk.client import ClaudeSDKClient as ClaudeSDKClient
    from hookline.sdk.client import query as query
    from hookline.sdk.errors import ClaudeSDKError as ClaudeSDKError
    from hookline.sdk.errors import CLIConnectionError as CLIConnectionError
    from hookline.sdk.errors import CLIJSONDecodeError as CLIJSONDecodeError
    from hookline.sdk.errors import CLINotFoundError as CLINotFoundError
    from hookline.sdk.errors import MessageParseError as MessageParseError
    from hookline.sdk.errors import ProcessError as ProcessError
    from hookline.sdk.errors import ResultError as ResultError
    from hookline.sdk.options import ClaudeAgentOptions as ClaudeAgentOptions
    from hookline.sdk.tools import SdkMcpTool as SdkMcpTool
    from hookline.sdk.tools import create_sdk_mcp_server as create_sdk_mcp_server
    from hookline.sdk.tools import tool as tool

#: The public names, by where each is defined (``__all__`` is made from it).
_EXPORTS: Final = Exports.of(
    __name__,
    {
        "hookline.sdk.client": ("ClaudeSDKClient", "query"),
        "hookline.sdk.errors": (
            "ClaudeSDKError",
            "CLIConnectionError",
            "CLIJSONDecodeError",
            "CLINotFoundError",
            "MessageParseError",
            "ProcessError",
            "ResultError",
        ),
        "hookline.sdk.options": ("ClaudeAgentOptions",),
        "hookline.sdk.tools": ("SdkMcpTool", "create_sdk_mcp_server", "tool"),
    },
)

__all__ = _EXPORTS.names
__getattr__ = _EXPORTS.get
__dir__ = _EXPORTS.dir

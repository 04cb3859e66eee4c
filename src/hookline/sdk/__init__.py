"""The Claude Agent SDK's programming surface on hookline: a program written for
``claude_agent_sdk`` runs here when only its imports change (``claude_agent_sdk`` becomes
``hookline``, ``claude_agent_sdk.types`` becomes ``hookline.types``). The ``hookline`` package
gives these names too; each is imported when first used, so ``import hookline`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from hookline._support.exports import Exports

if TYPE_CHECKING:  # the table below, for type checkers (a test keeps the two equal)
    from hookline.sdk._client import ClaudeSDKClient as ClaudeSDKClient
    from hookline.sdk._client import query as query
    from hookline.sdk._errors import ClaudeSDKError as ClaudeSDKError
    from hookline.sdk._errors import CLIConnectionError as CLIConnectionError
    from hookline.sdk._errors import CLIJSONDecodeError as CLIJSONDecodeError
    from hookline.sdk._errors import CLINotFoundError as CLINotFoundError
    from hookline.sdk._errors import MessageParseError as MessageParseError
    from hookline.sdk._errors import ProcessError as ProcessError
    from hookline.sdk._errors import ResultError as ResultError
    from hookline.sdk._options import ClaudeAgentOptions as ClaudeAgentOptions
    from hookline.sdk._tools import SdkMcpTool as SdkMcpTool
    from hookline.sdk._tools import create_sdk_mcp_server as create_sdk_mcp_server
    from hookline.sdk._tools import tool as tool

#: The public names, by where each is defined (``__all__`` is made from it).
_EXPORTS: Final = Exports.of(
    __name__,
    {
        "hookline.sdk._client": ("ClaudeSDKClient", "query"),
        "hookline.sdk._errors": (
            "ClaudeSDKError",
            "CLIConnectionError",
            "CLIJSONDecodeError",
            "CLINotFoundError",
            "MessageParseError",
            "ProcessError",
            "ResultError",
        ),
        "hookline.sdk._options": ("ClaudeAgentOptions",),
        "hookline.sdk._tools": ("SdkMcpTool", "create_sdk_mcp_server", "tool"),
    },
)

__all__ = _EXPORTS.names
__getattr__ = _EXPORTS.get
__dir__ = _EXPORTS.dir

"""The Claude Agent SDK's exceptions, with its constructors and messages, inside hookline's tree.

An SDK program's ``except ClaudeSDKError`` (or ``ProcessError``, ...) keeps working, and a
hookline caller's ``except HooklineError`` catches these too::

    HooklineError                 (hookline._errors)
    └── ClaudeSDKError
        ├── CLIConnectionError    the agent could not be reached or set up
        │   └── CLINotFoundError
        ├── ProcessError          a run failed: ``exit_code`` and ``stderr`` when known
        │   └── ResultError       ... and said why in its result (``subtype``, ``errors``, ...)
        ├── CLIJSONDecodeError    a stream line was not JSON
        └── MessageParseError     a stream line was JSON but not a message of its type
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from hookline._errors import HooklineError

T = TypeVar("T")


class ClaudeSDKError(HooklineError):
    """Base class of the SDK's exceptions; ``str(error)`` is the message it was given."""


class CLIConnectionError(ClaudeSDKError):
    """The agent could not be reached or set up."""


class CLINotFoundError(CLIConnectionError):
    """The program the SDK would start was not found; ``cli_path`` is appended when given."""

    def __init__(self, message: str = "Claude Code not found", cli_path: str | None = None):
        super().__init__(f"{message}: {cli_path}" if cli_path else message)


class ProcessError(ClaudeSDKError):
    """A run failed. The message carries the exit code and the error output when known."""

    def __init__(self, message: str, exit_code: int | None = None, stderr: str | None = None):
        self.exit_code = exit_code
        self.stderr = stderr
        if exit_code is not None:
            message += f" (exit code: {exit_code})"
        if stderr:
            message += f"\nError output: {stderr}"
        super().__init__(message)


class ResultError(ProcessError):
    """A run ended with an error result; its fields are read from that result (``data``).

    ``data`` may be left out so ``type(error)(*error.args)`` (copy, pickle) still works.
    """

    def __init__(
        self,
        message: str,
        data: dict[str, Any] | None = None,
        exit_code: int | None = None,
    ):
        self.data: dict[str, Any] = data if isinstance(data, dict) else {}
        self.subtype: str | None = _typed(self.data, "subtype", str)
        self.errors: list[str] = _error_lines(self.data.get("errors"))
        self.result: str | None = _typed(self.data, "result", str)
        self.api_error_status: int | None = _typed(self.data, "api_error_status", int)
        self.terminal_reason: str | None = _typed(self.data, "terminal_reason", str)
        self.session_id: str | None = _typed(self.data, "session_id", str)
        super().__init__(message, exit_code=exit_code)


class CLIJSONDecodeError(ClaudeSDKError):
    """A line of the message stream was not JSON; the message quotes its first 100 characters."""

    def __init__(self, line: str, original_error: Exception):
        self.line = line
        self.original_error = original_error
        super().__init__(f"Failed to decode JSON: {line[:100]}...")


class MessageParseError(ClaudeSDKError):
    """A stream line is not a message of its type (``hookline.sdk._parse``); ``data`` is it."""

    def __init__(self, message: str, data: dict[str, Any] | None = None):
        self.data = data
        super().__init__(message)


def _typed(data: Mapping[str, Any], key: str, kind: type[T]) -> T | None:
    value = data.get(key)
    return value if isinstance(value, kind) else None


def _error_lines(raw: Any) -> list[str]:
    """A result's ``errors`` as non-blank strings (one bare string counts as a list of one)."""
    items = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    return [item.strip() for item in items if isinstance(item, str) and item.strip()]

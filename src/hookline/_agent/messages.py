"""Conversation messages: content blocks in the Anthropic Messages shape, frozen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from hookline._tools.base import ToolCall


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "tool_result",
            "tool_use_id": self.tool_use_id,
            "content": self.content,
            "is_error": self.is_error,
        }


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens one model call used (or several, summed with ``+``), as providers report them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_creation_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
        }


#: A tool call is its own tool_use block.
Block = TextBlock | ToolCall | ToolResultBlock


@dataclass(frozen=True, slots=True)
class Message:
    """One message of the conversation."""

    role: Literal["user", "assistant"]
    content: tuple[Block, ...]
    #: What the model call that wrote this (assistant) message used; None when not reported.
    usage: Usage | None = None

    @classmethod
    def user(cls, *texts: str) -> Message:
        return cls("user", tuple(TextBlock(t) for t in texts))

    @classmethod
    def assistant(cls, text: str = "", calls: tuple[ToolCall, ...] = ()) -> Message:
        return cls("assistant", (TextBlock(text), *calls) if text else calls)

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if type(b) is ToolCall]

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": [b.to_dict() for b in self.content]}

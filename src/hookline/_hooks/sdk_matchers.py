"""Claude Agent SDK hook configuration, taken unchanged: ``{"PreToolUse": [HookMatcher(...)]}``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass
class HookMatcher:
    """A matcher group as in ``claude_agent_sdk.HookMatcher``: callbacks that share a matcher."""

    matcher: str | None = None
    hooks: list[Callable[..., Any]] = field(default_factory=list)
    timeout: float | None = None
    on_failure: Literal["continue", "block"] | None = None

"""Agent options, accepted under the Claude Agent SDK's name too (``ClaudeAgentOptions``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hookline.events import PermissionMode
from hookline.hooks.sdk import HookMatcher

#: Claude Code ends a turn anyway after this many Stop-hook blocks in a row.
STOP_HOOK_BLOCK_CAP = 8


@dataclass
class AgentOptions:
    """How an agent runs. Field names follow ``claude_agent_sdk.ClaudeAgentOptions``."""

    hooks: Mapping[str, Sequence[HookMatcher]] = field(default_factory=dict)
    cwd: str | Path | None = None
    max_turns: int = 50
    system_prompt: str | None = None
    permission_mode: PermissionMode = "default"
    #: Folders file tools may touch; the cwd when empty.
    roots: Sequence[str | Path] = ()
    #: The state folder (transcripts go in its ``transcripts/``); ``<cwd>/.hookline/state``.
    state_dir: str | Path | None = None
    stop_hook_block_cap: int = STOP_HOOK_BLOCK_CAP
    #: Who the session works for; every event carries them, so hooks can check and record them.
    user: str | None = None
    tenant: str | None = None


ClaudeAgentOptions = AgentOptions

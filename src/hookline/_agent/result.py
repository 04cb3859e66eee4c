"""What one run of the agent returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from hookline._agent.messages import Usage
from hookline._hooks.engine import HookRun
from hookline._tools.base import ToolResult

StopReason = Literal[
    "end_turn",  # the model answered and no Stop hook kept it going
    "max_turns",  # the model-call budget ran out
    "prompt_blocked",  # a UserPromptSubmit hook rejected the prompt
    "hook_stopped",  # a hook answered continue=false
    "tool_deferred",  # a PreToolUse hook deferred a call: resume later
    "stop_hook_cap",  # Stop hooks blocked too many times in a row
    "model_error",  # a model call failed for good (``ModelError``): see stop_detail
    "compaction_failed",  # an automatic compaction's summary failed: see stop_detail
]


@dataclass
class RunResult:
    """The outcome of ``Agent.run``: why it stopped, what it said, what ran and what decided."""

    session_id: str
    stop_reason: StopReason
    final_text: str
    transcript_path: str
    tool_calls: list[ToolResult] = field(default_factory=list)
    hook_runs: list[HookRun] = field(default_factory=list)
    model_calls: int = 0
    stop_detail: str | None = None
    #: Tokens summed over the run's model calls that reported any; None when none did.
    usage: Usage | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "stop_reason": self.stop_reason,
            "stop_detail": self.stop_detail,
            "final_text": self.final_text,
            "transcript_path": self.transcript_path,
            "model_calls": self.model_calls,
            "usage": None if self.usage is None else self.usage.to_dict(),
            "tool_calls": [r.to_dict() for r in self.tool_calls],
            "hook_runs": [r.to_dict() for r in self.hook_runs],
        }

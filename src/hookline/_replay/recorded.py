"""One recorded hook event, as every session reader gives it (``history``, ``hosts``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

#: What a recorded call's history says happened to it.
Outcome = Literal["allowed", "denied", "deferred", "asked", "error", "unknown"]


@dataclass(frozen=True, slots=True)
class Recorded:
    """One recorded hook event: where it was read, and what it said."""

    source: str  # the file, and the line: "path:12"
    session_id: str
    cwd: str
    event: str  # PreToolUse or UserPromptSubmit
    tool_name: str | None = None
    tool_input: Mapping[str, Any] | None = None
    tool_use_id: str | None = None
    prompt: str | None = None
    outcome: Outcome = "unknown"
    #: Read from the audit, whose inputs are redacted: a decision on it may differ from one on
    #: the raw input.
    redacted: bool = False

    @classmethod
    def prompted(cls, source: str, session_id: str, cwd: str, text: str) -> Recorded:
        """A prompt on record: it was submitted."""
        return cls(source, session_id, cwd, "UserPromptSubmit", prompt=text, outcome="allowed")

    def payload(self, transcript: str) -> dict[str, Any]:
        """The event as a Claude Code hook receives it, with no permission mode: the policy
        judges in its own (its settings' ``defaultMode``)."""
        payload: dict[str, Any] = {
            "session_id": self.session_id,
            "transcript_path": transcript,
            "cwd": self.cwd,
            "hook_event_name": self.event,
        }
        if self.event == "UserPromptSubmit":
            payload["prompt"] = self.prompt or ""
        else:
            payload["tool_name"] = self.tool_name
            payload["tool_input"] = dict(self.tool_input or {})
            payload["tool_use_id"] = self.tool_use_id
        return payload

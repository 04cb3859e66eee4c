"""A tool call's course: before it runs, its permission, its result or failure, its refusal,
and the batch of one model turn's calls."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from hookline._decisions import Refusal
from hookline._events.base import FrozenInput, FrozenOutput, HookEvent
from hookline._events.facts import EventFacts


class ToolEvent(HookEvent):
    """Fields of every event about one tool call."""

    name: ClassVar[str] = ""  # a family of events, not one

    match_field: ClassVar[str | None] = "tool_name"
    tool_name: str
    tool_input: FrozenInput


class PreToolUse(ToolEvent):
    """A tool call is about to run. Gates may deny, ask or defer; transformers may rewrite."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="default",
        judged="end",
        fails_closed=True,
        refuses="call",
        answers=("allow", "deny", "ask", "defer", "rewrite", "context", "stop"),
        exit_2="blocks",
    )
    rewrites_input: ClassVar[bool] = True
    tool_use_id: str


class PermissionRequest(ToolEvent):
    """A call needs a permission answer. Hooks may allow or deny it."""

    #: Only the JSON ``decision`` answers; exit 2 changes nothing (as in Claude Code).
    facts: ClassVar[EventFacts] = EventFacts(
        served="default",
        judged="none",
        refuses="call",
        answers=("allow", "deny", "rewrite", "stop"),
        exit_2="ignored",
    )
    rewrites_input: ClassVar[bool] = True
    permission_suggestions: list[dict[str, Any]] = Field(default_factory=list)


class PostToolUse(ToolEvent):
    """A tool call succeeded. Hooks may replace the output the model sees or add context."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="default",
        judged="end",
        refuses="output",
        answers=("block (feedback)", "replace output", "context", "stop"),
        exit_2="blocks",
    )
    rewrites_output: ClassVar[bool] = True
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"duration_ms"}
    tool_response: FrozenOutput = None
    tool_use_id: str
    duration_ms: int | None = None


class PostToolUseFailure(ToolEvent):
    """A started tool call failed (raised, timed out, exited non-zero)."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="default", judged="deny", answers=("context", "stop"), exit_2="blocks"
    )
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"duration_ms"}
    tool_use_id: str
    error: str
    is_interrupt: bool = False
    duration_ms: int | None = None


class ToolBlocked(ToolEvent):
    """hookline's own: a call was refused before it ran. Its body never executed."""

    tool_use_id: str
    decision: Refusal
    reason: str


class PostToolBatch(HookEvent):
    """All calls of one model turn have resolved, before the next model call. A deny (or
    continue=false) ends the run there; context goes to the model with the results."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="optional",
        judged="end",
        answers=("block (ends the run)", "context", "stop"),
        exit_2="blocks",
    )
    #: One per call: tool_name, tool_input, tool_use_id, and tool_response as the model reads it.
    tool_calls: list[dict[str, Any]]

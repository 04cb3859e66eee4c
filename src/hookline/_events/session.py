"""A session's course: it starts, takes prompts, works in turns, stops (a subagent too),
ends, and calls for a person's attention."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from hookline._events.base import HookEvent
from hookline._events.facts import EventFacts


class SessionStart(HookEvent):
    """A session starts or resumes."""

    facts: ClassVar[EventFacts] = EventFacts(
        answers=("context",), plain_stdout="context", env_file=True
    )
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "source"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"model"}
    source: Literal["startup", "resume", "clear", "compact", "fork"] = "startup"
    model: str | None = None


#: Why a session ends, in Claude Code's words (``other``: the run's end, as ``claude -p``'s).
SessionEndReason = Literal["clear", "resume", "logout", "prompt_input_exit", "other"]


class SessionEnd(HookEvent):
    """A session ends."""

    #: Claude Code's SessionEnd hooks share one budget: 1.5 s, at most 60 s.
    facts: ClassVar[EventFacts] = EventFacts(served="optional", timeout=1.5, timeout_cap=60.0)
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "reason"
    reason: SessionEndReason = "other"


class UserPromptSubmit(HookEvent):
    """A prompt was submitted, before the model sees it. A deny rejects the prompt."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="default",
        judged="end",
        fails_closed=True,
        refuses="prompt",
        answers=("block", "context", "stop"),
        plain_stdout="context",
        exit_2="blocks",
        timeout=30.0,
    )
    prompt: str


class TurnStart(HookEvent):
    """hookline's own: a turn (one prompt, worked until the model stops) begins."""

    prompt: str
    turn: int


class TurnEnd(HookEvent):
    """hookline's own: a turn ended; ``steps`` counts the model calls it took."""

    prompt: str
    turn: int
    steps: int
    stop_reason: str


class Stop(HookEvent):
    """The model finished answering. A deny keeps it working, with the reason as its instruction."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="default",
        judged="keep",
        answers=("block (keep working)", "context", "stop"),
        exit_2="blocks",
    )
    stop_hook_active: bool = False
    last_assistant_message: str | None = None
    background_tasks: list[dict[str, Any]] = Field(default_factory=list)
    session_crons: list[dict[str, Any]] = Field(default_factory=list)


class SubagentStart(HookEvent):
    """The Agent tool started a subagent. Its hooks' context reaches that subagent only (the
    start of its own conversation); they cannot block it, as in Claude Code."""

    facts: ClassVar[EventFacts] = EventFacts(served="optional", answers=("context",))
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "agent_type"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none - {"agent_id", "agent_type"}


class SubagentStop(HookEvent):
    """A subagent finished answering. A deny keeps it working, with the reason as its next
    instruction (as Stop does for the main agent); the same cap ends a loop of blocks."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="default",
        judged="keep",
        answers=("block (keep working)", "context", "stop"),
        exit_2="blocks",
    )
    match_field: ClassVar[str | None] = "agent_type"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none - {"agent_id", "agent_type"}
    stop_hook_active: bool = False
    agent_transcript_path: str
    last_assistant_message: str | None = None
    background_tasks: list[dict[str, Any]] = Field(default_factory=list)
    session_crons: list[dict[str, Any]] = Field(default_factory=list)


class Notification(HookEvent):
    """The agent needs a person's attention: hookline fires it with ``permission_prompt`` when
    it asks the approver about a call. Hooks run for their side effects (a desktop notice, a chat
    message); their answers are ignored, and exit 2 is a non-blocking error, as in Claude Code."""

    facts: ClassVar[EventFacts] = EventFacts(served="optional")

    has_mode: ClassVar[bool] = False
    #: permission_prompt, idle_prompt, auth_success, elicitation_dialog, ... (Claude Code's).
    match_field: ClassVar[str | None] = "notification_type"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"title"}
    message: str
    title: str | None = None
    notification_type: str

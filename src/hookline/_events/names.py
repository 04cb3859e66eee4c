"""Every event hookline fires, by name, and what a name it does not know may be: a Claude Code
event not fired yet, another program's, or a misspelling."""

from __future__ import annotations

import difflib
import re
from typing import Final

from hookline._errors import ConfigError
from hookline._events.base import HookEvent
from hookline._events.model import (
    PostCompact,
    PostModelResponse,
    PostModelSwitch,
    PreCompact,
    PreModelRequest,
    PreModelSwitch,
)
from hookline._events.session import (
    Notification,
    SessionEnd,
    SessionStart,
    Stop,
    SubagentStart,
    SubagentStop,
    TurnEnd,
    TurnStart,
    UserPromptSubmit,
)
from hookline._events.surroundings import ConfigChange, CwdChanged, FileChanged, InstructionsLoaded
from hookline._events.tools import (
    PermissionRequest,
    PostToolBatch,
    PostToolUse,
    PostToolUseFailure,
    PreToolUse,
    ToolBlocked,
)

EVENTS: Final[dict[str, type[HookEvent]]] = {
    cls.name: cls
    for cls in (
        SessionStart,
        SessionEnd,
        UserPromptSubmit,
        TurnStart,
        TurnEnd,
        PreToolUse,
        PermissionRequest,
        PostToolUse,
        PostToolUseFailure,
        PostToolBatch,
        ToolBlocked,
        PreModelRequest,
        PostModelResponse,
        Stop,
        Notification,
        InstructionsLoaded,
        SubagentStart,
        SubagentStop,
        PreCompact,
        PostCompact,
        CwdChanged,
        FileChanged,
        ConfigChange,
        PreModelSwitch,
        PostModelSwitch,
    )
}

#: Claude Code events hookline does not fire yet; hooks for them are refused with that reason.
NOT_YET_SUPPORTED = frozenset(
    {
        "Setup",
        "UserPromptExpansion",
        "MessageDisplay",
        "PermissionDenied",
        "TaskCreated",
        "TaskCompleted",
        "StopFailure",
        "TeammateIdle",
        "DirectoryAdded",
        "WorktreeCreate",
        "WorktreeRemove",
        "Elicitation",
        "ElicitationResult",
        "PreSkillShellCommand",
    }
)
#: An event name as Claude Code writes them: capitalised words, letters and digits only.
_EVENT_NAME = re.compile(r"(?:[A-Z][a-z0-9]+)+")
#: How close to a known name (difflib's ratio) an unknown one is read as a misspelling of it.
_MISSPELT = 0.85


def foreign_event(name: str) -> bool:
    """Whether ``name`` reads as some other program's event (a newer Claude Code's, another
    agent's): written as event names are, and not a known one in other letter case or one or
    two letters away from one, which is read as a misspelt guard instead."""
    if not _EVENT_NAME.fullmatch(name) or name in EVENTS or name in NOT_YET_SUPPORTED:
        return False
    known = [*EVENTS, *NOT_YET_SUPPORTED]
    if name.lower() in {k.lower() for k in known}:
        return False
    return not difflib.get_close_matches(name, known, n=1, cutoff=_MISSPELT)


def event_class(name: str, *, file: str | None = None, key: str | None = None) -> type[HookEvent]:
    """The event class called ``name``, or a ConfigError that says what to write instead."""
    try:
        return EVENTS[name]
    except KeyError:
        pass
    if name in NOT_YET_SUPPORTED:
        raise ConfigError(
            f"event {name!r} is a Claude Code event hookline does not fire yet",
            file=file,
            key=key,
            fix=f"use one of: {', '.join(EVENTS)}",
        )
    if foreign_event(name):
        raise ConfigError(
            f"event {name!r} is not one hookline knows (a newer Claude Code's, or another "
            "agent's?): its hooks do not run",
            file=file,
            key=key,
            fix=f"hookline runs: {', '.join(EVENTS)}",
        )
    close = difflib.get_close_matches(name, list(EVENTS), n=1)
    hint = f"did you mean {close[0]!r}?" if close else f"use one of: {', '.join(EVENTS)}"
    raise ConfigError(f"unknown event {name!r}", file=file, key=key, fix=hint)

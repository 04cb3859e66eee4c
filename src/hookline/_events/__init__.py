"""Lifecycle events: typed, frozen, serialisable, named as in the Claude Code hook protocol.

The same event object is a Python hook's argument, a command hook's stdin (``to_payload()``) and an
HTTP hook's body. Events are read-only, down to the tool input and output inside them: a hook
changes what happens by answering with a ``Decision`` (``updated_input``, ``updated_output``, ...).

- ``base``: ``HookEvent`` (the common fields, the payload; an event is named by its class) and
  ``Scope``, which builds a session's events;
- ``facts``: ``EventFacts``, what each event does, in one row;
- ``session``, ``tools``, ``model``, ``surroundings``: the events, by what they are about;
- ``names``: ``EVENTS`` by name, and what an unknown name may be.
"""

from hookline._events.base import FrozenInput, FrozenOutput, HookEvent, PermissionMode, Scope
from hookline._events.facts import EventFacts
from hookline._events.model import (
    PostCompact,
    PostModelResponse,
    PostModelSwitch,
    PreCompact,
    PreModelRequest,
    PreModelSwitch,
)
from hookline._events.names import EVENTS, NOT_YET_SUPPORTED, event_class, foreign_event
from hookline._events.session import (
    Notification,
    SessionEnd,
    SessionEndReason,
    SessionStart,
    Stop,
    SubagentStart,
    SubagentStop,
    TurnEnd,
    TurnStart,
    UserPromptSubmit,
)
from hookline._events.surroundings import (
    ConfigChange,
    ConfigSource,
    CwdChanged,
    FileChanged,
    InstructionsLoaded,
)
from hookline._events.tools import (
    PermissionRequest,
    PostToolBatch,
    PostToolUse,
    PostToolUseFailure,
    PreToolUse,
    ToolBlocked,
    ToolEvent,
)

__all__ = [
    "EVENTS",
    "NOT_YET_SUPPORTED",
    "ConfigChange",
    "ConfigSource",
    "CwdChanged",
    "EventFacts",
    "FileChanged",
    "FrozenInput",
    "FrozenOutput",
    "HookEvent",
    "InstructionsLoaded",
    "Notification",
    "PermissionMode",
    "PermissionRequest",
    "PostCompact",
    "PostModelResponse",
    "PostModelSwitch",
    "PostToolBatch",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "PreModelRequest",
    "PreModelSwitch",
    "PreToolUse",
    "Scope",
    "SessionEnd",
    "SessionEndReason",
    "SessionStart",
    "Stop",
    "SubagentStart",
    "SubagentStop",
    "ToolBlocked",
    "ToolEvent",
    "TurnEnd",
    "TurnStart",
    "UserPromptSubmit",
    "event_class",
    "foreign_event",
]

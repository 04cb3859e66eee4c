"""What the model is sent and which model it is: each request and response, a compaction of
the conversation, a switch of model."""

from __future__ import annotations

from typing import ClassVar, Literal

from hookline._events.base import FrozenOutput, HookEvent
from hookline._events.facts import EventFacts


class PreModelRequest(HookEvent):
    """hookline's own: a request is about to go to the model (fired only when a hook listens).
    Context joins this request only; a rewrite of ``messages`` (``Decision.rewrite({"messages":
    [...]})``, the same shape) is what this request sends instead, for redaction; the transcript
    keeps the conversation as it was. An invalid rewrite, or two hooks rewriting differently, ends
    the run before the call (fail closed); continue=false ends it too."""

    facts: ClassVar[EventFacts] = EventFacts(answers=("rewrite (messages)", "context", "stop"))
    model: str
    #: The conversation as the model would read it (role, content blocks), read-only.
    messages: FrozenOutput
    system: str | None = None
    #: The names of the tools the model is offered.
    tools: list[str]


class PostModelResponse(HookEvent):
    """hookline's own: the model answered (fired only when a hook listens). Hooks observe the
    message and what the call used; their answers change nothing."""

    model: str
    message: FrozenOutput
    #: Tokens the call used, as the provider reported them; None when it did not.
    usage: dict[str, int] | None = None


class PreCompact(HookEvent):
    """The conversation is about to be summarised (``manual``: asked for; ``auto``: it passed
    its token budget). A deny skips the compaction; a command hook's plain stdout joins the
    summarising instructions."""

    facts: ClassVar[EventFacts] = EventFacts(
        served="optional",
        refuses="compaction",
        answers=("block (no compaction)", "instructions"),
        plain_stdout="instructions",
        exit_2="blocks",
    )
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "trigger"
    trigger: Literal["manual", "auto"]
    custom_instructions: str | None = None


class PostCompact(HookEvent):
    """The conversation was replaced by its summary (the full one is archived). Side effects
    only."""

    facts: ClassVar[EventFacts] = EventFacts(served="optional")

    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "trigger"
    trigger: Literal["manual", "auto"]
    compact_summary: str


class _ModelSwitch(HookEvent):
    """Fields of both model-switch events."""

    name: ClassVar[str] = ""  # a family of events, not one

    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "to_model"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"context_tokens"}
    from_model: str
    to_model: str
    requested_model: str
    source: str = "command"
    #: Estimated tokens of the conversation the new model takes over.
    context_tokens: int | None = None


class PreModelSwitch(_ModelSwitch):
    """The session is about to change models. A deny (or an ask, which nobody can answer
    here) keeps the model it has."""

    facts: ClassVar[EventFacts] = EventFacts(
        fails_closed=True, refuses="switch", answers=("allow", "deny", "ask"), exit_2="blocks"
    )


class PostModelSwitch(_ModelSwitch):
    """The session changed models; context goes to the new model with the next request."""

    facts: ClassVar[EventFacts] = EventFacts(answers=("context",))

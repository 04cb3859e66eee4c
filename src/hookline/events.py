"""Lifecycle events: typed, frozen, serialisable, named as in the Claude Code hook protocol.

The same event object is a Python hook's argument, a command hook's stdin (``to_payload()``) and an
HTTP hook's body. Events are read-only, down to the tool input and output inside them: a hook
changes what happens by answering with a ``Decision`` (``updated_input``, ``updated_output``, ...).
"""

from __future__ import annotations

import difflib
import marshal
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Final, Literal, Self, TypeVar, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr

from hookline._support.frozen import freeze
from hookline.decisions import Refusal
from hookline.errors import ConfigError

#: Tool input and output as hooks see them: read-only (see ``hookline._support.frozen``).
FrozenInput = Annotated[dict[str, Any], AfterValidator(freeze)]
FrozenOutput = Annotated[Any, AfterValidator(freeze)]

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]


@dataclass(frozen=True, slots=True)
class EventFacts:
    """What an event does, in one row: every part of hookline that treats events differently
    (the registry, the engine, command hooks, settings, the lint, ``hookline hooks table``)
    reads it here, so a new event is one class. The defaults fit an event whose hooks run for
    their side effects."""

    #: Whether an in-process gate fails closed unless it says otherwise (as Agent SDK callbacks).
    fails_closed: bool = False
    #: What a deny, and a fail-closed hook's failure, refuses: the call, the prompt, the
    #: output (withheld after the tool ran), a compaction or a model switch. None: nothing to
    #: refuse, a failure decides nothing.
    refuses: Literal["call", "prompt", "output", "compaction", "switch"] | None = None
    #: What a gate may answer, as ``hookline hooks table`` lists it; none: side effects only.
    answers: tuple[str, ...] = ()
    #: What a command hook's plain stdout on exit 0 is: context for the model (worded as
    #: Claude Code words it, ``... hook success: <stdout>``), raw instructions (PreCompact's,
    #: for the summary), or None: ignored.
    plain_stdout: Literal["context", "instructions"] | None = None
    #: What a command hook's exit 2 does: blocks (a deny, or feedback after the tool ran),
    #: is ignored (only its JSON decides), or is a non-blocking error (stderr on record).
    exit_2: Literal["blocks", "ignored", "error"] = "error"
    #: Whether command hooks get ``CLAUDE_ENV_FILE`` to export variables for later Bash calls
    #: (in Claude Code also Setup, which hookline does not fire).
    env_file: bool = False
    #: Seconds a settings handler gets when it sets no ``timeout`` (None: the handler's default).
    timeout: float | None = None
    #: Seconds Claude Code gives this event's hooks at most; a longer timeout is a mistake.
    timeout_cap: float | None = None
    #: What a prompt (LLM-judge) hook's ``ok: false`` does here: the run keeps working with the
    #: reason, a deny that ends the turn, a deny, or nothing. None: no prompt hooks on it.
    judged: Literal["keep", "end", "deny", "none"] | None = None


class HookEvent(BaseModel):
    """Fields common to every event, as Claude Code sends them (docs/compatibility.md)."""

    #: ``defer_build``: each event's validator is built when the first one is made, not at
    #: import, so a program pays only for the events it fires (``hookline --version`` for none).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: ClassVar[str] = ""
    #: What the event does (fail-closed default, what a deny refuses, exit 2, ...).
    facts: ClassVar[EventFacts] = EventFacts()
    #: The field a tool-name style matcher filters on, or None when the event ignores matchers.
    match_field: ClassVar[str | None] = None
    #: Whether hooks may rewrite ``tool_input`` / ``tool_response`` at this event.
    rewrites_input: ClassVar[bool] = False
    rewrites_output: ClassVar[bool] = False
    #: Whether Claude Code sends ``permission_mode`` with this event.
    has_mode: ClassVar[bool] = True
    #: Optional fields left out of the payload while unset, as Claude Code does.
    omit_when_none: ClassVar[frozenset[str]] = frozenset(
        {"prompt_id", "permission_mode", "agent_id", "agent_type", "user", "tenant"}
    )

    session_id: str
    transcript_path: str
    cwd: str
    prompt_id: str | None = None
    permission_mode: PermissionMode | None = None
    agent_id: str | None = None
    agent_type: str | None = None
    #: hookline's own: who the session works for, set by the embedding application or CLI.
    user: str | None = None
    tenant: str | None = None
    #: Not in the payload: the session's project folder (see ``project_dir``).
    _project_dir: str | None = PrivateAttr(default=None)

    @property
    def project_dir(self) -> str:
        """The project folder: command hooks run there, and ``./`` rules in ``if`` conditions
        are anchored there, wherever a ``cd`` took the shell (``cwd``)."""
        return self._project_dir or self.cwd

    def match_value(self) -> str | None:
        """The value a matcher filters on (a tool name, a session source, ...)."""
        return getattr(self, self.match_field) if self.match_field else None

    def to_payload(self) -> dict[str, Any]:
        """The JSON object a command hook reads on stdin, in the protocol's field order.

        Each call gets an object of its own, which it may change (an Agent SDK callback may
        edit its ``input_data``) without another reader seeing it. The event is dumped once: the
        first reader gets that dump, later ones (the next hooks on the event) a copy of a
        snapshot taken before anyone could change it, bytes no reader can reach."""
        snapshot: bytes | None = self.__dict__.get(_SNAPSHOT)
        if snapshot is not None:
            return cast(dict[str, Any], marshal.loads(snapshot))
        data = self.model_dump(mode="json")
        for key in self.omit_when_none:
            if data.get(key, 0) is None:
                del data[key]
        # marshal: a JSON dump is plain values, which it copies fastest (and it is always
        # loaded). In ``__dict__``, as a cached_property would be: not a field, nor in ``==``.
        self.__dict__[_SNAPSHOT] = marshal.dumps(data)
        return data

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy as pydantic makes it, without the payload snapshot: ``update`` (a hook's
        rewrite, ``hooks.engine``) changes what it would hold."""
        copied = super().model_copy(update=update, deep=deep)
        copied.__dict__.pop(_SNAPSHOT, None)
        return copied


#: Where ``HookEvent.to_payload`` keeps its snapshot (a leading ``_``: ``dict(event)`` skips it).
_SNAPSHOT = "_payload_snapshot"


class SessionStart(HookEvent):
    """A session starts or resumes."""

    name: ClassVar[str] = "SessionStart"
    facts: ClassVar[EventFacts] = EventFacts(
        answers=("context",), plain_stdout="context", env_file=True
    )
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "source"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"model"}
    hook_event_name: Literal["SessionStart"] = "SessionStart"
    source: Literal["startup", "resume", "clear", "compact", "fork"] = "startup"
    model: str | None = None


#: Why a session ends, in Claude Code's words (``other``: the run's end, as ``claude -p``'s).
SessionEndReason = Literal["clear", "resume", "logout", "prompt_input_exit", "other"]


class SessionEnd(HookEvent):
    """A session ends."""

    name: ClassVar[str] = "SessionEnd"
    #: Claude Code's SessionEnd hooks share one budget: 1.5 s, at most 60 s.
    facts: ClassVar[EventFacts] = EventFacts(timeout=1.5, timeout_cap=60.0)
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "reason"
    hook_event_name: Literal["SessionEnd"] = "SessionEnd"
    reason: SessionEndReason = "other"


class UserPromptSubmit(HookEvent):
    """A prompt was submitted, before the model sees it. A deny rejects the prompt."""

    name: ClassVar[str] = "UserPromptSubmit"
    facts: ClassVar[EventFacts] = EventFacts(
        judged="end",
        fails_closed=True,
        refuses="prompt",
        answers=("block", "context", "stop"),
        plain_stdout="context",
        exit_2="blocks",
        timeout=30.0,
    )
    hook_event_name: Literal["UserPromptSubmit"] = "UserPromptSubmit"
    prompt: str


class TurnStart(HookEvent):
    """hookline's own: a turn (one prompt, worked until the model stops) begins."""

    name: ClassVar[str] = "TurnStart"
    hook_event_name: Literal["TurnStart"] = "TurnStart"
    prompt: str
    turn: int


class TurnEnd(HookEvent):
    """hookline's own: a turn ended; ``steps`` counts the model calls it took."""

    name: ClassVar[str] = "TurnEnd"
    hook_event_name: Literal["TurnEnd"] = "TurnEnd"
    prompt: str
    turn: int
    steps: int
    stop_reason: str


class ToolEvent(HookEvent):
    """Fields of every event about one tool call."""

    match_field: ClassVar[str | None] = "tool_name"
    tool_name: str
    tool_input: FrozenInput


class PreToolUse(ToolEvent):
    """A tool call is about to run. Gates may deny, ask or defer; transformers may rewrite."""

    name: ClassVar[str] = "PreToolUse"
    facts: ClassVar[EventFacts] = EventFacts(
        judged="end",
        fails_closed=True,
        refuses="call",
        answers=("allow", "deny", "ask", "defer", "rewrite", "context", "stop"),
        exit_2="blocks",
    )
    rewrites_input: ClassVar[bool] = True
    hook_event_name: Literal["PreToolUse"] = "PreToolUse"
    tool_use_id: str


class PermissionRequest(ToolEvent):
    """A call needs a permission answer. Hooks may allow or deny it."""

    name: ClassVar[str] = "PermissionRequest"
    #: Only the JSON ``decision`` answers; exit 2 changes nothing (as in Claude Code).
    facts: ClassVar[EventFacts] = EventFacts(
        judged="none",
        refuses="call",
        answers=("allow", "deny", "rewrite", "stop"),
        exit_2="ignored",
    )
    rewrites_input: ClassVar[bool] = True
    hook_event_name: Literal["PermissionRequest"] = "PermissionRequest"
    permission_suggestions: list[dict[str, Any]] = Field(default_factory=list)


class PostToolUse(ToolEvent):
    """A tool call succeeded. Hooks may replace the output the model sees or add context."""

    name: ClassVar[str] = "PostToolUse"
    facts: ClassVar[EventFacts] = EventFacts(
        judged="end",
        refuses="output",
        answers=("block (feedback)", "replace output", "context", "stop"),
        exit_2="blocks",
    )
    rewrites_output: ClassVar[bool] = True
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"duration_ms"}
    hook_event_name: Literal["PostToolUse"] = "PostToolUse"
    tool_response: FrozenOutput = None
    tool_use_id: str
    duration_ms: int | None = None


class PostToolUseFailure(ToolEvent):
    """A started tool call failed (raised, timed out, exited non-zero)."""

    name: ClassVar[str] = "PostToolUseFailure"
    facts: ClassVar[EventFacts] = EventFacts(
        judged="deny", answers=("context", "stop"), exit_2="blocks"
    )
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"duration_ms"}
    hook_event_name: Literal["PostToolUseFailure"] = "PostToolUseFailure"
    tool_use_id: str
    error: str
    is_interrupt: bool = False
    duration_ms: int | None = None


class ToolBlocked(ToolEvent):
    """hookline's own: a call was refused before it ran. Its body never executed."""

    name: ClassVar[str] = "ToolBlocked"
    hook_event_name: Literal["ToolBlocked"] = "ToolBlocked"
    tool_use_id: str
    decision: Refusal
    reason: str


class PostToolBatch(HookEvent):
    """All calls of one model turn have resolved, before the next model call. A deny (or
    continue=false) ends the run there; context goes to the model with the results."""

    name: ClassVar[str] = "PostToolBatch"
    facts: ClassVar[EventFacts] = EventFacts(
        judged="end", answers=("block (ends the run)", "context", "stop"), exit_2="blocks"
    )
    hook_event_name: Literal["PostToolBatch"] = "PostToolBatch"
    #: One per call: tool_name, tool_input, tool_use_id, and tool_response as the model reads it.
    tool_calls: list[dict[str, Any]]


class PreModelRequest(HookEvent):
    """hookline's own: a request is about to go to the model (fired only when a hook listens).
    Context joins this request only; a rewrite of ``messages`` (``Decision.rewrite({"messages":
    [...]})``, the same shape) is what this request sends instead, for redaction; the transcript
    keeps the conversation as it was. An invalid rewrite, or two hooks rewriting differently, ends
    the run before the call (fail closed); continue=false ends it too."""

    name: ClassVar[str] = "PreModelRequest"
    facts: ClassVar[EventFacts] = EventFacts(answers=("rewrite (messages)", "context", "stop"))
    hook_event_name: Literal["PreModelRequest"] = "PreModelRequest"
    model: str
    #: The conversation as the model would read it (role, content blocks), read-only.
    messages: FrozenOutput
    system: str | None = None
    #: The names of the tools the model is offered.
    tools: list[str]


class PostModelResponse(HookEvent):
    """hookline's own: the model answered (fired only when a hook listens). Hooks observe the
    message and what the call used; their answers change nothing."""

    name: ClassVar[str] = "PostModelResponse"
    hook_event_name: Literal["PostModelResponse"] = "PostModelResponse"
    model: str
    message: FrozenOutput
    #: Tokens the call used, as the provider reported them; None when it did not.
    usage: dict[str, int] | None = None


class Stop(HookEvent):
    """The model finished answering. A deny keeps it working, with the reason as its instruction."""

    name: ClassVar[str] = "Stop"
    facts: ClassVar[EventFacts] = EventFacts(
        judged="keep", answers=("block (keep working)", "context", "stop"), exit_2="blocks"
    )
    hook_event_name: Literal["Stop"] = "Stop"
    stop_hook_active: bool = False
    last_assistant_message: str | None = None
    background_tasks: list[dict[str, Any]] = Field(default_factory=list)
    session_crons: list[dict[str, Any]] = Field(default_factory=list)


class Notification(HookEvent):
    """The agent needs a person's attention: hookline fires it with ``permission_prompt`` when
    it asks the approver about a call. Hooks run for their side effects (a desktop notice, a chat
    message); their answers are ignored, and exit 2 is a non-blocking error, as in Claude Code."""

    name: ClassVar[str] = "Notification"
    has_mode: ClassVar[bool] = False
    #: permission_prompt, idle_prompt, auth_success, elicitation_dialog, ... (Claude Code's).
    match_field: ClassVar[str | None] = "notification_type"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"title"}
    hook_event_name: Literal["Notification"] = "Notification"
    message: str
    title: str | None = None
    notification_type: str


class InstructionsLoaded(HookEvent):
    """An instruction file (CLAUDE.md, AGENTS.md, a ``.claude/rules`` file) entered the model's
    context: every one at session start, a rule with ``paths`` globs when a tool call first
    touches a matching path, a file an ``@path`` import pulls in with its importer. Hooks run
    for their side effects (a record of what the model was told); they cannot block, as in
    Claude Code."""

    name: ClassVar[str] = "InstructionsLoaded"
    has_mode: ClassVar[bool] = False
    #: session_start, path_glob_match, include (Claude Code also has nested_traversal, compact).
    match_field: ClassVar[str | None] = "load_reason"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {
        "globs",
        "trigger_file_path",
        "parent_file_path",
    }
    hook_event_name: Literal["InstructionsLoaded"] = "InstructionsLoaded"
    file_path: str
    memory_type: Literal["User", "Project", "Local", "Managed"]
    load_reason: Literal[
        "session_start", "nested_traversal", "path_glob_match", "include", "compact"
    ]
    globs: list[str] | None = None
    trigger_file_path: str | None = None
    parent_file_path: str | None = None


class SubagentStart(HookEvent):
    """The Agent tool started a subagent. Its hooks' context reaches that subagent only (the
    start of its own conversation); they cannot block it, as in Claude Code."""

    name: ClassVar[str] = "SubagentStart"
    facts: ClassVar[EventFacts] = EventFacts(answers=("context",))
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "agent_type"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none - {"agent_id", "agent_type"}
    hook_event_name: Literal["SubagentStart"] = "SubagentStart"


class SubagentStop(HookEvent):
    """A subagent finished answering. A deny keeps it working, with the reason as its next
    instruction (as Stop does for the main agent); the same cap ends a loop of blocks."""

    name: ClassVar[str] = "SubagentStop"
    facts: ClassVar[EventFacts] = EventFacts(
        judged="keep", answers=("block (keep working)", "context", "stop"), exit_2="blocks"
    )
    match_field: ClassVar[str | None] = "agent_type"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none - {"agent_id", "agent_type"}
    hook_event_name: Literal["SubagentStop"] = "SubagentStop"
    stop_hook_active: bool = False
    agent_transcript_path: str
    last_assistant_message: str | None = None
    background_tasks: list[dict[str, Any]] = Field(default_factory=list)
    session_crons: list[dict[str, Any]] = Field(default_factory=list)


class PreCompact(HookEvent):
    """The conversation is about to be summarised (``manual``: asked for; ``auto``: it passed
    its token budget). A deny skips the compaction; a command hook's plain stdout joins the
    summarising instructions."""

    name: ClassVar[str] = "PreCompact"
    facts: ClassVar[EventFacts] = EventFacts(
        refuses="compaction",
        answers=("block (no compaction)", "instructions"),
        plain_stdout="instructions",
        exit_2="blocks",
    )
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "trigger"
    hook_event_name: Literal["PreCompact"] = "PreCompact"
    trigger: Literal["manual", "auto"]
    custom_instructions: str | None = None


class PostCompact(HookEvent):
    """The conversation was replaced by its summary (the full one is archived). Side effects
    only."""

    name: ClassVar[str] = "PostCompact"
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "trigger"
    hook_event_name: Literal["PostCompact"] = "PostCompact"
    trigger: Literal["manual", "auto"]
    compact_summary: str


class CwdChanged(HookEvent):
    """A Bash ``cd`` moved the shell to another folder (later events carry it as ``cwd``).
    Side effects only; command hooks may export variables through ``CLAUDE_ENV_FILE``."""

    name: ClassVar[str] = "CwdChanged"
    facts: ClassVar[EventFacts] = EventFacts(env_file=True)
    has_mode: ClassVar[bool] = False
    hook_event_name: Literal["CwdChanged"] = "CwdChanged"
    old_cwd: str
    new_cwd: str


class FileChanged(HookEvent):
    """A watched file changed on disk, by anyone (matchers name the files to watch, by
    basename). Side effects only; command hooks may export variables through
    ``CLAUDE_ENV_FILE``."""

    name: ClassVar[str] = "FileChanged"
    facts: ClassVar[EventFacts] = EventFacts(env_file=True)
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "file_name"
    hook_event_name: Literal["FileChanged"] = "FileChanged"
    file_path: str
    event: Literal["change", "add", "unlink"]

    @property
    def file_name(self) -> str:
        return self.file_path.rsplit("/", 1)[-1]


#: Which settings changed, in Claude Code's words (``policy_settings``: the managed ones).
ConfigSource = Literal[
    "user_settings", "project_settings", "local_settings", "policy_settings", "skills"
]


class ConfigChange(HookEvent):
    """A settings file changed while the session ran. hookline never applies such a change
    to a running session (its hooks and rules stay those it started with); hooks record or
    refuse it, and a deny ends the run."""

    name: ClassVar[str] = "ConfigChange"
    facts: ClassVar[EventFacts] = EventFacts(answers=("block (ends the run)",), exit_2="blocks")
    has_mode: ClassVar[bool] = False
    match_field: ClassVar[str | None] = "source"
    omit_when_none: ClassVar[frozenset[str]] = HookEvent.omit_when_none | {"file_path"}
    hook_event_name: Literal["ConfigChange"] = "ConfigChange"
    source: ConfigSource
    file_path: str | None = None


class _ModelSwitch(HookEvent):
    """Fields of both model-switch events."""

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

    name: ClassVar[str] = "PreModelSwitch"
    facts: ClassVar[EventFacts] = EventFacts(
        fails_closed=True, refuses="switch", answers=("allow", "deny", "ask"), exit_2="blocks"
    )
    hook_event_name: Literal["PreModelSwitch"] = "PreModelSwitch"


class PostModelSwitch(_ModelSwitch):
    """The session changed models; context goes to the new model with the next request."""

    name: ClassVar[str] = "PostModelSwitch"
    facts: ClassVar[EventFacts] = EventFacts(answers=("context",))
    hook_event_name: Literal["PostModelSwitch"] = "PostModelSwitch"


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


E = TypeVar("E", bound=HookEvent)


@dataclass(frozen=True, slots=True)
class Scope:
    """The fields every event of one session shares; ``scope.event(PreToolUse, ...)`` builds one."""

    session_id: str
    transcript_path: str
    cwd: str
    permission_mode: PermissionMode | None = "default"
    prompt_id: str | None = None
    user: str | None = None
    tenant: str | None = None
    #: The project folder, when ``cwd`` (where the shell is) may move away from it.
    project_dir: str | None = None
    #: Inside a subagent: its id and type, which every event it fires carries.
    agent_id: str | None = None
    agent_type: str | None = None

    def event(self, cls: type[E], **fields: Any) -> E:
        fields.setdefault("agent_id", self.agent_id)
        fields.setdefault("agent_type", self.agent_type)
        event = cls(
            session_id=self.session_id,
            transcript_path=self.transcript_path,
            cwd=self.cwd,
            permission_mode=self.permission_mode if cls.has_mode else None,
            prompt_id=self.prompt_id,
            user=self.user,
            tenant=self.tenant,
            **fields,
        )
        event._project_dir = self.project_dir
        return event

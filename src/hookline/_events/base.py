"""The fields every event has, its payload, and the scope that builds a session's events.

An event class is named once, by its class: ``HookEvent.__init_subclass__`` gives it its
``name`` and the payload's ``hook_event_name``.
"""

from __future__ import annotations

import inspect
import marshal
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Self, TypeVar, cast

from pydantic import AfterValidator, BaseModel, ConfigDict

from hookline._events.facts import EventFacts
from hookline._support.frozen import freeze

#: Tool input and output as hooks see them: read-only (see ``hookline._support.frozen``).
FrozenInput = Annotated[dict[str, Any], AfterValidator(freeze)]
FrozenOutput = Annotated[Any, AfterValidator(freeze)]

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]


class HookEvent(BaseModel):
    """Fields common to every event, as Claude Code sends them (docs/compatibility.md)."""

    #: ``defer_build``: each event's validator is built when the first one is made, not at
    #: import, so a program pays only for the events it fires (``hookline --version`` for none).
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    #: The event's name, as hooks and settings write it: its class's (``__init_subclass__``).
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
    if TYPE_CHECKING:  # a field of each event class, made by ``__init_subclass__``
        hook_event_name: str = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Name an event after its class, once: ``name``, and the payload's ``hook_event_name``
        (a field that holds only that name, first among the class's own fields). A family
        of events (``ToolEvent``) says so by setting ``name = ""`` itself."""
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:
            return
        cls.name = cls.__name__
        own = inspect.get_annotations(cls)
        cls.__annotations__ = {"hook_event_name": Literal[cls.name], **own}
        cls.hook_event_name = cls.name

    @property
    def project_dir(self) -> str:
        """The project folder: command hooks run there, and ``./`` rules in ``if`` conditions
        are anchored there, wherever a ``cd`` took the shell (``cwd``)."""
        return cast(str | None, self.__dict__.get(_PROJECT_DIR)) or self.cwd

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
#: Where an event keeps its session's project folder: beside its fields, as the snapshot is (not
#: a pydantic private attribute, which would cost every event a post-init step), so a copy
#: (a hook's rewrite) keeps it and the payload never shows it.
_PROJECT_DIR = "_project_dir"


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
        """A ``cls`` event of this session with ``fields``, validated as ``cls(...)`` would."""
        data = {
            "session_id": self.session_id,
            "transcript_path": self.transcript_path,
            "cwd": self.cwd,
            "permission_mode": self.permission_mode if cls.has_mode else None,
            "prompt_id": self.prompt_id,
            "user": self.user,
            "tenant": self.tenant,
            "agent_id": self.agent_id,
            "agent_type": self.agent_type,
            **fields,
        }
        # The validator ``cls(**data)`` runs, without the keywords' second packing in
        # ``BaseModel.__init__``: a quarter of what building an event costs.
        event: E = cls.__pydantic_validator__.validate_python(data)
        if self.project_dir is not None:
            event.__dict__[_PROJECT_DIR] = self.project_dir
        return event

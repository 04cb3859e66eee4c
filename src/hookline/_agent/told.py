"""What the agent loop tells its stream, and the observers' hub that listens to it.

The engine, the tool pipeline and the permission step tell the agent's stream
(``hookline._support.stream``) of events, hook runs, tool starts and approvals; the loop tells
it the records below (each carrying the session it happened in). ``ObserverHub`` subscribes to
that stream, for the kinds of record some observer overrides, and turns each record into one
``Observer`` call (``hookline._agent.observers``): an agent nobody watches subscribes to
nothing, so the engine, pipeline and loop build no record for anyone.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from functools import partial
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Final, Protocol

from hookline._agent.observers import KINDS, Handle, Observer, overrides
from hookline._errors import ConfigError
from hookline._hooks.engine import EventDispatched, HookRun
from hookline._tools.permit import ApprovalAnswered, ApprovalAsked
from hookline._tools.pipeline import ToolStarted

if TYPE_CHECKING:
    from hookline._agent.messages import Message
    from hookline._agent.result import RunResult
    from hookline._agent.saved.pause import Claimed, Resumer
    from hookline._agent.saved.state import Turn
    from hookline._agent.session import Session
    from hookline._support.stream import Stream
    from hookline._tools.base import ToolResult

logger = logging.getLogger("hookline._agent.observers")


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """What came of a call: ran, failed, refused or deferred."""

    session: Session
    result: ToolResult


@dataclass(frozen=True, slots=True)
class MessageAdded:
    """A message joined the conversation."""

    session: Session
    message: Message


@dataclass(frozen=True, slots=True)
class ModelCalled:
    """A model call returned ``reply``."""

    session: Session
    reply: Message
    model: str


@dataclass(frozen=True, slots=True)
class Checkpointed:
    """A step is done; a crashed run can go on from here."""

    session: Session
    turn: Turn


@dataclass(frozen=True, slots=True)
class Paused:
    """The run stops with calls waiting for an answer."""

    session: Session
    turn: Turn


@dataclass(frozen=True, slots=True)
class Resumed:
    """A paused (or crashed) session was claimed and rebuilt; nothing of it has run yet."""

    session: Session
    claimed: Claimed
    by: Resumer


@dataclass(frozen=True, slots=True)
class RunEnded:
    """A run (``run`` or ``resume``) returns ``result``."""

    session: Session
    turn: Turn
    result: RunResult


@dataclass(frozen=True, slots=True)
class Closed:
    """The conversation closed (SessionEnd fired, background hooks done)."""

    session: Session


#: Each kind of record, the Observer method it becomes, and the fields it passes: after the
#: record's own session, or (records of the engine, pipeline and permit, which know no session)
#: after the session of the conversation the stream belongs to; None: the record itself.
TOLD_AS: Final = {
    EventDispatched: ("event", ("event",)),
    HookRun: ("hook_run", None),
    ToolStarted: ("tool_started", None),
    ApprovalAsked: ("approval_asked", ("request",)),
    ApprovalAnswered: ("approval_answered", ("request", "answer")),
    ToolFinished: ("tool_finished", ("result",)),
    MessageAdded: ("message", ("message",)),
    ModelCalled: ("model_called", ("reply", "model")),
    Checkpointed: ("checkpoint", ("turn",)),
    Paused: ("paused", ("turn",)),
    Resumed: ("resumed", ("claimed", "by")),
    RunEnded: ("run_ended", ("turn", "result")),
    Closed: ("closed", ()),
}


class HasSession(Protocol):
    """What a stream belongs to: a conversation, whose session may change (``clear``)."""

    @property
    def session(self) -> Session: ...


class ObserverHub:
    """An agent's observers in the order they were added, subscribed to the streams attached
    (``attach``) for each kind some observer overrides, and for no other."""

    def __init__(self) -> None:
        self._all: list[Observer] = []
        self._by: dict[str, tuple[Observer, ...]] = dict.fromkeys(KINDS, ())
        self._events: frozenset[str] | None = frozenset()
        self._attached: list[_Attached] = []

    def add(self, observer: Observer) -> Handle:
        """Tell ``observer`` of what happens from now on, after those added before it."""
        if not isinstance(observer, Observer):
            raise ConfigError(
                f"{observer!r} is not an Observer",
                key="observers",
                fix="subclass hookline._agent.observers.Observer (or pass a function to watch)",
            )
        self._all.append(observer)
        self._changed()
        return Handle(partial(self.remove, observer))

    def __iter__(self) -> Iterator[Observer]:
        """The observers, in the order they are told."""
        return iter(tuple(self._all))

    def remove(self, observer: Observer) -> None:
        """Stop telling ``observer``; nothing when it is not here."""
        if observer in self._all:
            self._all.remove(observer)
            self._changed()

    def attach(self, stream: Stream, owner: HasSession) -> Callable[[], None]:
        """Listen to ``stream``, whose records belong to ``owner``'s conversation; returns the
        function that stops listening."""
        attached = _Attached(self, stream, owner)
        self._attached.append(attached)
        attached.sync(self._by)
        return partial(self._detach, attached)

    def tell(self, kind: str, *args: Any) -> None:
        """Call ``kind`` on each observer that overrides it; one that raises is logged, unless
        it is ``fail_closed``."""
        for observer in self._by[kind]:  # a tuple: an observer may remove itself meanwhile
            try:
                getattr(observer, kind)(*args)
            except Exception:
                if observer.fail_closed:
                    raise
                logger.exception("observer %r failed on %s; the run goes on", observer, kind)

    def _detach(self, attached: _Attached) -> None:
        if attached in self._attached:
            self._attached.remove(attached)
            attached.stop()

    @property
    def events(self) -> frozenset[str] | None:
        """The events some observer wants told when no hook listens (``Observer.events``);
        None: every one."""
        return self._events

    def _changed(self) -> None:
        self._by = {kind: tuple(o for o in self._all if overrides(o, kind)) for kind in KINDS}
        wanted = [observer.events for observer in self._by["event"]]
        heard = frozenset(name for names in wanted if names is not None for name in names)
        self._events = None if None in wanted else heard
        for attached in self._attached:
            attached.sync(self._by)


class _Attached:
    """One stream an ``ObserverHub`` listens to: its subscriptions, by kind of record."""

    def __init__(self, hub: ObserverHub, stream: Stream, owner: HasSession) -> None:
        self.hub, self.stream, self.owner = hub, stream, owner
        self.stops: dict[type, Callable[[], None]] = {}

    def sync(self, wanted: dict[str, tuple[Observer, ...]]) -> None:
        """Subscribe to each kind some observer wants, and to no other."""
        for kind, (method, fields) in TOLD_AS.items():
            if wanted[method] and kind not in self.stops:
                delivery = _Delivery(self, kind, method, fields)
                self.stops[kind] = self.stream.subscribe(kind, delivery)
            elif not wanted[method] and kind in self.stops:
                self.stops.pop(kind)()

    def stop(self) -> None:
        for stop in self.stops.values():
            stop()
        self.stops.clear()


class _Delivery:
    """A stream subscriber: one kind of record, as one Observer call."""

    __slots__ = ("args", "attached", "method", "own_session")

    def __init__(
        self, attached: _Attached, kind: type, method: str, fields: tuple[str, ...] | None
    ) -> None:
        self.attached, self.method = attached, method
        #: The Observer call's arguments after the session, taken from a record.
        self.args = _arguments(fields)
        #: Whether the record carries its session (else: the conversation's, when told).
        self.own_session = "session" in {field.name for field in dataclass_fields(kind)}

    @property
    def record_names(self) -> frozenset[str] | None:
        """The events its observers want when no hook listens (``Stream.hears``); None: all
        (every record of another kind)."""
        return self.attached.hub.events if self.method == "event" else None

    def __call__(self, record: Any) -> None:
        session = record.session if self.own_session else None
        session = session or self.attached.owner.session
        self.attached.hub.tell(self.method, session, *self.args(record))


def _arguments(fields: tuple[str, ...] | None) -> Callable[[Any], tuple[Any, ...]]:
    """What a record's Observer call is given after the session: the record itself (None),
    or these fields of it."""
    if fields is None:
        return lambda record: (record,)
    if not fields:
        return lambda record: ()
    picked = attrgetter(*fields)
    return (lambda record: (picked(record),)) if len(fields) == 1 else picked

"""Observers: what watches a run from the side (the audit log, session persistence, the CLI's view).

    handle = agent.observe(MyObserver())     # from now on; handle.remove() stops it
    with agent.observe(MyObserver()): ...    # or for a block

An ``Observer`` has one method per thing the agent does, each given the session it happened
in; the base class does nothing for any of them, so a subclass overrides only what it wants.
Observers are called in the order they were added, on the agent's own task, and cannot change
the run: what they return is ignored. Observers are subscribers of the agent's stream
(``hookline._agent.told``), for what some observer overrides: an agent nobody watches pays nothing.

When one raises, the run goes on: the error is logged (logger ``hookline._agent.observers``)
and the other observers still hear of it, unless the observer says ``fail_closed = True``.
Then its exception stops the run where it was raised. The audit log is one: a tool start it
cannot record stops the call before the body runs. Session persistence is another: a pause
that cannot be saved must not look saved.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, TypeAlias

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._agent.messages import Message
    from hookline._agent.result import RunResult
    from hookline._agent.saved.pause import Claimed, Resumer
    from hookline._agent.saved.state import Turn
    from hookline._agent.session import Session
    from hookline._events import HookEvent
    from hookline._hooks.engine import HookRun
    from hookline._tools.approvals import Approval, ApprovalRequest
    from hookline._tools.base import ToolResult
    from hookline._tools.pipeline import ToolStarted

    #: What ``agent.watch`` passes its function.
    Progress: TypeAlias = HookEvent | HookRun | ToolStarted | ToolResult | Message


class Observer:
    """Told of everything an agent does; override the methods for what you want to see."""

    #: True: an exception from this observer stops the run. False: it is logged, the run goes on.
    fail_closed: ClassVar[bool] = False
    #: The events ``event`` is told of even when no hook listens to them, by name; None: every
    #: event. An event no hook listens to and no observer wants is never built; one with hooks
    #: is told to every observer.
    events: ClassVar[frozenset[str] | None] = None

    def event(self, session: Session, event: HookEvent) -> None:
        """An event is dispatched (before its hooks run)."""

    def hook_run(self, session: Session, run: HookRun) -> None:
        """One hook answered (or failed)."""

    def tool_started(self, session: Session, started: ToolStarted) -> None:
        """A call's body is about to run, with this input; it runs once every observer returns."""

    def tool_finished(self, session: Session, result: ToolResult) -> None:
        """What came of a call: ran, failed, refused or deferred."""

    def approval_asked(self, session: Session, request: ApprovalRequest) -> None:
        """A call needs approval: PermissionRequest hooks, then the approver, are asked."""

    def approval_answered(
        self, session: Session, request: ApprovalRequest, answer: Approval
    ) -> None:
        """Someone (a hook, a person, an approver, a resume) answered an approval request."""

    def model_called(self, session: Session, reply: Message, model: str) -> None:
        """A model call returned ``reply`` (its ``usage``, when the model reported it)."""

    def message(self, session: Session, message: Message) -> None:
        """A message joined the conversation (a prompt, a reply, tool results, a hook's note)."""

    def checkpoint(self, session: Session, turn: Turn) -> None:
        """With ``checkpoint=True`` (and in a turn a resume took up): a step is done (a batch
        is about to run, a call's body is about to run, or a call finished); a crashed run can
        go on from here."""

    def paused(self, session: Session, turn: Turn) -> None:
        """The run stops with calls waiting for an answer (``turn.waiting``)."""

    def resumed(self, session: Session, claimed: Claimed, by: Resumer) -> None:
        """A paused (or crashed) session was claimed and rebuilt; nothing of it has run yet.
        With ``fail_closed``, raising gives the claim back."""

    def run_ended(self, session: Session, turn: Turn, result: RunResult) -> None:
        """A run (``run`` or ``resume``) returns ``result``."""

    def closed(self, session: Session) -> None:
        """The agent closed (SessionEnd fired, background hooks done): write out what waits.
        The agent may run again afterwards."""


#: The methods of ``Observer``, each a kind of thing observed.
KINDS = tuple(
    name
    for name in vars(Observer)
    if not name.startswith("_") and name not in ("fail_closed", "events")
)


class Handle:
    """Stops one observer: ``remove()``, calling it, or leaving its ``with`` block."""

    __slots__ = ("_remove",)

    def __init__(self, remove: Callable[[], None]) -> None:
        self._remove = remove

    def remove(self) -> None:
        """Stop; a second call does nothing."""
        self._remove()

    def __call__(self) -> None:
        self._remove()

    def __enter__(self) -> Handle:
        return self

    def __exit__(self, *exc: object) -> None:
        self._remove()


def overrides(observer: Observer, kind: str) -> bool:
    """Whether ``observer`` has its own ``kind`` method (the base class's does nothing)."""
    return getattr(type(observer), kind) is not getattr(Observer, kind)


class FunctionObserver(Observer):
    """``agent.watch(fn)``: ``fn`` called with each event, hook run, tool start and result, and
    message, as it happens (the CLI's text and stream-json views)."""

    def __init__(self, fn: Callable[[Progress], None]) -> None:
        self.fn = fn

    def __repr__(self) -> str:
        return f"FunctionObserver({self.fn!r})"

    def event(self, session: Session, event: HookEvent) -> None:
        self.fn(event)

    def hook_run(self, session: Session, run: HookRun) -> None:
        self.fn(run)

    def tool_started(self, session: Session, started: ToolStarted) -> None:
        self.fn(started)

    def tool_finished(self, session: Session, result: ToolResult) -> None:
        self.fn(result)

    def message(self, session: Session, message: Message) -> None:
        self.fn(message)


#: ``factory(agent)``: the audit log ``audit=True`` plugs into an agent (the runtime's; by
#: default ``hookline.audit``'s, in the plug-in layer beside the agent's).
AuditFactory = Callable[["Agent"], Observer]


#: ``factory(agent)``: the tracing observer, or None when nothing asks for traces (by default
#: ``hookline.telemetry``'s, which reads the ``OTEL_*`` variables).
TracingFactory = Callable[["Agent"], Observer | None]


def audit_log(agent: Agent, factory: AuditFactory) -> Observer:
    """The audit log for ``agent`` (``audit=True``), made by ``factory`` (its runtime's)."""
    return factory(agent)

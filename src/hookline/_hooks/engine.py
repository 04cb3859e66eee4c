"""The hook engine: select -> run -> merge, telling its stream what it does.

``dispatch(event)`` picks the hooks registered for the event whose matcher accepts it, runs the
transformers one after another (each sees the previous rewrite), then the gates concurrently on
the transformed event, merges every answer with ``decisions.merge``, and finally shows the result
to the observers. A hook that raises (anything, ``SystemExit`` included), times out or answers
nonsense is isolated: its failure is recorded on its ``HookRun`` with a kind and, for a
fail-closed hook, becomes a deny. Only the cancellation of the run itself goes through.

Every hook runs one way, and that way is the hook layer's one fast path: its runner's
``start`` goes as far as its first wait inside the dispatch (``run_eagerly``), so a hook that
answers at once (a plain function, an ``async`` callback that never awaits) costs no task and
no timer, and its timeout is checked when it returns; only a hook that waits (a thread, a
process, a request) is awaited, under what is left of its timeout. Observers that are not
``inline`` are fire-and-forget: ``drain()`` waits for them.
Background hooks (``HookRunner.background``: ``async`` command hooks) are such observers whose
finished runs wait in ``take_late()`` for the loop to tell the model, and which
``stop_background()`` cancels (recorded with failure ``cancelled``) when the session ends.

The engine tells the stream it was made with (``hookline._support.stream``) of each event it
dispatches (``EventDispatched``, before its hooks run) and each hook run (``HookRun``, as it
finishes), when someone subscribed to that kind: the audit log, the command line, a run's
result. What its hooks answer is the separate, deciding channel.

A dispatch may give its hooks one shared ``budget`` of seconds (SessionEnd's): each hook gets
what is left of it, at most its own timeout, and one still running when it is spent is stopped
(a command hook's process group killed) and recorded as a ``timeout`` that names the budget.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Coroutine, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Any

from hookline._decisions import NO_DECISION, Decision
from hookline._errors import HookFailure, InvalidHookOutput
from hookline._hooks import failures
from hookline._hooks.budget import Budget
from hookline._hooks.merging import decide, rewritten
from hookline._hooks.registry import HookRegistry, once_each
from hookline._hooks.runners import is_answer
from hookline._support.stream import Stream

if TYPE_CHECKING:
    from hookline._events import HookEvent, Scope
    from hookline._hooks.spec import HookSpec

#: When a hook started (``perf_counter``), the seconds it may take, and the dispatch's budget.
_Clock = tuple[float, float, "Budget | None"]


@dataclass(frozen=True, slots=True)
class EventDispatched:
    """A stream record: ``event`` is dispatched, before its hooks run."""

    event: HookEvent


@dataclass(slots=True)
class HookRun:
    """What one hook did for one event: the record the CLI prints and the audit keeps."""

    event: str
    hook: str
    source: str
    kind: str
    answer: Decision
    duration_ms: float
    failure: str | None = None
    error: str | None = None
    tool_use_id: str | None = None
    handler: str = "python"
    #: The traceback of the exception a hook raised (failure "exception"), for ``-v``; not in
    #: ``to_dict``: it names the hook's files and lines, which the audit and JSON output leave out.
    traceback: str | None = None
    #: The subagent whose event it was (``HookEvent.agent_id``); None in the main conversation.
    agent_id: str | None = None
    #: A shadow hook's run: what it answered would have decided, and decided nothing.
    shadow: bool = False

    @property
    def decision(self) -> str | None:
        return self.answer.label

    @property
    def reason(self) -> str | None:
        return self.answer.reason or self.answer.stop_reason

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "hook": self.hook,
            "source": self.source,
            "kind": self.kind,
            "handler": self.handler,
            "tool_use_id": self.tool_use_id,
            "decision": self.decision,
            "reason": self.reason,
            "duration_ms": round(self.duration_ms, 3),
            "failure": self.failure,
            "error": self.error,
            "additional_context": list(self.answer.additional_context),
            "system_message": list(self.answer.system_message),
            **({"shadow": True} if self.shadow else {}),
        }


@dataclass(frozen=True, slots=True)
class Dispatch:
    """The outcome of one event: the merged decision, and the event as the gates saw it."""

    event: HookEvent
    decision: Decision
    runs: tuple[HookRun, ...] = ()

    @property
    def live(self) -> tuple[HookRun, ...]:
        """The runs whose answers count: all but shadow hooks' (which are recorded, and decide
        nothing). Whatever reads an answer from a run (a block's feedback, a rewrite) reads
        these."""
        return tuple(run for run in self.runs if not run.shadow)

    @property
    def decided_by(self) -> str | None:
        """The hooks whose answers carry the outcome (the winning permission, or a stop)."""
        decision = self.decision
        names = [
            r.hook
            for r in self.live
            if r.kind != "observer"
            and (
                (decision.permission and r.answer.permission == decision.permission)
                or (not decision.continue_ and not r.answer.continue_)
            )
        ]
        return ", ".join(dict.fromkeys(names)) or None


class HookEngine:
    """Dispatches events to the hooks of a registry.

    ``resources``: what the engine's owner lends the hooks it runs, handed to each runner's
    ``run_with`` (an agent lends its HTTP pool and MCP servers: ``hookline._hooks.resources``).
    The owner closes them, never the engine; an engine given none lends nothing, and such a
    runner makes what it needs for the one call.

    ``stream``: where it tells what it does (``EventDispatched``, ``HookRun``); a new one of
    its own when none is given."""

    def __init__(
        self,
        registry: HookRegistry | None = None,
        *,
        resources: object = None,
        stream: Stream | None = None,
    ) -> None:
        self.registry = registry if registry is not None else HookRegistry()
        self.resources = resources
        self.stream = stream if stream is not None else Stream()
        self._background: set[asyncio.Task[HookRun]] = set()
        #: Finished runs of background hooks, with their events, not yet shown to the model.
        self._late: list[tuple[HookEvent, HookRun]] = []
        #: The background hooks' tasks still running, for ``stop_background``.
        self._stoppable: set[asyncio.Task[HookRun]] = set()

    def listens(self, event: str) -> bool:
        """Whether dispatching ``event`` could matter: a hook or a subscriber to
        ``EventDispatched`` wants it (one with ``record_names``, only an event it names)."""
        return bool(self.registry.plan(event).specs) or self.stream.hears(EventDispatched, event)

    async def fire(self, scope: Scope, kind: type[HookEvent], **fields: Any) -> Dispatch | None:
        """Dispatch a ``kind`` event of ``scope`` with ``fields``; None, without building it,
        when nothing listens (``listens``): building a validated, frozen event is most of
        what an unheard one costs, and the loop and the tool pipeline fire several a call."""
        if not self.listens(kind.name):
            return None
        return await self.dispatch(scope.event(kind, **fields))

    async def dispatch(self, event: HookEvent, *, budget: float | None = None) -> Dispatch:
        """Run the hooks that match ``event`` and merge their answers; ``budget``: seconds
        they share, observers started in the background included."""
        self.stream.tell(EventDispatched, event)
        plan = self.registry.plan(event.name)
        if not plan.specs:
            return Dispatch(event, NO_DECISION)
        if plan.keyed:
            plan = once_each(plan, event)
        shared = None if budget is None else Budget.of(budget)
        runs: list[HookRun] = []
        answers: list[Decision] = []
        seen = event
        picks, exact = plan.matching(event), plan.exact
        for spec in picks.transformers:
            if exact or _wants(spec, event):
                run = await self._run(spec, seen, shared)
                runs.append(run)
                if not run.shadow:
                    seen = rewritten(seen, run.answer)
                    answers.append(run.answer.without_rewrites())
        gates = picks.gates if exact else [s for s in picks.gates if _wants(s, event)]
        if gates:
            for run in await self._run_gates(gates, seen, shared):
                runs.append(run)
                if not run.shadow:  # recorded, and nothing more
                    answers.append(run.answer)
        decision = decide(answers, event, seen) if answers else NO_DECISION
        observers = picks.observers if exact else [s for s in picks.observers if _wants(s, event)]
        if observers:
            runs.extend(await self._observe(observers, rewritten(seen, decision), shared))
        return Dispatch(seen, decision, tuple(runs))

    async def drain(self) -> None:
        """Wait for the fire-and-forget observers still running."""
        while self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    def take_late(self) -> list[tuple[HookEvent, HookRun]]:
        """The runs of background hooks finished since the last call, with their events."""
        late, self._late = self._late, []
        return late

    async def stop_background(self) -> None:
        """Cancel the background hooks still running (their process groups are killed); each
        is recorded with failure ``cancelled``."""
        await asyncio.sleep(0)  # hooks started just now get going, so each records its end
        running = list(self._stoppable)
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    async def _run_gates(
        self, gates: Sequence[HookSpec], event: HookEvent, budget: Budget | None
    ) -> list[HookRun]:
        """The gates in turn while each answers at once; the first that has to wait goes on in
        this task, the task it started in (a hook's cancel scopes and timeouts belong to one),
        while the gates after it run concurrently, each in a task of its own."""
        runs: list[HookRun] = []
        for index, spec in enumerate(gates):
            started = self._start(spec, event, budget)
            if not isinstance(started, HookRun):
                rest = asyncio.gather(*(self._run(s, event, budget) for s in gates[index + 1 :]))
                try:
                    runs.append(await started)
                except BaseException:
                    rest.cancel()
                    raise
                return runs + await rest
            runs.append(started)
        return runs

    async def _observe(
        self, observers: Sequence[HookSpec], event: HookEvent, budget: Budget | None
    ) -> list[HookRun]:
        runs = []
        for spec in observers:
            if spec.runner.inline:
                started = self._start(spec, event, budget)
                runs.append(started if isinstance(started, HookRun) else await started)
            else:
                task = asyncio.ensure_future(self._in_background(spec, event, budget))
                self._background.add(task)
                task.add_done_callback(self._background.discard)
                if spec.runner.background:
                    self._stoppable.add(task)
                    task.add_done_callback(self._stoppable.discard)
        return runs

    async def _in_background(
        self, spec: HookSpec, event: HookEvent, budget: Budget | None
    ) -> HookRun:
        """Run a fire-and-forget observer; a background hook's run is kept for ``take_late``,
        or, cancelled by ``stop_background``, recorded as ``cancelled``."""
        if not spec.runner.background:
            return await self._run(spec, event, budget)
        start = perf_counter()
        try:
            run = await self._run(spec, event, budget)
        except asyncio.CancelledError:
            return self._record(spec, event, start, failures.Cancelled())
        if not run.shadow:  # what a shadow hook says is recorded, never told to the model
            self._late.append((event, run))
        return run

    async def _run(self, spec: HookSpec, event: HookEvent, budget: Budget | None = None) -> HookRun:
        """Run one hook, isolated: whatever it does becomes a HookRun, never an exception."""
        started = self._start(spec, event, budget)
        return started if isinstance(started, HookRun) else await started

    def _start(
        self, spec: HookSpec, event: HookEvent, budget: Budget | None
    ) -> HookRun | Coroutine[Any, Any, HookRun]:
        """Run one hook up to its first wait: its HookRun if it answered by then (an ``async``
        hook that never waits too: ``run_eagerly``), else what to await for the rest."""
        start, runner = perf_counter(), spec.runner
        limit = spec.timeout if budget is None else budget.limit(spec.timeout)
        try:
            answer: Any = runner.start(event, self.resources)
            if not is_answer(answer):
                return self._finish(spec, event, (start, limit, budget), answer)
            if perf_counter() - start > limit:
                raise TimeoutError  # answered at once, too late (``HookRunner``)
        except BaseException as exc:
            return self._failed(spec, event, (start, limit, budget), exc)
        return self._record(spec, event, start, None, answer)

    async def _finish(
        self, spec: HookSpec, event: HookEvent, clock: _Clock, pending: Any
    ) -> HookRun:
        """Await the rest of a hook that had to wait, within what is left of its time."""
        start, limit, _ = clock
        try:
            answer = await _within(limit - (perf_counter() - start), pending)
        except BaseException as exc:
            return self._failed(spec, event, clock, exc)
        return self._record(spec, event, start, None, answer)

    def _failed(
        self, spec: HookSpec, event: HookEvent, clock: _Clock, exc: BaseException
    ) -> HookRun:
        """The run of a hook that raised, timed out or answered nonsense; the cancellation of
        the run itself goes on up."""
        start, limit, budget = clock
        if failures.run_cancelled(exc):  # else a hook's bug, even sys.exit(), must never end it
            raise exc
        late = budget.spent(event) if budget and limit < spec.timeout else None
        failed = failures.failure(exc, timeout=late or f"did not answer within {spec.timeout:g}s")
        trace = None if isinstance(exc, HookFailure | TimeoutError) else failures.trace(exc)
        return self._record(spec, event, start, failed, trace=trace)

    def _record(
        self,
        spec: HookSpec,
        event: HookEvent,
        start: float,
        failure: HookFailure | None,
        answer: Decision | None = None,
        *,
        trace: str | None = None,
    ) -> HookRun:
        if failure is not None:
            answer = failures.refusal(spec, event, failure)
        run = HookRun(
            event.name,
            spec.name,
            spec.source,
            spec.kind,
            answer or NO_DECISION,
            (perf_counter() - start) * 1000,
            None if failure is None else failure.kind,
            None if failure is None else str(failure),
            getattr(event, "tool_use_id", None),
            spec.runner.handler,
            trace,
            event.agent_id,
            spec.shadow,
        )
        self.stream.emit(run)
        return run


def _wants(spec: HookSpec, event: HookEvent) -> bool:
    """Whether ``spec``'s matcher takes ``event``: asked now unless it reads only the match
    value (``Plan.matching`` asked it already)."""
    return spec.matcher.by_name or spec.matcher(event)


async def _within(seconds: float, pending: Awaitable[Any]) -> Decision | None:
    """The answer ``pending`` gives within ``seconds``; anything else is invalid."""
    if not inspect.isawaitable(pending):
        raise InvalidHookOutput(f"answered {type(pending).__name__}, not a Decision")
    async with asyncio.timeout(seconds):
        answer = await pending
    if not is_answer(answer):
        raise InvalidHookOutput(f"answered {type(answer).__name__}, not a Decision")
    return answer

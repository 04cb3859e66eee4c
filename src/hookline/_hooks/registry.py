"""The hook registry: register, unregister, and list hooks per event in declared order."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypeVar

from hookline._errors import ConfigError
from hookline._events import event_class
from hookline._hooks.runners import HookRunner, PythonHook, SdkCallbackHook
from hookline._hooks.sdk_matchers import HookMatcher
from hookline._hooks.spec import (
    KINDS,
    PYTHON_HOOK_TIMEOUT,
    FailurePolicy,
    HookKind,
    HookSpec,
    default_failure,
)
from hookline._matchers import Matcher, as_matcher

if TYPE_CHECKING:
    from hookline._events import HookEvent

F = TypeVar("F", bound=Callable[..., Any])

#: The SDK's ``on_failure`` in hookline's words; unset keeps the default policy.
_SDK_FAILURE: Final[dict[str, FailurePolicy]] = {"block": "closed", "continue": "open"}


#: How many match values a plan keeps the picks of (``Plan.matching``): tool names, mostly.
_PICKS_KEPT: Final = 256


class Picks(NamedTuple):
    """A plan's hooks of each kind, in declared order, less those whose ``by_name`` matcher
    turns down one match value; the others' matchers are still to be asked (``Plan.exact``)."""

    transformers: tuple[HookSpec, ...]
    gates: tuple[HookSpec, ...]
    observers: tuple[HookSpec, ...]


class Plan(NamedTuple):
    """The hooks of one event in declared order, and the same split by kind."""

    specs: tuple[HookSpec, ...]
    gates: tuple[HookSpec, ...]
    transformers: tuple[HookSpec, ...]
    observers: tuple[HookSpec, ...]
    #: Whether some hook has a dedupe key (then the engine runs each key once).
    keyed: bool = False
    #: Whether every hook's matcher is ``by_name``: then ``matching`` gives the hooks to run.
    exact: bool = True
    #: ``matching``'s answers by event class and match value, kept while the plan is.
    picks: dict[tuple[type, str | None], Picks] | None = None

    def matching(self, event: HookEvent) -> Picks:
        """The hooks that ``event``'s match value lets run, by kind: their ``by_name``
        matchers are asked once per value (``hookline._matchers``), any other for each event."""
        key = (type(event), event.match_value())
        picks = self.picks
        found = None if picks is None else picks.get(key)
        if found is None:
            found = Picks(
                _by_name(self.transformers, event),
                _by_name(self.gates, event),
                _by_name(self.observers, event),
            )
            if picks is not None and len(picks) < _PICKS_KEPT:
                picks[key] = found
        return found


def plan_of(specs: tuple[HookSpec, ...]) -> Plan:
    """``specs`` (in declared order) split by kind."""
    gates, transformers, observers = (tuple(s for s in specs if s.kind == k) for k in KINDS)
    keyed = any(s.runner.key is not None for s in specs)
    exact = all(s.matcher.by_name for s in specs)
    return Plan(specs, gates, transformers, observers, keyed, exact, {})


def _by_name(specs: tuple[HookSpec, ...], event: HookEvent) -> tuple[HookSpec, ...]:
    return tuple(s for s in specs if not s.matcher.by_name or s.matcher(event))


_NO_HOOKS = Plan((), (), (), ())


class Registration:
    """The handle ``add`` returns. Calling it (or ``remove()``) unregisters the hook, once."""

    __slots__ = ("_registry", "spec")

    def __init__(self, registry: HookRegistry, spec: HookSpec) -> None:
        self._registry = registry
        self.spec = spec

    def remove(self) -> None:
        self._registry.discard(self.spec)

    __call__ = remove

    def __repr__(self) -> str:
        return f"<Registration {self.spec.event} {self.spec.name}>"


class HookRegistry:
    """Holds hooks by event. ``specs(event)`` lists them in declared order, cached."""

    def __init__(self) -> None:
        self._specs: list[HookSpec] = []
        self._seq = itertools.count()
        self._plans: dict[str, Plan] = {}
        self._source = "python"
        self._shadow = False

    def add(
        self,
        event: str,
        hook: Callable[..., Any] | HookRunner,
        *,
        matcher: str | Matcher | None = None,
        kind: HookKind = "gate",
        timeout: float | None = None,
        failure: FailurePolicy | None = None,
        priority: int = 0,
        name: str | None = None,
        source: str | None = None,
        threaded: bool = False,
        shadow: bool = False,
    ) -> Registration:
        """Register ``hook`` for ``event``; returns a handle that unregisters it. A sync function
        given a ``timeout`` runs in a worker thread, so the timeout applies (``PythonHook``).
        ``shadow``: it runs and is recorded, and decides nothing (``HookSpec.shadow``).
        Without one it gets the event's default where the event has one (SessionEnd 1.5 s,
        UserPromptSubmit 30 s, as every hook there in Claude Code), else 60 s."""
        default = event_class(event, key="event").facts.timeout or PYTHON_HOOK_TIMEOUT
        threaded = threaded or timeout is not None
        runner = hook if isinstance(hook, HookRunner) else PythonHook(hook, threaded=threaded)
        _check_options(kind, timeout, failure)
        spec = HookSpec(
            event=event,
            runner=runner,
            matcher=as_matcher(matcher),
            name=name or runner.describe(),
            kind=kind,
            timeout=default if timeout is None else float(timeout),
            failure=failure or default_failure(event, kind, in_process=runner.in_process),
            priority=priority,
            source=source or self._source,
            seq=next(self._seq),
            shadow=shadow or self._shadow,
        )
        self._specs.append(spec)
        self._plans.pop(event, None)
        return Registration(self, spec)

    def on(self, event: str, **options: Any) -> Callable[[F], F]:
        """Decorator form of ``add``: ``@registry.on("PreToolUse", matcher="Bash")``."""

        def register(fn: F) -> F:
            self.add(event, fn, **options)
            return fn

        return register

    def add_matchers(
        self,
        hooks: Mapping[str, Sequence[HookMatcher]],
        *,
        source: str | None = None,
        file: str | None = None,
    ) -> list[Registration]:
        """Register a Claude Agent SDK ``hooks=`` mapping: event -> [HookMatcher(...)]."""
        if not isinstance(hooks, Mapping):
            raise ConfigError(
                f"HOOKS must be a dict of event name -> list of HookMatcher, "
                f"not {type(hooks).__name__}",
                file=file,
                key="HOOKS",
                fix='write HOOKS = {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[fn])]}',
            )
        pending = [
            (event, group, index)
            for event, groups in hooks.items()
            for index, group in enumerate(_groups(event, groups, file))
        ]
        made: list[Registration] = []
        for event, group, index in pending:
            key = f"HOOKS[{event!r}][{index}]"
            event_class(event, file=file, key=f"HOOKS[{event!r}]")
            matcher = as_matcher(group.matcher, file=file)
            failure = _SDK_FAILURE.get(group.on_failure or "")
            for fn in group.hooks:
                if not callable(fn):
                    raise ConfigError(
                        f"hooks entry {fn!r} is not callable",
                        file=file,
                        key=key,
                        fix="list async functions: hooks=[my_hook]",
                    )
                runner = SdkCallbackHook(fn, strict=group.on_failure == "block")
                made.append(
                    self.add(
                        event,
                        runner,
                        matcher=matcher,
                        timeout=group.timeout,
                        failure=failure,
                        source=source,
                    )
                )
        return made

    @contextlib.contextmanager
    def sourced(self, source: str) -> Iterator[None]:
        """Hooks added inside this block are attributed to ``source`` (a file, a settings layer)."""
        outer, self._source = self._source, source
        try:
            yield
        finally:
            self._source = outer

    @contextlib.contextmanager
    def shadowed(self) -> Iterator[None]:
        """Hooks added inside this block are shadow hooks (``HookSpec.shadow``)."""
        outer, self._shadow = self._shadow, True
        try:
            yield
        finally:
            self._shadow = outer

    def specs(self, event: str) -> tuple[HookSpec, ...]:
        """The hooks registered for ``event``, in declared order (priority, then registration)."""
        return self.plan(event).specs

    def plan(self, event: str) -> Plan:
        """The hooks for ``event`` in declared order, split by kind (cached until a change)."""
        found = self._plans.get(event)
        if found is None:
            specs = tuple(sorted((s for s in self._specs if s.event == event), key=_sort_key))
            found = plan_of(specs) if specs else _NO_HOOKS
            self._plans[event] = found
        return found

    def __iter__(self) -> Iterator[HookSpec]:
        return iter(sorted(self._specs, key=lambda s: (s.event, -s.priority, s.seq)))

    def __len__(self) -> int:
        return len(self._specs)

    def discard(self, spec: HookSpec) -> None:
        """Unregister ``spec`` (nothing if it is not registered)."""
        if spec in self._specs:
            self._specs.remove(spec)
            self._plans.pop(spec.event, None)


def _sort_key(spec: HookSpec) -> tuple[int, int]:
    return spec.sort_key


def _check_options(kind: str, timeout: float | None, failure: str | None) -> None:
    if kind not in KINDS:
        raise ConfigError(f"unknown hook kind {kind!r}", key="kind", fix=f"use one of {KINDS}")
    if timeout is not None and not timeout > 0:
        raise ConfigError(
            f"timeout must be a positive number of seconds, got {timeout!r}",
            key="timeout",
            fix="write timeout=5 for five seconds",
        )
    if failure not in (None, "open", "closed"):
        raise ConfigError(
            f"unknown failure policy {failure!r}", key="failure", fix="use 'closed' or 'open'"
        )


def _groups(event: str, groups: Any, file: str | None) -> Sequence[HookMatcher]:
    if not isinstance(groups, (list, tuple)) or not all(isinstance(g, HookMatcher) for g in groups):
        raise ConfigError(
            "must be a list of HookMatcher",
            file=file,
            key=f"HOOKS[{event!r}]",
            fix=f'write HOOKS = {{"{event}": [HookMatcher(matcher=..., hooks=[fn])]}}',
        )
    return groups


def once_each(plan: Plan, event: HookEvent) -> Plan:
    """The plan without repeats: of matching hooks that share a runner key, the first runs."""
    seen: set[object] = set()
    kept: list[HookSpec] = []
    for spec in plan.specs:
        key = spec.runner.key
        if key is not None and spec.matcher(event):
            if key in seen:
                continue
            seen.add(key)
        kept.append(spec)
    return plan if len(kept) == len(plan.specs) else plan_of(tuple(kept))  # mostly no repeat

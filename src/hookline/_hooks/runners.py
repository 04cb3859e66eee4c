"""How a hook is run. One small base class per kind of handler; the engine treats them alike.

``PythonHook`` runs a callable that takes the event object. ``SdkCallbackHook`` runs a Claude
Agent SDK callback ``(input_data, tool_use_id, context) -> dict`` unchanged; ``call_shape``
tells the two apart by signature. Command and HTTP runners (the Claude Code protocol) live
beside these and follow the same interface.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeGuard

from hookline._decisions import Decision
from hookline._errors import InvalidHookOutput
from hookline._events import HookEvent
from hookline._hooks.protocol import decision_from_output
from hookline._support.eager import Rest, run_eagerly
from hookline._support.threads import in_thread

#: Modules imported from ``--hooks`` files get this name prefix.
HOOK_FILE_MODULE_PREFIX = "hookline_hooks_"


class HookRunner:
    """Runs one hook for one event and returns its answer (None: no opinion).

    The engine runs ``run`` up to its first wait in the dispatch itself, and awaits the rest,
    if any, under the hook's timeout, which stops waiting for it. An answer given without
    waiting is already late when its hook overran its timeout: it then counts as a timeout,
    but nothing could stop the hook while it ran.
    """

    #: Answers without waiting, on the event loop (a plain function): as an observer it runs
    #: in the dispatch, where any other observer is started in a task of its own.
    inline: bool = False
    #: In-process hooks get the SDK's fail-closed default on gate events.
    in_process: bool = True
    #: What kind of handler this is, for records and wording: python, sdk, command, http, ...
    handler: str = "python"
    #: Matching hooks with the same non-None key run once per event (Claude Code dedupes
    #: identical commands across groups and settings files).
    key: object = None
    #: Runs in the background (Claude Code's ``async`` command hooks): registered as an
    #: observer, its answer decides nothing, its context reaches the model at its next call
    #: (``HookEngine.take_late``) and the session's end stops it (``HookEngine.stop_background``).
    background: bool = False

    async def run(self, event: HookEvent) -> Decision | None:
        raise NotImplementedError

    def run_with(self, event: HookEvent, resources: object) -> Awaitable[Decision | None]:
        """How an engine runs it: ``run``, given ``resources``, what the engine's owner lends
        the hooks it runs (``HookEngine(resources=...)``; an agent's HTTP pool and MCP servers).
        A runner that sends through such connections (HTTP, ``mcp_tool``) takes them from
        there, so it reaches only the connections of the agent whose engine runs it."""
        return self.run(event)

    def start(self, event: HookEvent, resources: object) -> Decision | Awaitable[Any] | None:
        """``run_with`` up to its first wait (``run_eagerly``): the answer if it came by then,
        else what to await for the rest. What the first step raises is raised here."""
        return run_eagerly(self.run_with(event, resources))

    def describe(self) -> str:
        """What runs, for people: a function's qualified name, a command line, a URL."""
        return type(self).__name__


class PythonHook(HookRunner):
    """A Python callable ``hook(event) -> Decision | dict | None``, sync or async.

    Where it runs decides whether its timeout can stop it:

    - ``async`` functions run on the event loop, awaited under the timeout (a cancellation).
    - ``threaded`` sync functions run in a worker thread of their own, awaited under the
      timeout. On timeout the run moves on (a fail-closed gate denies) and the thread is left
      to finish; nothing can kill it. ``HookRegistry.add`` makes a sync function threaded when
      it is given a ``timeout``, and so do settings handlers with a ``"timeout"`` key.
    - Other sync functions run inline, on the event loop, as a plain call. The default
      timeout is not a declared one: it is checked when the function returns, so a late
      answer becomes a timeout, but a function that never returns holds up the run.
    """

    def __init__(self, fn: Callable[[HookEvent], Any], *, threaded: bool = False) -> None:
        self.fn = fn
        self.is_async = _is_async(fn)
        self.threaded = threaded and not self.is_async
        self.inline = not (self.is_async or self.threaded)
        #: A plain function run as ``run`` runs it: ``start`` calls it itself, with no coroutine
        #: around it (a subclass with a ``run`` or ``run_with`` of its own keeps them).
        self._plain = self.inline and _own_run(self, PythonHook)

    async def run(self, event: HookEvent) -> Decision | None:
        result = await in_thread(self.fn, event) if self.threaded else self.fn(event)
        if is_answer(result):
            return result
        if inspect.isawaitable(result):  # a plain function that returned a coroutine
            result = await result
        return _answer(event, result)

    def start(self, event: HookEvent, resources: object) -> Decision | Awaitable[Any] | None:
        """A plain function's answer, as ``run`` reads it, without making ``run``'s coroutine."""
        if not self._plain:
            return run_eagerly(self.run_with(event, resources))
        result = self.fn(event)
        if is_answer(result):
            return result
        if inspect.isawaitable(result):  # a plain function that returned a coroutine
            return run_eagerly(_answer_when(event, result))
        return _answer(event, result)

    def describe(self) -> str:
        return _qualname(self.fn)


def is_answer(value: object) -> TypeGuard[Decision | None]:
    """Whether a runner gave its answer (None or a Decision) rather than something to await."""
    return value is None or type(value) is Decision


class SdkCallbackHook(HookRunner):
    """A Claude Agent SDK hook callback, run unchanged on the event's protocol payload.

    ``strict`` is the SDK's ``on_failure="block"``: then returning None is a failure too, so a
    callback with no opinion must return ``{}``. ``threaded``: a sync callback runs in a worker
    thread of its own, as a threaded ``PythonHook`` does, so that its timeout applies.
    """

    handler = "sdk"

    def __init__(
        self, fn: Callable[..., Any], *, strict: bool = False, threaded: bool = False
    ) -> None:
        self.fn = fn
        self.strict = strict
        self.threaded = threaded and not _is_async(fn)  # as ``PythonHook``: a timeout applies
        self.inline = False
        #: Called on the event loop, as ``run`` calls it: ``start`` steps the callback's own
        #: coroutine, with none of ``run``'s around it.
        self._plain = not self.threaded and _own_run(self, SdkCallbackHook)

    async def run(self, event: HookEvent) -> Decision | None:
        args = (event.to_payload(), getattr(event, "tool_use_id", None), {"signal": None})
        result = await in_thread(self.fn, *args) if self.threaded else self.fn(*args)
        if inspect.isawaitable(result):
            result = await result
        return self._read(event, result)

    def start(self, event: HookEvent, resources: object) -> Decision | Awaitable[Any] | None:
        """The callback's answer if its coroutine finishes without waiting (most do), read as
        ``run`` reads it; else what to await for the rest, and the reading."""
        if not self._plain:
            return run_eagerly(self.run_with(event, resources))
        result = self.fn(event.to_payload(), getattr(event, "tool_use_id", None), {"signal": None})
        if inspect.isawaitable(result):
            stepped = run_eagerly(result)
            if stepped is result or type(stepped) is Rest:  # it waits
                return self._read_when(event, stepped)
            result = stepped
        return self._read(event, result)

    async def _read_when(self, event: HookEvent, pending: Awaitable[Any]) -> Decision | None:
        return self._read(event, await pending)

    def _read(self, event: HookEvent, result: Any) -> Decision | None:
        if result is None:
            if self.strict:
                raise InvalidHookOutput("returned None; return {} for no opinion")
            return None
        return decision_from_output(event.name, result)

    def describe(self) -> str:
        return _qualname(self.fn)


#: How a Python function is called: with the event (``f(event)``), or as a Claude Agent SDK
#: callback (``f(input_data, tool_use_id, context)``).
CallShape = Literal["event", "sdk"]
#: Each shape and the positional arguments it is called with, in the order they are tried.
_SHAPES: tuple[tuple[CallShape, int], ...] = (("event", 1), ("sdk", 3))


def call_shape(fn: Callable[..., Any]) -> CallShape | None:
    """How ``fn`` can be called, by its signature: ``"event"`` if it takes one positional
    argument (as every Python hook was called before SDK callbacks were told apart, so such a
    function keeps working), else ``"sdk"`` if it takes three; None if neither (a mistake to
    report when the hook is loaded, not a TypeError on every call)."""
    return next((shape for shape, count in _SHAPES if takes(fn, count)), None)


def takes(fn: Callable[..., Any], count: int) -> bool:
    """Whether ``fn`` can be called with ``count`` positional arguments (and no others); a
    callable whose signature cannot be read is given the benefit of the doubt."""
    try:
        inspect.signature(fn).bind(*range(count))
    except ValueError:  # no signature to read (some builtins)
        return True
    except TypeError:
        return False
    return True


def _own_run(runner: HookRunner, kind: type[HookRunner]) -> bool:
    """Whether ``runner`` runs as ``kind`` does: no ``run`` or ``run_with`` of its own."""
    made = type(runner)
    return made.run is kind.run and made.run_with is HookRunner.run_with


async def _answer_when(event: HookEvent, pending: Awaitable[Any]) -> Decision | None:
    return _answer(event, await pending)


def _answer(event: HookEvent, result: Any) -> Decision | None:
    """Read what a Python hook returned: None, a Decision, or a protocol-shaped dict."""
    if result is None or isinstance(result, Decision):
        return result
    if isinstance(result, dict):
        return decision_from_output(event.name, result) if result else None
    raise InvalidHookOutput(
        f"returned {type(result).__name__}; return a hookline Decision, a protocol dict or None"
    )


def _is_async(fn: Callable[..., Any]) -> bool:
    call = getattr(fn, "__call__", None)  # noqa: B004 - callable objects with async __call__
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(call)


def _qualname(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    module = getattr(fn, "__module__", None) or ""
    if module in ("__main__", "builtins") or module.startswith(HOOK_FILE_MODULE_PREFIX):
        return name  # the hook's source already names its file
    return f"{module}.{name}" if module else name

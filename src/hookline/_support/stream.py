"""A typed stream of records: what happened, told to whoever subscribed to its kind.

    stream = Stream()
    stop = stream.subscribe(HookRun, runs.append)   # each HookRun from now on; stop() ends it
    stream.emit(run)                                 # a record already built: to its subscribers
    stream.tell(ToolFinished, session, result)       # built only when someone subscribed

A record is a small frozen value; its kind is its exact class. The engine, the tool pipeline,
the permission step and the agent loop are each given one stream when they are made and tell
it what they do; the audit log, session persistence, the command line's views and user
observers subscribe to it (``hookline._agent.observers``). Subscribers are called in the order
they subscribed, on the producer's own task; an exception from one goes to the producer.

This is the one fast path for work nobody watches: ``wants`` is a dictionary lookup, and
``tell`` builds no record unless a subscriber wants its kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")
#: A subscriber: called with each record of the kind it subscribed to.
Subscriber = Callable[[Any], None]


class Stream:
    """Records by kind, to the subscribers of that kind, in the order they subscribed."""

    __slots__ = ("_by",)

    def __init__(self) -> None:
        self._by: dict[type, tuple[Subscriber, ...]] = {}

    def __repr__(self) -> str:
        kinds = ", ".join(f"{kind.__name__}: {len(fns)}" for kind, fns in self._by.items())
        return f"Stream({kinds})"

    def subscribe(self, kind: type[R], fn: Callable[[R], None]) -> Callable[[], None]:
        """Call ``fn`` with each ``kind`` record from now on; returns the function that stops
        it (a second call does nothing)."""
        self._by[kind] = (*self._by.get(kind, ()), fn)
        return lambda: self._drop(kind, fn)

    def wants(self, kind: type) -> bool:
        """Whether anyone subscribed to ``kind``: a record nobody wants need not be built."""
        return kind in self._by

    def hears(self, kind: type, name: str) -> bool:
        """Whether a subscriber of ``kind`` wants a record named ``name``: one with a
        ``record_names`` collection wants those it holds, any other every record."""
        for fn in self._by.get(kind, ()):
            names = getattr(fn, "record_names", None)
            if names is None or name in names:
                return True
        return False

    def emit(self, record: object) -> None:
        """Tell the subscribers of ``record``'s kind."""
        for fn in self._by.get(type(record), ()):
            fn(record)

    def tell(self, kind: type[Any], *fields: Any) -> None:
        """Build a ``kind`` record of ``fields`` and tell its subscribers; nothing, and nothing
        built, when it has none."""
        subscribers = self._by.get(kind)
        if subscribers:
            record = kind(*fields)
            for fn in subscribers:
                fn(record)

    def _drop(self, kind: type, fn: Subscriber) -> None:
        left = list(self._by.get(kind, ()))
        if fn in left:
            left.remove(fn)
        if left:
            self._by[kind] = tuple(left)
        else:
            self._by.pop(kind, None)

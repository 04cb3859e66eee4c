"""A default a layer above plugs into the agent's, once, as the ``hookline`` package loads.

The agent names what it needs of a store opener, the audit log and a model resolver as
interfaces; the ``hookline`` package plugs its own in when it is imported (which any import of
a hookline module does first). Plugged, a default never changes: a second, different one is a
ConfigError, so no code can swap it under every agent of the process at once. One agent that
needs another is given its own (``hookline.agent.runtime.Runtime``).
"""

from __future__ import annotations

from typing import Generic, TypeVar

from hookline.errors import ConfigError

T = TypeVar("T")


class Plug(Generic[T]):
    """One default, empty until plugged, then fixed."""

    __slots__ = ("_value", "key", "what")

    def __init__(self, what: str, key: str) -> None:
        self.what, self.key = what, key
        self._value: T | None = None

    @property
    def value(self) -> T | None:
        return self._value

    def plug(self, value: T) -> None:
        """Set the default; again with the same one (a module reloaded) changes nothing."""
        if self._value is not None and not _same(self._value, value):
            raise ConfigError(
                f"the default {self.what} is plugged in once, when hookline loads, and is "
                "shared by every agent of the process",
                key=self.key,
                fix="give the agent its own: Agent(..., runtime=Runtime(...)) "
                "(hookline.agent.runtime)",
            )
        self._value = value


def _same(current: object, new: object) -> bool:
    """The same object, or the same function defined again (``importlib.reload``)."""
    if current is new:
        return True
    name = getattr(current, "__qualname__", None)
    return name is not None and (name, getattr(current, "__module__", None)) == (
        getattr(new, "__qualname__", None),
        getattr(new, "__module__", None),
    )

"""Read-only JSON values: what hooks receive as ``tool_input`` and ``tool_response``.

A hook changes a call by answering (``Decision.rewrite``, ``Decision.replace_output``), never by
mutating the event: mutation raises at once with that advice, so it can neither slip through
silently nor leak into what runs or what another hook sees. ``FrozenDict`` and ``FrozenList``
are real ``dict`` and ``list`` subclasses, so reading, ``json.dumps``, ``{**d}`` and ``dict(d)``
work as usual; copies (``copy``, ``deepcopy``, pickling, ``copy_json``) are plain and writable.
"""

from __future__ import annotations

import copy
from typing import Any, NoReturn

_ADVICE = (
    "hook events are read-only: answer Decision.rewrite(new_input) or "
    "Decision.replace_output(new_output) instead of changing the event in place"
)


def _read_only(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(_ADVICE)


class FrozenDict(dict[str, Any]):
    """A dict that refuses to change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return (dict, (dict(self),))


class FrozenList(list[Any]):
    """A list that refuses to change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _read_only
    append = extend = insert = remove = pop = clear = sort = reverse = _read_only

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce__(self) -> tuple[type[list[Any]], tuple[list[Any]]]:
        return (list, (list(self),))


def freeze(value: Any) -> Any:
    """``value`` with every dict and list in it made read-only (frozen parts are reused)."""
    kind = type(value)
    if kind is dict:
        frozen: Any = FrozenDict(value)
        for key, item in value.items():  # copied as it is; only what holds more is called for
            if type(item) in _PLAIN_CONTAINERS:
                dict.__setitem__(frozen, key, freeze(item))
        return frozen
    if kind is list:
        frozen = FrozenList(value)
        for index, item in enumerate(value):
            if type(item) in _PLAIN_CONTAINERS:
                list.__setitem__(frozen, index, freeze(item))
        return frozen
    return value


def copy_json(value: Any) -> Any:
    """A plain, writable deep copy of JSON-like data: each dict and list is new, whatever else
    it holds (strings, numbers: values nobody can change; other objects) is shared as it is."""
    if isinstance(value, dict):
        out = dict(value)
        for key, item in value.items():
            if isinstance(item, _CONTAINERS):
                out[key] = copy_json(item)
        return out
    if isinstance(value, list):
        items = list(value)
        for index, item in enumerate(value):
            if isinstance(item, _CONTAINERS):
                items[index] = copy_json(item)
        return items
    return value


_CONTAINERS = (dict, list)
#: What ``freeze`` makes read-only: exactly these (a subclass, a frozen part included, is kept).
_PLAIN_CONTAINERS = (dict, list)

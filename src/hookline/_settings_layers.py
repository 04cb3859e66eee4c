"""Settings layers: the files a project's settings come from, and which of them wins.

Claude Code reads several settings files (managed, ``--settings``, local, project, user); a
single value comes from the highest-ranked layer that sets it, lists join across layers. Every
reader of settings (hooks, permissions, the sandbox, redaction) goes through these helpers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from hookline._errors import ConfigError

#: Layer names, from the one whose single values win to the one that loses.
PRECEDENCE: Final = ("managed", "cli", "local", "project", "user")
#: "error": loading on would drop a guard (a file or hook entry that cannot load), so a run
#: stops unless lenient; "warning": harmless or not ours to judge (an unknown key, an event
#: hookline does not run yet), so a run goes on.
Severity = Literal["error", "warning"]


def suggestion(word: str, choices: Iterable[str], *, distance: int = 2) -> str | None:
    """The choice ``word`` most likely misspells: the same but for letter case, or at most
    ``distance`` edits away (letters added, dropped, changed or swapped; one edit for a choice
    of four letters or fewer); the nearest, else None. Used for settings keys and tool names."""
    lowered, best = word.casefold(), None
    for choice in sorted(choices):
        limit = min(distance, 1) if len(choice) <= 4 else distance
        if abs(len(choice) - len(word)) > limit:
            continue
        edits = _edits(lowered, choice.casefold())
        if edits <= limit and (best is None or edits < best[0]):
            best = (edits, choice)
    return None if best is None else best[1]


def _edits(a: str, b: str) -> int:
    """The optimal string alignment distance between ``a`` and ``b``."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i]
        for j, y in enumerate(b, 1):
            cost = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                cost = min(cost, rows[-2][j - 2] + 1)
            row.append(cost)
        rows.append(row)
    return rows[-1][-1]


def is_strings(value: object) -> bool:
    """Whether ``value`` is a list of strings (as settings lists must be)."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


@dataclass(frozen=True, slots=True)
class SettingsWarning:
    """A problem in one settings file that did not stop the rest from loading; its
    ``severity`` says whether a run may go on with it (set where the problem is found)."""

    file: str
    message: str
    key: str | None = None
    fix: str | None = None
    severity: Severity = "warning"

    @classmethod
    def of(
        cls, error: ConfigError, *, denying: str | None = None, severity: Severity = "warning"
    ) -> SettingsWarning:
        """``error`` as a warning; ``denying``: the key of the stand-in registered for it."""
        message = error.message
        if denying:
            message += f"; {denying} declares onFailure block, so it denies every call it sees"
        return cls(error.file or "", message, error.key, error.fix, severity)

    def error(self) -> ConfigError:
        """This problem as the ConfigError that stops a strict load."""
        return ConfigError(self.message, file=self.file, key=self.key, fix=self.fix)

    def __str__(self) -> str:
        return str(self.error())


@dataclass(frozen=True, slots=True)
class Layer:
    """One settings file (or inline ``--settings`` value), named for its precedence."""

    name: str
    path: str
    data: Mapping[str, Any]

    @property
    def source(self) -> str:
        return f"{self.name}:{self.path}"


def by_precedence(layers: Sequence[Layer]) -> list[Layer]:
    """``layers`` from the one whose single values win to the one that loses."""
    rank = {name: i for i, name in enumerate(PRECEDENCE)}
    ordered = sorted(enumerate(layers), key=lambda pair: (rank[pair[1].name], -pair[0]))
    return [layer for _, layer in ordered]


def layered(layers: Sequence[Layer], *path: str) -> Iterator[tuple[Layer, Any]]:
    """The value at ``path`` (keys into nested objects) in each layer that sets it, and the
    layer, from the highest-ranked layer to the lowest."""
    for layer in by_precedence(layers):
        value: Any = layer.data
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is not None:
            yield layer, value


def winning(layers: Sequence[Layer], *path: str, kind: type = object) -> Any:
    """The value at ``path`` in the highest-ranked layer that sets it (to a ``kind``), or None."""
    return next((value for _, value in layered(layers, *path) if isinstance(value, kind)), None)


def joined(layers: Sequence[Layer], key: str) -> tuple[str, ...] | None:
    """Every layer's list of strings for ``key``, joined without repeats; None if none sets it."""
    lists = [layer.data[key] for layer in layers if is_strings(layer.data.get(key))]
    return None if not lists else tuple(dict.fromkeys(item for items in lists for item in items))


def ceiling(layers: Sequence[Layer], key: str) -> tuple[str, ...] | None:
    """``joined`` for an allowlist that managed settings cap: when a managed layer sets ``key``,
    the managed lists alone; no other layer can widen them. Else every layer's list joined."""
    managed = [layer for layer in layers if layer.name == "managed"]
    capped = joined(managed, key)
    return capped if capped is not None else joined(layers, key)


class Layered(Protocol):
    """Anything holding settings layers (``hookline._claude.settings.Settings`` does)."""

    @property
    def layers(self) -> Sequence[Layer]: ...

"""The ``hooks`` object hosts share: ``{event: [{"matcher"?, "hooks": [handler, ...]}, ...]}``
(Claude Code's and Gemini CLI's settings both have it), and hookline's entries added to it and
taken out of it without touching anyone else's.

A host module says what its entry is (``group``, a fresh matcher group each time) and how to
tell one of hookline's handlers (``ours``); these functions do the rest, in place on the
settings read from the file, and the host module writes the file (``settings_file``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookline._errors import ConfigError
from hookline._hosts import settings_file

#: Whether a handler is one of hookline's.
Ours = Callable[[Any], bool]


@dataclass(frozen=True)
class Change:
    """What an install or uninstall did to one settings file."""

    path: Path
    #: How many entries were added (install) or taken out (uninstall).
    entries: int
    #: The copy of the file as it was before hookline first wrote it (None: there was none).
    backup: Path | None = None
    #: True when the file was left as it was: nothing to add, or nothing of hookline's in it.
    unchanged: bool = False


def add(
    settings: dict[str, Any],
    path: Path,
    events: Iterable[str],
    group: Callable[[], dict[str, Any]],
    ours: Ours,
) -> int:
    """A ``group`` for each of ``events`` that has no handler of hookline's yet; how many."""
    hooks = hooks_of(settings, path)
    added = 0
    for event in events:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise malformed(path, f"hooks.{event}", "a list of matcher groups")
        if not any(ours(handler) for handler in handlers(groups)):
            groups.append(group())
            added += 1
    if added:
        settings["hooks"] = hooks
    return added


def refresh(
    settings: dict[str, Any], path: Path, ours: Ours, fresh: Callable[[dict[str, Any]], Any]
) -> int:
    """Each handler of hookline's made ``fresh(handler)`` where that differs (an install
    again with other options: a token added); how many."""
    changed = 0
    for groups in hooks_of(settings, path).values():
        for group in groups if isinstance(groups, list) else []:
            found = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(found, list):
                continue
            for i, handler in enumerate(found):
                if ours(handler) and (made := fresh(handler)) != handler:
                    found[i] = made
                    changed += 1
    return changed


def remove(settings: dict[str, Any], path: Path, ours: Ours) -> int:
    """Take hookline's handlers out, and the groups, events and ``hooks`` left empty by that;
    how many handlers."""
    hooks = hooks_of(settings, path)
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            found = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(found, list):
                kept.append(group)
                continue
            left = [handler for handler in found if not ours(handler)]
            removed += len(found) - len(left)
            if left:
                kept.append({**group, "hooks": left})
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if hooks:
        settings["hooks"] = hooks
    else:
        settings.pop("hooks", None)
    return removed


def checked(events: Iterable[str], known: frozenset[str], host: str) -> list[str]:
    """``events`` once each, in order; a ConfigError naming any that is not one of ``known``
    (``host``'s events)."""
    wanted = list(dict.fromkeys(events))
    wrong = [event for event in wanted if event not in known]
    if wrong:
        raise ConfigError(
            f"{', '.join(wrong)}: not an event of {host}'s hooks",
            key="--events",
            fix=f"choose among {', '.join(sorted(known))}",
        )
    return wanted


def install_file(
    path: Path,
    events: Iterable[str],
    group: Callable[[], dict[str, Any]],
    ours: Ours,
    fresh: Callable[[dict[str, Any]], Any] | None = None,
) -> Change:
    """``add`` to the settings file ``path`` (made if missing), and ``refresh`` hookline's
    entries with ``fresh``; written only when it changes."""
    settings = settings_file.read(path) or {}
    added = add(settings, path, events, group, ours)
    if fresh is not None:
        added += refresh(settings, path, ours, fresh)
    if not added:
        return Change(path, 0, unchanged=True)
    return Change(path, added, settings_file.write(path, settings))


def uninstall_file(path: Path, ours: Ours) -> Change:
    """``remove`` from the settings file ``path``, restored from its backup when nothing else
    in it changed."""
    settings = settings_file.read(path)
    if settings is None:
        return Change(path, 0, unchanged=True)
    removed = remove(settings, path, ours)
    if not removed:
        return Change(path, 0, unchanged=True)
    return Change(path, removed, settings_file.restore(path, settings))


def events_with(settings: dict[str, Any], path: Path, ours: Ours) -> list[str]:
    """The events that have a handler of hookline's."""
    return [
        event
        for event, groups in hooks_of(settings, path).items()
        if isinstance(groups, list) and any(ours(handler) for handler in handlers(groups))
    ]


def hooks_of(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise malformed(path, "hooks", "an object of events")
    return hooks


def handlers(groups: list[Any]) -> Iterable[Any]:
    for group in groups:
        found = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(found, list):
            yield from found


def malformed(path: Path, key: str, wanted: str) -> ConfigError:
    return ConfigError(
        f"should be {wanted}", file=str(path), key=key, fix="mend it, then install again"
    )

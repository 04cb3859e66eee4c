"""Claude Code pointed at ``hookline serve``: its settings entries, written and taken out.

Each installed entry is an HTTP hook with no matcher (every tool), one per event, posting to the
server's ``/claude-code`` URL with ``"onFailure": "block"``: when the server cannot be reached,
answers late or fails, Claude Code blocks the call instead of running it (observed on Claude
Code 2.1.332 for an unreachable URL, a failing command and a timeout). Hooks merge across
Claude Code's settings files, so the entries are added to what the file has and nothing of the
user's is touched. An entry is hookline's when it is an HTTP hook with the installed URL; Claude
Code runs one HTTP hook per URL anyway, so installing again changes nothing, and ``uninstall``
takes out exactly those entries (and the groups and keys left empty by that).

Where the file has ``allowedHttpHookUrls`` (Claude Code's list of the URLs HTTP hooks may
post to; an empty list blocks them all), the URL is added to it. A file without one is left
without: creating the list would block the user's other HTTP hooks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Final, Literal

from hookline._claude.settings import claude_code_file
from hookline._errors import ConfigError
from hookline._hosts import settings_file

Scope = Literal["user", "project", "local", "managed"]
SCOPES: Final = ("user", "project", "local", "managed")
#: The port ``hookline serve`` listens on unless told otherwise, and its Claude Code route.
DEFAULT_PORT: Final = 8377
CLAUDE_CODE_PATH: Final = "/claude-code"
DEFAULT_URL: Final = f"http://127.0.0.1:{DEFAULT_PORT}{CLAUDE_CODE_PATH}"
#: The events installed by default: each one Claude Code lets an HTTP hook answer and hookline's
#: server decides (a gate before a tool, the permission prompt, the prompt, after a tool, the
#: end of a turn). SessionStart and Setup take command hooks only.
EVENTS: Final = (
    "PreToolUse",
    "PermissionRequest",
    "UserPromptSubmit",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
)
#: Events that accept an HTTP hook (Claude Code's documented event table).
HTTP_EVENTS: Final = frozenset(
    {
        *EVENTS,
        "InstructionsLoaded",
        "UserPromptExpansion",
        "MessageDisplay",
        "PermissionDenied",
        "PostToolBatch",
        "Notification",
        "SubagentStart",
        "TaskCreated",
        "TaskCompleted",
        "StopFailure",
        "TeammateIdle",
        "ConfigChange",
        "CwdChanged",
        "PreCompact",
        "PostCompact",
        "SessionEnd",
    }
)
#: Seconds Claude Code waits for the server: past it the call is blocked (``onFailure``).
TIMEOUT: Final = 30
_ALLOWED_URLS: Final = "allowedHttpHookUrls"


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


def settings_path(scope: Scope, cwd: Path, home: Path) -> Path:
    """The settings file Claude Code reads for ``scope``."""
    return claude_code_file(scope, cwd, home)


def entry(url: str, timeout: int = TIMEOUT) -> dict[str, Any]:
    """One installed hook: every call of its event posted to ``url``, blocked on failure."""
    return {"type": "http", "url": url, "timeout": timeout, "onFailure": "block"}


def install(path: Path, url: str, events: Iterable[str] = EVENTS) -> Change:
    """Add an entry for each of ``events`` that ``path`` lacks; the file made if missing."""
    wanted = _checked(events)
    settings = settings_file.read(path)
    current = settings if settings is not None else {}
    hooks = _hooks_of(current, path)
    added = 0
    for event in wanted:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise _malformed(path, f"hooks.{event}", "a list of matcher groups")
        if not any(_ours(handler, url) for handler in _handlers(groups)):
            groups.append({"hooks": [entry(url)]})
            added += 1
    allowed = _allow(current, url, path)
    if not added and not allowed:
        return Change(path, 0, unchanged=True)
    current["hooks"] = hooks
    return Change(path, added, settings_file.write(path, current))


def uninstall(path: Path, url: str) -> Change:
    """Take hookline's entries (HTTP hooks posting to ``url``) out of ``path``."""
    settings = settings_file.read(path)
    if settings is None:
        return Change(path, 0, unchanged=True)
    hooks = _hooks_of(settings, path)
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept.append(group)
                continue
            left = [h for h in handlers if not _ours(h, url)]
            removed += len(handlers) - len(left)
            if left:
                kept.append({**group, "hooks": left})
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    urls = settings.get(_ALLOWED_URLS)
    allowed = False
    if isinstance(urls, list) and url in urls:
        urls.remove(url)
        allowed = True
    if not removed and not allowed:
        return Change(path, 0, unchanged=True)
    if hooks:
        settings["hooks"] = hooks
    else:
        settings.pop("hooks", None)
    return Change(path, removed, settings_file.restore(path, settings))


def installed(path: Path, url: str) -> list[str]:
    """The events ``path`` has hookline's entry for (what ``hookline doctor`` reports)."""
    return list(entries(path, url))


def entries(path: Path, url: str) -> dict[str, list[dict[str, Any]]]:
    """hookline's entries (HTTP hooks posting to ``url``) in ``path``, by event."""
    settings = settings_file.read(path)
    if settings is None:
        return {}
    found = {
        event: [h for h in _handlers(groups) if _ours(h, url)]
        for event, groups in _hooks_of(settings, path).items()
        if isinstance(groups, list)
    }
    return {event: handlers for event, handlers in found.items() if handlers}


def _checked(events: Iterable[str]) -> list[str]:
    wanted = list(dict.fromkeys(events))
    wrong = [event for event in wanted if event not in HTTP_EVENTS]
    if wrong:
        raise ConfigError(
            f"{', '.join(wrong)}: not an event Claude Code posts to an HTTP hook",
            key="--events",
            fix=f"choose among {', '.join(sorted(HTTP_EVENTS))}",
        )
    return wanted


def _hooks_of(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise _malformed(path, "hooks", "an object of events")
    return hooks


def _handlers(groups: list[Any]) -> Iterable[Any]:
    for group in groups:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(handlers, list):
            yield from handlers


def _ours(handler: Any, url: str) -> bool:
    return isinstance(handler, dict) and handler.get("type") == "http" and handler.get("url") == url


def _allow(settings: dict[str, Any], url: str, path: Path) -> bool:
    """Add ``url`` to the file's ``allowedHttpHookUrls`` when it has that list and no pattern
    in it lets ``url`` through; whether it was added."""
    urls = settings.get(_ALLOWED_URLS)
    if urls is None:
        return False
    if not isinstance(urls, list):
        raise _malformed(path, _ALLOWED_URLS, "a list of URL patterns")
    if any(isinstance(p, str) and fnmatchcase(url, p) for p in urls):
        return False
    urls.append(url)
    return True


def _malformed(path: Path, key: str, wanted: str) -> ConfigError:
    return ConfigError(
        f"should be {wanted}", file=str(path), key=key, fix="mend it, then install again"
    )

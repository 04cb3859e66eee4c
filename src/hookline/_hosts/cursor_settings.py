"""Cursor pointed at ``hookline serve``: its ``hooks.json`` entries, written and taken out.

Cursor reads ``~/.cursor/hooks.json`` for the user, ``.cursor/hooks.json`` for a project and
its enterprise file for the machine:
``{"version": 1, "hooks": {event: [{"command": ..., ...}, ...]}}``, a flat list of hooks per
event (no matcher groups). The installed hook is the ``curl`` line of
``hookline._hosts.curl_hook`` posting to the server's ``/cursor`` route, marked
``failClosed`` so that Cursor blocks when it fails, and the line itself exits 2 (Cursor's deny)
with the reason on stderr when no answer comes.

An entry is hookline's when its command is the installed line (or an older curl line posting
to the URL); installing again changes nothing, and ``uninstall`` takes out exactly those (and
the events and keys left empty by that).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, Literal

from hookline._hosts import curl_hook, hook_groups, settings_file
from hookline._hosts.claude_code import DEFAULT_PORT
from hookline._hosts.cursor import CURSOR_PATH
from hookline._hosts.hook_groups import Change
from hookline._hosts.managed import managed_path

Scope = Literal["user", "project", "managed"]
SCOPES: Final = ("user", "project", "managed")
DEFAULT_URL: Final = f"http://127.0.0.1:{DEFAULT_PORT}{CURSOR_PATH}"
#: The events installed by default: each gate before a tool whose input is documented, and
#: the prompt.
EVENTS: Final = (
    "beforeShellExecution",
    "beforeMCPExecution",
    "beforeReadFile",
    "beforeSubmitPrompt",
)
#: Cursor's agent events hookline can be sent.
CURSOR_EVENTS: Final = frozenset(
    {
        *EVENTS,
        "preToolUse",
        "postToolUse",
        "afterShellExecution",
        "afterMCPExecution",
        "afterFileEdit",
        "stop",
    }
)
UNREACHABLE: Final = (
    "hookline serve is unreachable: the call is blocked (hookline break-glass is the way out)"
)


def settings_path(scope: Scope, cwd: Path, home: Path) -> Path:
    """The ``hooks.json`` Cursor reads for ``scope`` (the machine's: its enterprise hooks,
    ``hookline._hosts.managed``)."""
    if scope == "managed":
        return managed_path("cursor")
    return (home if scope == "user" else cwd) / ".cursor" / "hooks.json"


def command(url: str, token_env: str | None = None) -> str:
    """The installed line: the event posted to ``url`` (with the token in ``$token_env``), the
    answer printed; exit 2 (Cursor's deny) with the reason on stderr when no answer comes."""
    return curl_hook.line(url, UNREACHABLE, token_env)


def entry(url: str, token_env: str | None = None) -> dict[str, Any]:
    """One installed hook: every call of its event posted to ``url``, blocked on failure."""
    return {"command": command(url, token_env), "failClosed": True}


def install(
    path: Path, url: str, events: Iterable[str] = EVENTS, *, token_env: str | None = None
) -> Change:
    """Add an entry for each of ``events`` that ``path`` lacks, and make hookline's entries
    send the token of ``token_env`` (or none); the file made if missing."""
    wanted = hook_groups.checked(events, CURSOR_EVENTS, "Cursor")
    settings = settings_file.read(path) or {}
    hooks = _hooks(settings, path)
    added = changed = 0
    for event in wanted:
        handlers = hooks.setdefault(event, [])
        if not isinstance(handlers, list):
            raise hook_groups.malformed(path, f"hooks.{event}", "a list of hooks")
        if not any(_ours(handler, url) for handler in handlers):
            handlers.append(entry(url, token_env))
            added += 1
    for handlers in hooks.values():
        for handler in handlers if isinstance(handlers, list) else []:
            if _ours(handler, url) and handler.get("command") != command(url, token_env):
                handler["command"] = command(url, token_env)
                changed += 1
    if not added and not changed:
        return Change(path, 0, unchanged=True)
    settings.setdefault("version", 1)
    settings["hooks"] = hooks
    return Change(path, added, settings_file.write(path, settings))


def uninstall(path: Path, url: str) -> Change:
    """Take hookline's entries (commands posting to ``url``) out of ``path``."""
    settings = settings_file.read(path)
    if settings is None:
        return Change(path, 0, unchanged=True)
    hooks = _hooks(settings, path)
    removed = 0
    for event, handlers in list(hooks.items()):
        if not isinstance(handlers, list):
            continue
        kept = [handler for handler in handlers if not _ours(handler, url)]
        removed += len(handlers) - len(kept)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not removed:
        return Change(path, 0, unchanged=True)
    if hooks:
        settings["hooks"] = hooks
    else:
        settings.pop("hooks", None)
        if settings.get("version") == 1 and len(settings) == 1:
            settings.pop("version")
    return Change(path, removed, settings_file.restore(path, settings))


def installed(path: Path, url: str) -> list[str]:
    """The events ``path`` has hookline's entry for (what ``hookline doctor`` reports)."""
    settings = settings_file.read(path)
    if settings is None:
        return []
    return [
        event
        for event, handlers in _hooks(settings, path).items()
        if isinstance(handlers, list) and any(_ours(handler, url) for handler in handlers)
    ]


def _hooks(settings: dict[str, Any], path: Path) -> dict[str, Any]:
    return hook_groups.hooks_of(settings, path)


def _ours(handler: object, url: str) -> bool:
    if isinstance(handler, dict) and "type" not in handler:  # Cursor's hooks are commands
        handler = {**handler, "type": "command"}
    return curl_hook.posts_to(handler, url, UNREACHABLE)

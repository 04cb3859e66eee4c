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

With a token (``token_env``: the name of the environment variable that holds it), each entry
sends ``Authorization: Bearer ${VAR}`` and lists ``VAR`` in ``allowedEnvVars`` (Claude Code
interpolates only listed variables; ``httpHookAllowedEnvVars``, where the file has it, gets it
too). The token itself is never written. Installing again with another ``token_env`` (or
none) changes the header of hookline's entries and nothing else of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Final, Literal

from hookline._claude.settings import claude_code_file
from hookline._errors import ConfigError
from hookline._events import EVENTS as ALL_EVENTS
from hookline._hosts import hook_groups, settings_file
from hookline._hosts.hook_groups import Change

Scope = Literal["user", "project", "local", "managed"]
SCOPES: Final = ("user", "project", "local", "managed")
#: The port ``hookline serve`` listens on unless told otherwise, and its Claude Code route.
DEFAULT_PORT: Final = 8377
CLAUDE_CODE_PATH: Final = "/claude-code"
DEFAULT_URL: Final = f"http://127.0.0.1:{DEFAULT_PORT}{CLAUDE_CODE_PATH}"
#: The events installed by default, and those ``--events`` may add: each event says
#: (``EventFacts.served``: Claude Code lets an HTTP hook answer it, and hookline's server runs it).
EVENTS: Final = tuple(name for name, cls in ALL_EVENTS.items() if cls.facts.served == "default")
HTTP_EVENTS: Final = frozenset(name for name, cls in ALL_EVENTS.items() if cls.facts.served)
#: Seconds Claude Code waits for the server: past it the call is blocked (``onFailure``).
TIMEOUT: Final = 30
_ALLOWED_URLS: Final = "allowedHttpHookUrls"
_ALLOWED_VARS: Final = "httpHookAllowedEnvVars"
#: The keys of an entry that carry its token.
_TOKEN_KEYS: Final = ("headers", "allowedEnvVars")
_VAR: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def settings_path(scope: Scope, cwd: Path, home: Path) -> Path:
    """The settings file Claude Code reads for ``scope``."""
    return claude_code_file(scope, cwd, home)


def entry(url: str, timeout: int = TIMEOUT, *, token_env: str | None = None) -> dict[str, Any]:
    """One installed hook: every call of its event posted to ``url``, blocked on failure;
    with the token in ``$token_env`` as its bearer."""
    made = {"type": "http", "url": url, "timeout": timeout, "onFailure": "block"}
    return made | _token_keys(token_env)


def _token_keys(token_env: str | None) -> dict[str, Any]:
    if token_env is None:
        return {}
    return {
        "headers": {"Authorization": f"Bearer ${{{checked_var(token_env)}}}"},
        "allowedEnvVars": [token_env],
    }


def checked_var(name: str) -> str:
    """``name``, when it can name an environment variable; a ConfigError when it cannot."""
    if _VAR.fullmatch(name) is None:
        raise ConfigError(
            f"{name!r} is not the name of an environment variable",
            key="--token-env",
            fix="name the variable that holds the token, as HOOKLINE_TOKEN",
        )
    return name


def install(
    path: Path, url: str, events: Iterable[str] = EVENTS, *, token_env: str | None = None
) -> Change:
    """Add an entry for each of ``events`` that ``path`` lacks, and give hookline's entries the
    token of ``token_env`` (or none); the file made if missing."""
    wanted = _checked(events)
    made = _token_keys(token_env)
    settings = settings_file.read(path) or {}
    ours = _ours(url)
    added = hook_groups.add(
        settings, path, wanted, lambda: {"hooks": [entry(url, token_env=token_env)]}, ours
    )

    def fresh(handler: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in handler.items() if k not in _TOKEN_KEYS} | made

    added += hook_groups.refresh(settings, path, ours, fresh)
    allowed = _allow(settings, url, path)
    allowed |= token_env is not None and _allow_var(settings, token_env, path)
    if not added and not allowed:
        return Change(path, 0, unchanged=True)
    return Change(path, added, settings_file.write(path, settings))


def uninstall(path: Path, url: str) -> Change:
    """Take hookline's entries (HTTP hooks posting to ``url``) out of ``path``."""
    settings = settings_file.read(path)
    if settings is None:
        return Change(path, 0, unchanged=True)
    removed = hook_groups.remove(settings, path, _ours(url))
    urls = settings.get(_ALLOWED_URLS)
    allowed = False
    if isinstance(urls, list) and url in urls:
        urls.remove(url)
        allowed = True
    if not removed and not allowed:
        return Change(path, 0, unchanged=True)
    return Change(path, removed, settings_file.restore(path, settings))


def installed(path: Path, url: str) -> list[str]:
    """The events ``path`` has hookline's entry for (what ``hookline doctor`` reports)."""
    return list(entries(path, url))


def entries(path: Path, url: str) -> dict[str, list[dict[str, Any]]]:
    """hookline's entries (HTTP hooks posting to ``url``) in ``path``, by event."""
    settings = settings_file.read(path)
    if settings is None:
        return {}
    ours = _ours(url)
    found = {
        event: [h for h in hook_groups.handlers(groups) if ours(h)]
        for event, groups in hook_groups.hooks_of(settings, path).items()
        if isinstance(groups, list)
    }
    return {event: handlers for event, handlers in found.items() if handlers}


def _checked(events: Iterable[str]) -> list[str]:
    wanted = list(dict.fromkeys(events))
    wrong = [event for event in wanted if event not in HTTP_EVENTS]
    if wrong:
        raise ConfigError(
            f"{', '.join(wrong)}: not an event Claude Code posts to an HTTP hook and hookline's "
            "server runs",
            key="--events",
            fix=f"choose among {', '.join(sorted(HTTP_EVENTS))}",
        )
    return wanted


def _ours(url: str) -> hook_groups.Ours:
    """Whether a handler is hookline's: an HTTP hook posting to ``url``."""
    return lambda handler: (
        isinstance(handler, dict) and handler.get("type") == "http" and handler.get("url") == url
    )


def _allow_var(settings: dict[str, Any], name: str, path: Path) -> bool:
    """Add ``name`` to the file's ``httpHookAllowedEnvVars`` when it has that list without it
    (Claude Code empties the header of a variable the list leaves out); whether it was added."""
    names = settings.get(_ALLOWED_VARS)
    if names is None:
        return False
    if not isinstance(names, list):
        raise hook_groups.malformed(path, _ALLOWED_VARS, "a list of variable names")
    if name in names:
        return False
    names.append(name)
    return True


def _allow(settings: dict[str, Any], url: str, path: Path) -> bool:
    """Add ``url`` to the file's ``allowedHttpHookUrls`` when it has that list and no pattern
    in it lets ``url`` through; whether it was added."""
    urls = settings.get(_ALLOWED_URLS)
    if urls is None:
        return False
    if not isinstance(urls, list):
        raise hook_groups.malformed(path, _ALLOWED_URLS, "a list of URL patterns")
    if any(isinstance(p, str) and fnmatchcase(url, p) for p in urls):
        return False
    urls.append(url)
    return True

"""What ``hookline doctor`` reads in the settings of the hosts that run command hooks only
(Gemini CLI, Codex, Cursor): where hookline's ``curl`` hooks are, and what would stop the host
from running them.

For each scope (user, project, managed) it lists the events that have hookline's line posting to the
URL, and what in the host's own settings turns hooks off (Gemini's ``hooksConfig.enabled``,
Codex's ``[features] hooks``). The line fails closed by itself (exit 2 when no answer comes),
so there is no fail-open setting to look for; but without ``curl`` on the PATH every call is
blocked. Nothing is written; a file the host cannot read either is a problem named.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from hookline._errors import ConfigError
from hookline._hosts import codex_settings, cursor_settings, gemini_settings
from hookline._hosts.doctor_claude_code import Installed, ScopeCheck


@dataclass(frozen=True)
class CommandHost:
    """What the doctor needs of one host's settings module."""

    settings_path: Callable[..., Path]
    installed: Callable[[Path, str], list[str]]
    url: str
    #: The host's event before each tool call (its shell command, for Cursor).
    gate: str
    #: What in a settings file stops the host from running its hooks.
    stops: Callable[[Path], list[str]] = lambda path: []


HOSTS: Final = {
    "gemini": CommandHost(
        gemini_settings.settings_path,
        gemini_settings.installed,
        gemini_settings.DEFAULT_URL,
        "BeforeTool",
        gemini_settings.warnings,
    ),
    "codex": CommandHost(
        codex_settings.settings_path,
        codex_settings.installed,
        codex_settings.DEFAULT_URL,
        "PreToolUse",
        codex_settings.stops,
    ),
    "cursor": CommandHost(
        cursor_settings.settings_path,
        cursor_settings.installed,
        cursor_settings.DEFAULT_URL,
        "beforeShellExecution",
    ),
}
SCOPES: Final = ("user", "project", "managed")


def check(host: str, url: str, project: Path, home: Path) -> Installed:
    """What ``host``'s settings for ``project`` (and ``home``) hold of hookline's hooks posting
    to ``url``."""
    chosen = HOSTS[host]
    scopes = [_scope(chosen, scope, url, project, home) for scope in SCOPES]
    return Installed(url, tuple(scopes), host, chosen.gate)


def _scope(chosen: CommandHost, scope: str, url: str, project: Path, home: Path) -> ScopeCheck:
    path = chosen.settings_path(scope, project, home)
    try:
        events, unreadable = tuple(chosen.installed(path, url)), None
    except ConfigError as exc:
        events, unreadable = (), str(exc)
    stops = chosen.stops(path)
    if shutil.which("curl") is None:
        stops.append("curl is not on the PATH here: every call the hooks post is blocked")
    return ScopeCheck(
        scope,
        path,
        exists=path.exists(),
        events=events,
        stopped="; ".join(stops) or None,
        unreadable=unreadable,
        gate=chosen.gate,
    )

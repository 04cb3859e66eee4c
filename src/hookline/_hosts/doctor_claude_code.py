"""What ``hookline doctor`` reads in Claude Code's settings: where hookline's hooks are, and
what would stop Claude Code from sending them.

For each settings scope (user, project, local, managed) it lists the events that have
hookline's HTTP hook (``claude_code.entries``) and those of them without
``"onFailure": "block"`` (while the server cannot answer, Claude Code goes on without it). Then
what would keep a scope's hooks from running, as Claude Code 2.1.332 was seen to read its
settings, where that differs from how ``hookline run`` reads them (a folder's settings bound only
the folder's own hooks there): ``disableAllHooks`` in any file, the project's included, switched
off the hooks the user installed (the canary ran); an ``allowedHttpHookUrls`` in any file, the
project's included, that lets no pattern match the URL kept the user's HTTP hook from posting
(it failed, so ``onFailure`` blocked the call). ``allowManagedHooksOnly`` in managed settings
leaves only the managed hooks. Nothing is written; a file that cannot be read (Claude Code
cannot read it either) is a problem named, not an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from hookline._claude.settings import claude_code_file
from hookline._errors import ConfigError
from hookline._hosts import claude_code, settings_file
from hookline._settings_layers import Layer, ceiling, winning
from hookline._support.url_allow import url_allowed

#: The event whose hook gates every tool call: without it, nothing is judged before a tool runs.
GATE: Final = "PreToolUse"


@dataclass(frozen=True)
class ScopeCheck:
    """One settings scope: its file, hookline's events in it, and what stops them."""

    scope: str
    path: Path
    exists: bool
    #: The events with hookline's hook in this file.
    events: tuple[str, ...] = ()
    #: Of those, the ones whose hook lacks ``"onFailure": "block"``.
    fail_open: tuple[str, ...] = ()
    #: Why Claude Code would not run this scope's hooks (None: nothing stops them).
    stopped: str | None = None
    #: Why the file could not be read (Claude Code cannot read it either).
    unreadable: str | None = None
    #: The host's event that comes before each tool call.
    gate: str = GATE

    @property
    def gating(self) -> bool:
        """Whether this scope's hooks judge every tool call, failing closed."""
        return self.stopped is None and self.gate in self.events and self.gate not in self.fail_open


@dataclass(frozen=True)
class Installed:
    """What is installed for ``url``, scope by scope, and the problems found."""

    url: str
    scopes: tuple[ScopeCheck, ...]
    host: str = "claude-code"
    #: The host's event that comes before each tool call.
    gate: str = GATE

    @property
    def gating(self) -> bool:
        """Whether some scope's PreToolUse hook judges every tool call, failing closed."""
        return any(scope.gating for scope in self.scopes)

    @property
    def problems(self) -> list[str]:
        """Each thing found that leaves a tool call unjudged or failing open, in a line."""
        found = []
        for scope in self.scopes:
            where = f"{scope.scope} settings ({scope.path})"
            if scope.unreadable:
                found.append(f"{where}: {scope.unreadable}")
            if scope.events and scope.stopped:
                found.append(f"{where}: hookline's hooks do not run: {scope.stopped}")
            for event in scope.fail_open:
                found.append(
                    f'{where}: the {event} hook has no "onFailure": "block": while the server '
                    "cannot answer, Claude Code goes on as if it said nothing"
                )
        if not any(scope.events for scope in self.scopes):
            found.append(
                f"no settings file has hookline's hooks posting to {self.url}: "
                f"run hookline install {self.host}"
            )
        elif not self.gating:
            found.append(
                f"no running {self.gate} hook posts to {self.url}: tool calls are not judged"
            )
        return found


def check(url: str, project: Path, home: Path) -> Installed:
    """What Claude Code's settings for ``project`` (and ``home``, and the machine's managed
    settings) hold of hookline's hooks posting to ``url``."""
    paths = {scope: claude_code_file(scope, project, home) for scope in claude_code.SCOPES}
    read = {scope: _read(path, url) for scope, path in paths.items()}
    layers = tuple(
        Layer(scope, str(paths[scope]), data)
        for scope, (data, _, _) in read.items()
        if data is not None
    )
    scopes = []
    for scope, path in paths.items():
        _, entries, unreadable = read[scope]
        fail_open = tuple(
            event
            for event, handlers in entries.items()
            if any(handler.get("onFailure") != "block" for handler in handlers)
        )
        scopes.append(
            ScopeCheck(
                scope,
                path,
                exists=path.exists(),
                events=tuple(entries),
                fail_open=fail_open,
                stopped=stopped(layers, scope, url),
                unreadable=unreadable,
            )
        )
    return Installed(url, tuple(scopes))


def stopped(layers: tuple[Layer, ...], scope: str, url: str) -> str | None:
    """Why Claude Code would not run ``scope``'s HTTP hook posting to ``url``; None: it would."""
    disabled = [layer.path for layer in layers if layer.data.get("disableAllHooks") is True]
    if disabled:
        return f"disableAllHooks is set in {', '.join(disabled)}: Claude Code runs no hook"
    managed = tuple(layer for layer in layers if layer.name == "managed")
    if scope != "managed" and winning(managed, "allowManagedHooksOnly", kind=bool) is True:
        return "the managed settings set allowManagedHooksOnly: only their hooks run"
    if not url_allowed(url, ceiling(layers, "allowedHttpHookUrls")):
        return f"allowedHttpHookUrls lets no hook post to {url}: Claude Code does not send it"
    return None


def _read(
    path: Path, url: str
) -> tuple[dict[str, Any] | None, dict[str, list[dict[str, Any]]], str | None]:
    """The file's settings (None: no file, or one Claude Code cannot read either), hookline's
    entries in it by event, and why it could not be read."""
    try:
        return settings_file.read(path), claude_code.entries(path, url), None
    except ConfigError as exc:
        return None, {}, str(exc)

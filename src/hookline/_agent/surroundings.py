"""What the agent notices between steps: a ``cd``, files that changed, settings that changed,
and a person who has not come back.

hookline has no file watcher thread: it is step-based, so it looks where a step ends.

* CwdChanged: after a batch of tool calls (or a direct ``call_tool``), when a Bash ``cd``
  moved the shell (``followed``).
* FileChanged: before each model request, the files FileChanged hooks name (their matchers'
  literal names, split on ``|``, in the project folder, as Claude Code watches them in its
  working folder) are compared with the last look by ``stat`` (modification time, size,
  inode, whether it exists): ``change``, ``add`` or ``unlink``, whoever wrote it, the agent's
  own tools included. A matcher that is not a list of names (none, ``*``) watches nothing.
* ConfigChange: at the same point, the settings files the run was built from
  (``AgentOptions.settings_files``, which ``load_project`` fills). hookline never applies a
  changed settings file to a running session: its hooks and rules stay those it started with,
  so a model that edits ``.claude/settings.json`` cannot loosen its own gates. A hook's block
  ends the run (``hook_stopped``), except for ``policy_settings``, whose changes Claude Code
  does not let hooks block. Either way each change fires once.
* Notification ``idle_prompt``: once, when no run has started ``idle_after`` seconds after the
  last one ended (``Idle``).

Nothing is looked at that no hook (or event observer) listens for: with no FileChanged hook,
no file is ever stat'ed. The first look at a file (the session's start, or when a hook starts
naming it) only notes how it is.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, cast, get_args

from hookline._errors import ConfigError
from hookline._events import (
    ConfigChange,
    ConfigSource,
    CwdChanged,
    FileChanged,
    Notification,
    Scope,
)
from hookline._matchers import Matcher, NameIn, NameRegex

if TYPE_CHECKING:
    from hookline._agent.session import Session
    from hookline._hooks.engine import HookEngine
    from hookline._hooks.spec import HookSpec

Change = Literal["change", "add", "unlink"]
#: How a file looked: modification time (ns), size, inode; None: it did not exist.
Stat = tuple[int, int, int] | None
SOURCES: Final[tuple[str, ...]] = get_args(ConfigSource)
#: What the idle notification says (Claude Code: "Claude is waiting for your input").
IDLE_MESSAGE: Final = "The agent is waiting for your input"


async def followed(session: Session, engine: HookEngine) -> None:
    """Let later events carry where a ``cd`` left the shell; if it moved, fire CwdChanged."""
    left = session.follow_shell()
    if left is not None:
        await engine.fire(session.scope, CwdChanged, old_cwd=left, new_cwd=session.scope.cwd)


class Surroundings:
    """The files FileChanged hooks name and the run's settings files, looked at between steps."""

    def __init__(
        self, engine: HookEngine, folder: Path, settings: Sequence[tuple[str, str | Path]]
    ) -> None:
        self.engine = engine
        self.folder = folder
        self.settings = _settings(settings, folder)
        self._files = Snapshots()
        self._config = Snapshots()
        self._names: tuple[tuple[HookSpec, ...], list[Path]] = ((), [])

    def begin(self) -> None:
        """Note how the watched files are now: changes are counted from here."""
        self._files.note(self._watched())
        if self._listens("ConfigChange"):
            self._config.note(self.settings)

    async def check(self, scope: Scope) -> str | None:
        """Fire FileChanged and ConfigChange for each change since the last look; why the run
        must end when a ConfigChange hook refused a change, else None."""
        for path, change in self._files.changes(self._watched()):
            await self.engine.dispatch(scope.event(FileChanged, file_path=str(path), event=change))
        if not self._listens("ConfigChange"):
            return None
        refusals = []
        for path, _ in self._config.changes(self.settings):
            source = cast("ConfigSource", self.settings[path])
            asked = await self.engine.dispatch(
                scope.event(ConfigChange, source=source, file_path=str(path))
            )
            if asked.decision.permission == "deny" and source != "policy_settings":
                why = asked.decision.reason or "blocked"
                refusals.append(f"a ConfigChange hook refused the change to {path}: {why}")
        return "; ".join(refusals) or None

    def _listens(self, event: str) -> bool:
        return bool(self.engine.registry.plan(event).specs)

    def _watched(self) -> list[Path]:
        """The files FileChanged hooks name (none, without a hook: nothing is stat'ed)."""
        specs = self.engine.registry.plan("FileChanged").specs
        if specs != self._names[0]:
            names = dict.fromkeys(n for spec in specs for n in literal_names(spec.matcher))
            self._names = (specs, [self.folder / name for name in names])
        return self._names[1]


def literal_names(matcher: Matcher) -> list[str]:
    """The file names a FileChanged matcher lists (``.envrc|.env``): split on ``|``, only
    plain names (no folder); none for a matcher that lists nothing (``*``, a Python one)."""
    if isinstance(matcher, NameIn):
        text = matcher.pattern
    elif isinstance(matcher, NameRegex):
        text = matcher.regex.pattern
    else:
        return []
    names = (name.strip() for name in text.split("|"))
    return [name for name in names if name and "/" not in name and name not in (".", "..")]


class Snapshots:
    """How each file looked at the last look."""

    def __init__(self) -> None:
        self._seen: dict[Path, Stat] = {}

    def note(self, paths: Iterable[Path]) -> None:
        """Look at the files not looked at yet (a change before now is not one)."""
        for path in paths:
            if path not in self._seen:
                self._seen[path] = _stat(path)

    def changes(self, paths: Iterable[Path]) -> list[tuple[Path, Change]]:
        """What changed in each file since the last look (a first look notes it only)."""
        found: list[tuple[Path, Change]] = []
        for path in paths:
            now = _stat(path)
            if path in self._seen and (change := _change(self._seen[path], now)):
                found.append((path, change))
            self._seen[path] = now
        return found


def _stat(path: Path) -> Stat:
    try:
        found = os.stat(path)
    except OSError:  # gone, or not reachable: as good as gone
        return None
    return (found.st_mtime_ns, found.st_size, found.st_ino)


def _change(before: Stat, now: Stat) -> Change | None:
    if before == now:
        return None
    if before is None:
        return "add"
    return "unlink" if now is None else "change"


def _settings(files: Sequence[tuple[str, str | Path]], folder: Path) -> dict[Path, str]:
    """``AgentOptions.settings_files`` by path (a relative one in ``folder``); a ConfigError
    for an entry that is no pair, or whose source Claude Code does not know."""
    found: dict[Path, str] = {}
    for index, entry in enumerate(files):
        source, path = entry if isinstance(entry, tuple) and len(entry) == 2 else (None, None)
        if source not in SOURCES or not isinstance(path, str | os.PathLike):
            raise ConfigError(
                f"settings_files[{index}] is not a (source, path) pair with a known source",
                key="settings_files",
                fix=f'give ("project_settings", ".claude/settings.json"); sources: '
                f"{', '.join(SOURCES)}",
            )
        found[Path(os.path.normpath(folder / path))] = source
    return found


class Idle:
    """Notification ``idle_prompt``: fired once when the agent has waited ``after`` seconds
    for its next run; the next run, a ``clear`` or ``close`` calls it off."""

    def __init__(self, after: float | None) -> None:
        ok = after is None or (not isinstance(after, bool) and isinstance(after, int | float))
        if not ok or (after is not None and not 0 <= after < math.inf):
            raise ConfigError(
                f"idle_after must be a number of seconds (0 or more) or None, not {after!r}",
                key="idle_after",
                fix="idle_after=60, or None never to notify",
            )
        self.after = after
        self._task: asyncio.Task[None] | None = None
        self._firing = False

    def arm(self, engine: HookEngine, scope: Scope) -> None:
        """Fire the notification, in ``scope``, after ``after`` seconds unless ``stop`` comes
        first; nothing when no hook (or event observer) listens."""
        if self.after is None or not engine.listens("Notification"):
            return
        event = scope.event(Notification, message=IDLE_MESSAGE, notification_type="idle_prompt")
        self._task = asyncio.ensure_future(self._wait(self.after, lambda: engine.dispatch(event)))

    async def stop(self) -> None:
        """Call off a waiting notification; one whose hooks already run is let finish."""
        task, self._task = self._task, None
        if task is None or task.done():
            return
        if not self._firing:
            task.cancel()
        with suppress(asyncio.CancelledError):
            await task

    async def _wait(self, after: float, notify: Callable[[], Awaitable[object]]) -> None:
        await asyncio.sleep(after)
        self._firing = True
        try:
            await notify()
        finally:
            self._firing = False

"""The project a host's event comes from, and its own policy, for folders the user trusts.

    projects = Projects(audit, own="/srv/policy", listening=("127.0.0.1", 8377))
    async with projects.consulted(cwd, HOOKLINE_ONLY) as (said, judge): ...

The project folder is the nearest folder at or above the event's ``cwd`` with settings of its
own (``.claude/settings.json``, ``.claude/settings.local.json``, ``.hookline/settings.json``,
``.hookline/settings.local.json``), below the home folder (whose ``.claude`` is the user's).
It is consulted only when hookline's trust store (``hookline trust``) says it is trusted; a
folder it distrusts or has no answer for is not, and nobody is asked: the server has no one
to ask. ``said`` (``Consulted``) says which policy was consulted, or why none, for the record.

What of the project is loaded depends on the host (``part``): for Claude Code, which runs the
project's ``.claude`` hooks and permission rules itself, only what it cannot run
(``HOOKLINE_ONLY``: the ``python`` hooks and the ``hookline`` section of its ``.claude`` files,
and its ``.hookline`` files whole); for the others, all of it (``WHOLE``). The person's own
layers (user, managed) keep their settings but lose their hooks: the server's policy runs
those already.

A cwd's project folder, once found, is kept for ``FOUND_FOR`` seconds (walking up the folders
costs more than the rest of a Read's decision), so a new settings file is seen within that time
(late is safe: a project's policy only tightens the server's). The trust store is asked on
every event: a folder whose trust is taken back runs none of its hooks from the next one.
Each folder's policy is loaded once per part and kept (``hookline._serve.policies``), with its
digest; a change to one of its files, seen when its next event comes (``Watcher.check``),
reloads it, on record as a ``policy_reload``. A project that cannot be loaded is ``said`` so,
with the error, and tried again on its next event; one whose reload is refused counts as one
that cannot be loaded (its old policy is not consulted).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._claude.confine import FOLDER_LAYERS
from hookline._claude.settings import FOLDER_FILES
from hookline._errors import ConfigError
from hookline._policy.digest import policy_digest
from hookline._project import load_project
from hookline._serve.itself import leave_out_itself
from hookline._serve.judge import Judge
from hookline._serve.policies import Policies, one_line
from hookline._serve.reload import Watcher
from hookline._trust import TrustStore

if TYPE_CHECKING:
    from hookline._claude.settings import Settings
    from hookline._policy.digest import PolicyDigest
    from hookline._project import Project
    from hookline._serve.policies import Active, Loader
    from hookline._settings_layers import Layer
    from hookline.audit._writer import AuditWriter

#: The project's parts Claude Code cannot run itself: its Python hooks, its ``hookline``
#: settings, its ``.hookline`` files.
HOOKLINE_ONLY: Final = "hookline-only"
#: The project's whole policy: every hook and every permission rule.
WHOLE: Final = "whole"
#: Seconds a cwd's project folder, once found, is kept before it is looked up again.
FOUND_FOR: Final = 1.0
#: The most cwds kept at once (past that, all are looked up again).
_FOUND_MOST: Final = 4096
#: What of a ``.claude`` file Claude Code does not read, kept for ``HOOKLINE_ONLY``.
_HOOKLINE_KEYS: Final = ("hookline", "disableAllHooks")


@dataclass(frozen=True, slots=True)
class Consulted:
    """Which project policy was consulted for one event (``policy``: its digest), or why none
    (``why``), or the error that kept its settings from being read (``error``)."""

    folder: str | None
    part: str
    policy: str | None = None
    why: str | None = None
    error: str | None = None

    def fields(self) -> dict[str, str]:
        """What the event's record says of it."""
        said = {"folder": self.folder, "part": self.part, "policy": self.policy}
        said |= {"not_consulted": self.why, "error": self.error}
        return {key: value for key, value in said.items() if value is not None}


@dataclass(slots=True, eq=False)
class _Kept:
    policies: Policies
    watcher: Watcher


class Projects:
    """The trusted projects' policies, loaded when their first event comes and kept."""

    def __init__(
        self,
        audit: AuditWriter,
        *,
        own: str | None = None,
        listening: tuple[str, int] | None = None,
        store: TrustStore | None = None,
        say: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``own``: the server's own folder (its policy is the server's, never a project's);
        ``listening``: the server's address (a project's hooks posting to it are left out);
        ``store``: the trust store (default ``~/.hookline/trust.json``); ``say``: prints a
        line (a project's reload); ``clock``: seconds, for how long a folder found is kept."""
        self.audit, self.listening = audit, listening
        self.own = os.path.realpath(own) if own is not None else None
        self.store = store or TrustStore(TrustStore().file)  # the home folder's, found once
        self.say = say or _quiet
        self._kept: dict[tuple[str, str], _Kept] = {}
        self._found: dict[str, tuple[float, str | None]] = {}
        self._clock = clock
        self._lock = asyncio.Lock()

    @asynccontextmanager
    async def consulted(
        self, cwd: str | None, part: str, placed: Consulted | None = None
    ) -> AsyncIterator[tuple[Consulted, Judge | None]]:
        """What is said of the project of ``cwd``, and its judge while the block runs (None:
        it is not consulted); ``placed``: what ``placed`` said of it for this event."""
        async with self.using(cwd, part, placed) as (said, active):
            yield said, None if active is None else active.judge

    def placed(self, cwd: str | None, part: str) -> Consulted:
        """The project folder of ``cwd`` and why it is not consulted (``why``; None: it is, by
        ``using``)."""
        folder, why = self.folder(cwd)
        return Consulted(folder, part, why=why)

    @asynccontextmanager
    async def using(
        self, cwd: str | None, part: str, placed: Consulted | None = None
    ) -> AsyncIterator[tuple[Consulted, Active | None]]:
        """What is said of the project of ``cwd``, and its policy serving now while the block
        runs (None: it is not consulted); ``placed``: what ``placed`` said of it for this
        event (else it is asked now)."""
        said = placed or self.placed(cwd, part)
        folder = said.folder
        if folder is None or said.why is not None:
            yield said, None
            return
        try:
            kept = await self._kept_for(folder, part)
        except Exception as exc:
            yield Consulted(folder, part, error=one_line(exc)), None
            return
        if kept.policies.refused is not None:
            yield Consulted(folder, part, error=kept.policies.refused.error), None
            return
        async with kept.policies.using() as active:
            yield Consulted(folder, part, policy=active.digest.sha256), active

    def folder(self, cwd: str | None) -> tuple[str | None, str | None]:
        """The project folder of ``cwd``, and why it is not consulted (None: it is)."""
        if not cwd or not os.path.isabs(cwd):
            return None, "the event has no absolute cwd"
        folder = self._project_folder(cwd)
        if folder is None:
            return None, "no project settings at or above the cwd"
        if folder == self.own:
            return folder, "the server's own folder"
        try:
            trusted = self.store.get(folder, real=True)  # a project folder is a real path
        except ConfigError as exc:
            return folder, f"the trust store could not be read: {exc}"
        if trusted is None:
            return folder, f"no trust answer for this folder (hookline trust add {folder})"
        return folder, None if trusted else "not trusted"

    def _project_folder(self, cwd: str) -> str | None:
        """``project_folder``, looked up again once ``FOUND_FOR`` seconds have passed."""
        now = self._clock()
        kept = self._found.get(cwd)
        if kept is not None and now - kept[0] < FOUND_FOR:
            return kept[1]
        if len(self._found) >= _FOUND_MOST:
            self._found.clear()
        folder = project_folder(cwd)
        self._found[cwd] = now, folder
        return folder

    async def aclose(self) -> None:
        """Close every kept policy's connections (the server has stopped)."""
        for kept in self._kept.values():
            await kept.policies.aclose()

    async def _kept_for(self, folder: str, part: str) -> _Kept:
        """The folder's kept policy, loaded now if it is not yet, reloaded if a file changed."""
        async with self._lock:
            kept = self._kept.get((folder, part))
            if kept is None:
                load = _loader(folder, part, self.listening)
                project, digest = await asyncio.to_thread(load)
                policies = Policies(Judge(project), digest, load=load)
                say = partial(_about, self.say, folder)
                kept = self._kept[folder, part] = _Kept(
                    policies, Watcher(policies, self.audit, say=say)
                )
                return kept
        await kept.watcher.check()
        return kept


def project_folder(cwd: str) -> str | None:
    """The nearest folder at or above ``cwd`` with settings of its own, below the home folder;
    None if there is none."""
    home = os.path.realpath(Path.home())
    folder = os.path.realpath(cwd)
    while folder != home:
        if any(os.path.lexists(os.path.join(folder, name)) for name in FOLDER_FILES):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
    return None


def _loader(folder: str, part: str, listening: tuple[str, int] | None) -> Loader:
    """What loads the project's ``part`` (trusted: the store said so), leaving out its hooks
    that post to this server."""

    def load() -> tuple[Project, PolicyDigest]:
        project = load_project(folder, trust=True, narrow=partial(narrowed, part=part))
        digest = policy_digest(project)
        if listening is not None:
            leave_out_itself(project.hooks, *listening)
        return project, digest

    return load


def narrowed(found: Settings, *, part: str) -> Settings:
    """``found`` as a project's policy: the person's own layers without their hooks; the
    folder's ``.claude`` files, for ``HOOKLINE_ONLY``, only what Claude Code does not read."""
    return replace(found, layers=tuple(_layer(layer, part) for layer in found.layers))


def _layer(layer: Layer, part: str) -> Layer:
    if layer.name not in FOLDER_LAYERS:
        return replace(layer, data={k: v for k, v in layer.data.items() if k != "hooks"})
    if part == WHOLE or Path(layer.path).parent.name != ".claude":
        return layer
    kept = {key: layer.data[key] for key in _HOOKLINE_KEYS if key in layer.data}
    return replace(layer, data={**kept, "hooks": _python_hooks(layer.data.get("hooks"))})


def _python_hooks(hooks: object) -> dict[str, list[dict[str, Any]]]:
    """The ``python`` handlers of a ``hooks`` object, in their matcher groups."""
    kept: dict[str, list[dict[str, Any]]] = {}
    for event, groups in hooks.items() if isinstance(hooks, Mapping) else ():
        for group in groups if isinstance(groups, list) else ():
            handlers = group.get("hooks") if isinstance(group, Mapping) else None
            listed = handlers if isinstance(handlers, list) else ()
            python = [h for h in listed if isinstance(h, Mapping) and _is_python(h)]
            if python:
                kept.setdefault(event, []).append({**group, "hooks": python})
    return kept


def _is_python(handler: Mapping[str, Any]) -> bool:
    return handler.get("type") == "python"


def _about(say: Callable[[str], None], folder: str, line: str) -> None:
    say(f"{line} [project {folder}]")


def _quiet(_: str) -> None:
    return None

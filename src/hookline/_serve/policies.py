"""The policy serving now, and its replacement, validated before it is swapped in.

    policies = Policies(Judge(project))             # one policy for the server's life
    policies = Policies(judge, digest, load=load)   # load: () -> (Project, PolicyDigest)
    async with policies.using() as active: ...      # one request, under the policy it began with
    done = await policies.reload("SIGHUP")          # the new policy, or the old one and why

A request takes the policy current when it starts and keeps it to its end: its record names that
policy's digest. A reload that loads swaps the new policy in for the next request; the old
judge's connections close once its last request has finished. A reload that fails (a
ConfigError, settings that are not JSON, a hooks file that does not import) changes nothing:
the old policy serves on, and ``refused`` says why until a reload succeeds.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from hookline._errors import ConfigError
from hookline._policy.digest import HOOK_CODE, policy_digest
from hookline._serve.judge import Judge

if TYPE_CHECKING:
    from hookline._policy.digest import PolicyDigest
    from hookline._project import Project

#: What loads the policy again: the project, and its digest (taken before anything is left out).
Loader: TypeAlias = "Callable[[], tuple[Project, PolicyDigest]]"


@dataclass(slots=True, eq=False)
class Active:
    """One loaded policy: its judge, its digest, when it was loaded, who still uses it."""

    judge: Judge
    digest: PolicyDigest
    loaded_at: float = field(default_factory=time.time)
    users: int = 0
    retired: bool = False


@dataclass(frozen=True, slots=True)
class Reloaded:
    """What one reload did: ``new`` is the policy serving after it (the old one's digest when
    it was refused, or when nothing that decides had changed)."""

    why: str
    old: str
    new: str
    error: str | None = None
    at: float = field(default_factory=time.time)

    @property
    def outcome(self) -> str:
        """reloaded, unchanged or refused."""
        if self.error is not None:
            return "refused"
        return "unchanged" if self.new == self.old else "reloaded"


class Policies:
    """The active policy of a server, swapped whole by a reload that loads."""

    def __init__(
        self, judge: Judge, digest: PolicyDigest | None = None, *, load: Loader | None = None
    ) -> None:
        self.current = Active(judge, digest or policy_digest(judge.project))
        #: The last reload, when it was refused (None once one succeeds).
        self.refused: Reloaded | None = None
        self._load = load
        self._lock = asyncio.Lock()

    def using(self) -> Using:
        """The policy current now, kept for one request whatever a reload does meanwhile."""
        return Using(self)

    async def reload(self, why: str) -> Reloaded:
        """Load the policy again; swap it in if it loads, else keep the old one and say why."""
        async with self._lock:
            old = self.current
            try:
                project, digest = await self._loaded(old)
                judge = Judge(project)
            except Exception as exc:
                self.refused = Reloaded(why, old.digest.sha256, old.digest.sha256, one_line(exc))
                return self.refused
            self.refused = None
            if digest.sha256 == old.digest.sha256:
                await judge.aclose()
            else:
                self.current = Active(judge, digest)
                await self._retire(old)
            return Reloaded(why, old.digest.sha256, digest.sha256)

    async def aclose(self) -> None:
        """Close the current policy's connections (the server has stopped)."""
        await self._retire(self.current)

    async def _loaded(self, old: Active) -> tuple[Project, PolicyDigest]:
        if self._load is None:
            raise ConfigError("this server was given one policy: it cannot load another")
        forget_modules(old.digest, old.judge.project.cwd)
        return await asyncio.to_thread(self._load)

    @staticmethod
    async def _retire(active: Active) -> None:
        active.retired = True
        if not active.users:
            await active.judge.aclose()


class Using:
    """``Policies.using``: an ``async with`` of its own, not a generator's (one per request)."""

    __slots__ = ("_active", "_policies")

    def __init__(self, policies: Policies) -> None:
        self._policies = policies

    async def __aenter__(self) -> Active:
        active = self._active = self._policies.current
        active.users += 1
        return active

    async def __aexit__(self, *exc: object) -> None:
        active = self._active
        active.users -= 1
        if active.retired and not active.users:
            await active.judge.aclose()


def forget_modules(digest: PolicyDigest, folder: str) -> None:
    """Let the next load import the project's own hook modules afresh (``guard:check`` is
    imported by name, and Python keeps a module once imported): each module whose file is
    hook code of ``digest`` inside ``folder``; never hookline's own."""
    code = {file.path for file in digest.files if file.role == HOOK_CODE}
    top = folder.rstrip("/") + "/"
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or name.partition(".")[0] == "hookline":
            continue
        path = os.path.abspath(file)
        if path in code and path.startswith(top):
            del sys.modules[name]


def one_line(exc: Exception) -> str:
    """``exc`` in one line."""
    text = str(exc) if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())

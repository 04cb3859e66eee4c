"""Workspace trust: whether a folder's own hooks and MCP servers may run.

A project's ``.claude/settings.json`` hooks, its ``settings.local.json`` hooks, the Python
files they name and its MCP servers (``.mcp.json``, ``mcpServers`` in those layers) are code
from the repository. As with Claude Code's trust dialog, the first interactive run in a folder
that holds such code asks once whether to trust it; the answer, yes or no, is remembered per
folder in ``~/.hookline/trust.json`` (0600, in a 0700 folder), which ``hookline trust`` lists,
adds to and revokes from. A run nobody watches (no terminal, a library ``load_project``) keeps
Claude Code's ``-p`` behaviour: a folder with no recorded answer is trusted, unless a user or
managed settings layer sets ``"hookline": {"requireTrust": true}``. A recorded "no" holds in
every run.

    store = TrustStore()                      # ~/.hookline/trust.json
    store.set("/work/repo", True)
    decide(settings, "/work/repo")            # True
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._errors import ConfigError
from hookline._support.private import FOLDER, replace_private

if TYPE_CHECKING:
    from hookline._claude.settings import Settings

#: What asks a person whether to trust a folder: (folder, what it would run) -> the answer.
Asker = Callable[[str, str], bool]
FILE_NAME: Final = "trust.json"
_FIX: Final = "fix or delete it; hookline trust add FOLDER writes it again"


@dataclass(frozen=True, slots=True)
class TrustStore:
    """The remembered answers, one per folder (its resolved path)."""

    path: Path | None = None
    #: The file as last read: its version (inode, size, mtime) and its entries. A new answer
    #: replaces the file (a new inode), so a version seen again is the same file.
    _read: dict[tuple[int, int, int], dict[str, dict[str, Any]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @property
    def file(self) -> Path:
        return self.path or Path.home() / FOLDER / FILE_NAME

    def entries(self) -> dict[str, dict[str, Any]]:
        """Each folder with an answer: ``{"trusted": bool, "at": seconds since the epoch}``;
        the file is read again only when it changed (a server asks on every event)."""
        return dict(self._entries())

    def _entries(self) -> Mapping[str, dict[str, Any]]:
        """``entries`` as kept (not to be changed): a ``stat`` tells whether the file is still
        the version last read; only another one is opened and read."""
        path = self.file
        try:
            stat = os.stat(path)
            known = self._read.get((stat.st_ino, stat.st_size, stat.st_mtime_ns))
            if known is not None:
                return known
            with path.open("rb") as file:
                stat = os.fstat(file.fileno())
                version = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
                text = file.read().decode("utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            why = getattr(exc, "strerror", None) or exc
            raise ConfigError(f"cannot be read: {why}", file=str(path)) from None
        found = self._parsed(text)
        self._read.clear()
        self._read[version] = found
        return found

    def _parsed(self, text: str) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"not valid JSON: {exc.msg}", file=str(self.file), fix=_FIX) from None
        folders = data.get("folders") if isinstance(data, dict) else None
        if not isinstance(folders, dict):
            raise ConfigError('must hold {"folders": {...}}', file=str(self.file), fix=_FIX)
        return {k: v for k, v in folders.items() if isinstance(v, dict)}

    def get(self, folder: str | os.PathLike[str], *, real: bool = False) -> bool | None:
        """The answer remembered for ``folder``, or None; ``real``: ``folder`` is a real path
        already (``os.path.realpath``'s), the key as it is."""
        entry = self._entries().get(str(folder) if real else _key(folder))
        trusted = entry.get("trusted") if entry else None
        return trusted if isinstance(trusted, bool) else None

    def set(self, folder: str | os.PathLike[str], trusted: bool) -> None:
        """Remember ``trusted`` for ``folder``."""
        entries = self.entries()
        entries[_key(folder)] = {"trusted": trusted, "at": round(time.time())}
        self._write(entries)

    def forget(self, folder: str | os.PathLike[str]) -> bool:
        """Forget the answer for ``folder`` (the next interactive run asks again); whether
        there was one."""
        entries = self.entries()
        found = entries.pop(_key(folder), None) is not None
        if found:
            self._write(entries)
        return found

    def _write(self, entries: Mapping[str, Any]) -> None:
        """Write a new file beside the old one (0600) and put it in its place."""
        text = json.dumps({"folders": dict(sorted(entries.items()))}, indent=2) + "\n"
        replace_private(self.file, text.encode())


def _key(folder: str | os.PathLike[str]) -> str:
    return str(Path(folder).resolve())


def held_back(settings: Settings, folder: str | os.PathLike[str]) -> str:
    """What trust holds back in ``folder``, in words ("2 hooks and .mcp.json"); "" if nothing."""
    parts = []
    if count := settings.folder_hooks():
        parts.append(f"{count} hook{'s' if count > 1 else ''}")
    servers = any("mcpServers" in layer.data for layer in settings.folder)
    if servers or (Path(folder) / ".mcp.json").is_file():
        parts.append("MCP servers")
    return " and ".join(parts)


def decide(
    settings: Settings,
    folder: str | os.PathLike[str],
    *,
    ask: Asker | None = None,
    store: TrustStore | None = None,
) -> bool:
    """Whether ``folder`` is trusted: the remembered answer; else, when it holds code from its
    repository, ``ask``'s answer (remembered), or with no one to ask, trusted unless the
    settings require trust; a folder with nothing to hold back is trusted without asking."""
    store = store or TrustStore()
    remembered = store.get(folder)
    if remembered is not None:
        return remembered
    what = held_back(settings, folder)
    if not what:
        return True
    if ask is None:
        return not settings.require_trust
    answer = ask(_key(folder), what)
    store.set(folder, answer)
    return answer

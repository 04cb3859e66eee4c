"""The protected set: every path whose contents later become code or policy.

    found = protected_set(["/ws"], home="/home/me", code_files=["/ws/hooks/guard.py"])
    found.covers("/ws/.git/hooks/pre-commit")   # "/ws/.git/hooks": a write there asks
    found.paths()                                # what the OS sandbox keeps read-only
    found.git_dirs()                             # what it keeps from being renamed or replaced

What it holds:

- in each workspace root, and at any depth below one (``covers``): ``.claude/`` (settings, hook
  scripts), ``.hookline/`` (hookline's state), ``.mcp.json`` (servers started on the next run);
- ``.git`` itself (a rename, a replacement, a delete) and the parts of it that hold code or
  point elsewhere: ``hooks``, ``info``, ``config``, ``config.worktree``, ``commondir`` and
  ``gitdir``, the same in ``modules/<name>/`` (nested too) and ``worktrees/<name>/``, and those
  two folders whole. Git's own writes to ``objects``, ``refs``, ``logs``, ``HEAD`` and the
  index (``git add``, ``git commit``) stay normal work;
- every file the settings name as code (``code_files``): Python hook files and the project's
  own modules they import, as they resolved when they loaded, and command hook scripts;
- under the home folder: ``~/.claude`` (the user's settings) and ``~/.hookline`` (hookline's
  per-user state and its key), and the key file ``$HOOKLINE_STATE_KEY_FILE`` names, with the
  ``heads`` folder beside it (the audit's kept heads, ``hookline.audit._heads``); for the
  permission checks only (``covers``), the files there that later run as code (``HOME_CODE``:
  ``~/.bashrc``, ``~/.profile``, ``~/.gitconfig``, ``~/.ssh``...).

A write into the set asks in every mode; the sandbox makes ``paths()`` read-only and keeps each
of ``git_dirs()`` where it is. A path counts as in the set on its own spelling and on its real
path (symlinks resolved), so a link into ``.git`` is as protected as ``.git``.
"""

from __future__ import annotations

import os
import posixpath
import pwd
import stat
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from functools import lru_cache

from hookline.permissions._paths import inside, real, user_home

#: Folders (and a file) in a workspace that hold policy or code, at any depth below a root.
NAMES = (".claude", ".hookline", ".mcp.json")
GIT = ".git"
#: What in a git folder holds code or points elsewhere.
GIT_CODE = ("hooks", "info", "config", "config.worktree", "commondir", "gitdir")
#: Folders of a git folder holding more git folders (submodules, linked worktrees).
GIT_NESTED = ("modules", "worktrees")
#: Under the home folder.
HOME_NAMES = (".claude", ".hookline")
#: Files under the home folder that later run as code (shell start-up files, git's and ssh's
#: configuration): covered, never listed by ``paths()`` (the sandbox writes nothing outside
#: its roots anyway).
HOME_CODE = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".gitconfig",
    ".config/git",
    ".ssh",
)
#: Where the key of hookline's state seals is, when not under ``~/.hookline``.
KEY_ENV = "HOOKLINE_STATE_KEY_FILE"
#: The folder beside the key where the audit keeps each log's heads.
KEY_HEADS = "heads"
_MODULE_DEPTH = 4


@dataclass(frozen=True, slots=True)
class ProtectedSet:
    """The protected set of one workspace (see the module docstring)."""

    roots: tuple[str, ...]
    home: str
    code_files: tuple[str, ...] = ()
    #: ``~/.claude`` and ``~/.hookline``, and the roots with their real paths (made once).
    _home_entries: tuple[str, ...] = field(default=(), repr=False, compare=False)
    _tops: tuple[str, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        homes = tuple(posixpath.join(self.home, name) for name in (*HOME_NAMES, *HOME_CODE))
        tops = dict.fromkeys(top for root in self.roots for top in (root, real(root)))
        object.__setattr__(self, "_home_entries", homes)
        object.__setattr__(self, "_tops", tuple(tops))

    def covers(self, path: str, *, resolve: bool = True) -> str | None:
        """The protected entry absolute, normalised ``path`` lies in (``/ws/.git/hooks``,
        ``/ws/.claude``, a code file), on the path as given and (``resolve``) its real path;
        None when it lies outside the set."""
        for candidate in dict.fromkeys((path, real(path)) if resolve else (path,)):
            if found := self._covers(candidate):
                return found
        return None

    def holds(self, path: str) -> str | None:
        """A protected entry strictly inside folder ``path`` (so that deleting, moving or
        replacing ``path`` changes it): an entry of ``paths()`` or ``git_dirs()``, a code file,
        or a protected name right inside it; None when none is found."""
        folders = dict.fromkeys((path, real(path)))
        for entry in (*self.paths(), *self.git_dirs()):
            if any(entry != f and inside(entry, f) for f in folders):
                return entry
        for folder in folders:
            for name in (*NAMES, GIT):
                if os.path.lexists(child := posixpath.join(folder, name)):
                    return child
        return None

    def paths(self) -> tuple[str, ...]:
        """The paths to keep read-only, absolute: for each root its ``.claude``, ``.hookline``,
        ``.mcp.json`` and the code parts of ``.git`` (those of submodules and linked worktrees
        as they exist now), the home folder's ``.claude`` and ``.hookline``, the key file when
        ``$HOOKLINE_STATE_KEY_FILE`` names one, and the code files. Paths that do not exist yet
        are listed too (keep them from being made); ``.git`` itself is ``git_dirs()``."""
        return _paths(self.roots, self.home, self.code_files, os.environ.get(KEY_ENV, ""))

    def git_dirs(self) -> tuple[str, ...]:
        """Each root's ``.git`` (a folder or a file pointing elsewhere), which must not be
        renamed, replaced or redirected while git's own writes inside it go on."""
        return tuple(posixpath.join(root, GIT) for root in self.roots)

    def _covers(self, path: str) -> str | None:
        for file in self.code_files:
            if path == file:
                return file
        key = os.environ.get(KEY_ENV)
        if key and path in (posixpath.abspath(key), real(key)):
            return posixpath.abspath(key)
        if key and inside(path, heads := _key_heads(key)):
            return heads
        for entry in self._home_entries:
            if inside(path, entry):
                return entry
        for root in self._tops:
            parts = path[len(root) :].strip("/").split("/")
            if path != root and inside(path, root) and (found := _in_root(root, parts)):
                return found
        return None


def protected_set(
    roots: Iterable[str], *, home: str | None = None, code_files: Iterable[str] = ()
) -> ProtectedSet:
    """The protected set of a workspace: ``roots`` (absolute), ``home`` (the user's by
    default) and the code files the settings name (absolute; real paths are added)."""
    home = posixpath.normpath(home or user_home())
    return _made(tuple(roots), home, tuple(code_files))


@lru_cache(maxsize=64)
def _made(roots: tuple[str, ...], home: str, code_files: tuple[str, ...]) -> ProtectedSet:
    files = dict.fromkeys(f for file in code_files for f in (posixpath.normpath(file), real(file)))
    return ProtectedSet(tuple(posixpath.normpath(r) for r in roots), home, tuple(files))


def _in_root(root: str, parts: list[str]) -> str | None:
    """The protected entry a path ``root/parts...`` lies in, at any depth."""
    for index, part in enumerate(parts):
        if part in NAMES:
            return posixpath.join(root, *parts[: index + 1])
        if part == GIT:
            depth = _git_code(parts[index + 1 :])
            return None if depth is None else posixpath.join(root, *parts[: index + 1 + depth])
    return None


def _git_code(rest: list[str]) -> int | None:
    """How many parts of ``rest`` (below a ``.git``) name the protected entry holding it (0:
    the git folder itself); None when it is git's normal work (objects, refs, the index)."""
    index = 0
    while True:
        if index == len(rest):
            return index  # the git folder itself, a submodule's or a worktree's
        head = rest[index]
        if head in GIT_CODE:
            return index + 1
        if head not in GIT_NESTED:
            return None
        if index + 1 == len(rest):
            return index + 1  # `modules` or `worktrees` whole
        index += 2


def _paths(
    roots: tuple[str, ...], home: str, code_files: tuple[str, ...], key: str
) -> tuple[str, ...]:
    found: list[str] = []
    for root in roots:
        found += (posixpath.join(root, name) for name in NAMES)
        found += _git_parts(posixpath.join(root, GIT), 0)
    found += (posixpath.join(home, name) for name in HOME_NAMES)
    found += [posixpath.abspath(key), _key_heads(key)] if key else []
    return tuple(dict.fromkeys((*found, *code_files)))


def secret_paths(home: str | None = None) -> tuple[str, ...]:
    """What a sandboxed command must not even read: hookline's per-user keys
    (``~/.hookline/keys``: the key and the audit's kept heads) and the key file
    ``$HOOKLINE_STATE_KEY_FILE`` names, with the heads beside it. Whoever reads the key can
    forge the audit's chain and a paused session's seal. The keys folder of every home the
    user may go by: ``home`` (the one judged), ``$HOME`` (where this process keeps its key) and
    the account's home in the password database (where ``~user`` leads, whatever ``$HOME``
    says)."""
    key = os.environ.get(KEY_ENV, "")
    homes = (home, user_home(), account_home())
    return _secret_places(homes, posixpath.abspath(key) if key else "")


@lru_cache(maxsize=16)
def _secret_places(homes: tuple[str | None, ...], key: str) -> tuple[str, ...]:
    """``secret_paths`` of these homes and absolute key file (the same every call of a
    session)."""
    found = [posixpath.join(posixpath.normpath(h), ".hookline", "keys") for h in homes if h]
    found += [key, _key_heads(key)] if key else []
    return tuple(dict.fromkeys(found))


def is_key_file(found: os.stat_result) -> bool:
    """Whether the file ``found`` describes is one of the per-user key files (the key, the
    audit's kept heads) under whatever name: a hard link is the same file under a name the
    rules allow. Only a regular file with more than one name can be, so the key folders are
    walked only for those."""
    if not stat.S_ISREG(found.st_mode) or found.st_nlink < 2:
        return False
    for place in secret_paths():
        below = (os.path.join(top, name) for top, _, names in os.walk(place) for name in names)
        for path in (place, *below):
            with suppress(OSError):
                if os.path.samestat(found, os.stat(path)):
                    return True
    return False


@lru_cache(maxsize=1)
def account_home() -> str | None:
    """This process's user's home in the password database (None where there is none)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_dir or None
    except KeyError:  # a uid with no entry (a container's arbitrary user)
        return None


def _key_heads(key: str) -> str:
    """The audit's heads folder beside the key file ``key``."""
    return posixpath.join(posixpath.dirname(posixpath.abspath(key)), KEY_HEADS)


def _git_parts(git: str, depth: int) -> Iterator[str]:
    yield from (posixpath.join(git, name) for name in GIT_CODE)
    if depth >= _MODULE_DEPTH:
        yield from (posixpath.join(git, name) for name in GIT_NESTED)  # too deep: whole
        return
    for nested in GIT_NESTED:
        folder = posixpath.join(git, nested)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            yield from _git_parts(posixpath.join(folder, name), depth + 1)

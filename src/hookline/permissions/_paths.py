"""Paths as the file system will see them: made absolute, ``~`` expanded, symlinks resolved.

``.hookline`` (transcripts, the store, the audit) is out of reach of reading tools altogether;
what no tool writes unasked is the protected set (``hookline.permissions._protected``).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from contextvars import ContextVar
from functools import lru_cache

#: Folders inside a workspace root that hold hookline's, Claude Code's and git's own files.
PROTECTED = (".claude", ".hookline", ".git")
#: The folder no tool reads: hookline's own state.
PRIVATE = ".hookline"
#: Within ``snapshot()``: each path resolved so far, and its real path.
_SEEN: ContextVar[dict[str, str] | None] = ContextVar("hookline_real_paths", default=None)


def absolute(path: str, cwd: str, home: str | None = None) -> str:
    """``path`` made absolute against ``cwd``, ``~`` expanded, ``..`` folded (no symlinks)."""
    return posixpath.normpath(posixpath.join(cwd, expand_home(path, home)))


def expand_home(path: str, home: str | None = None) -> str:
    """``~`` and ``~/x`` against ``home`` (the user's by default); ``~user`` as the system says."""
    if path == "~" or path.startswith("~/"):
        return (home or user_home()) + path[1:]
    return posixpath.expanduser(path) if path.startswith("~") else path


def user_home() -> str:
    """``~`` as ``posixpath.expanduser`` has it (``$HOME`` now, else the password database),
    with one look at the environment where it takes two."""
    home = os.environ.get("HOME")
    return posixpath.expanduser("~") if home is None else home.rstrip("/") or "/"


def real(path: str) -> str:
    """``path`` with every symlink resolved (as far as the file system has it; a loop stops);
    within ``snapshot()``, as it was first found there."""
    seen = _SEEN.get()
    if seen is None:
        return os.path.realpath(path)
    found = seen.get(path)
    if found is None:
        found = seen[path] = os.path.realpath(path)
    return found


def snapshot() -> Snapshot:
    """Within the block, each path is resolved once: one decision judges the file system as
    it found it (its checks ask for the same paths again and again), and a link changed
    midway cannot make two of its checks see two different files."""
    return Snapshot()


class Snapshot:
    """``snapshot()``'s block: a ``with`` of its own, not a generator's (one per decision)."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = _SEEN.set(_SEEN.get() or {})

    def __exit__(self, *exc: object) -> None:
        _SEEN.reset(self._token)


def forms(path: str, cwd: str, home: str | None = None) -> tuple[str, ...]:
    """The path as given (absolute) and its real path, when they differ."""
    given = absolute(path, cwd, home)
    resolved = real(given)
    return (given,) if resolved == given else (given, resolved)


def inside(path: str, root: str) -> bool:
    """Whether absolute, normalised ``path`` is ``root`` or below it."""
    return path == root or path.startswith(root if root.endswith("/") else root + "/")


def protected_part(
    path: str, roots: Iterable[str], names: Iterable[str] = PROTECTED, *, resolve: bool = True
) -> str | None:
    """The protected folder (``<root>/.git``, ``<root>/sub/.claude``) that absolute ``path``
    lies in, at any depth below a root, checked on the path and (``resolve``) on its real path;
    None if none. Pass the home folder among the roots to cover ``~/.claude`` too."""
    wanted = frozenset(names)
    for candidate in dict.fromkeys((path, real(path)) if resolve else (path,)):
        for root in _tops(tuple(roots)):
            if candidate == root or not inside(candidate, root):
                continue
            parts = candidate[len(root) :].strip("/").split("/")
            hit = next((i for i, part in enumerate(parts) if part in wanted), None)
            if hit is not None:
                return posixpath.join(root, *parts[: hit + 1])
    return None


@lru_cache(maxsize=64)
def _tops(roots: tuple[str, ...]) -> tuple[str, ...]:
    """The roots and their real paths (a workspace root stays put for a session)."""
    return tuple(dict.fromkeys(top for root in roots for top in (root, real(root))))

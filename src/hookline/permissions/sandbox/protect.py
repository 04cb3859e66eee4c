"""The protected set as the sandbox keeps it: what to bind read-only, and each ``.git`` to pin.

The set is the permission layer's protected set (one place for that idea, ``protected`` beside
``policy``); this module asks it for the paths of the sandbox's roots and the code files the
settings name. Where that module is not there, the same documented list is written out here.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Sequence
from typing import Final

#: The documented list (the protected set's own module holds it).
_NAMES: Final = (".claude", ".hookline", ".mcp.json")
_GIT_CODE: Final = ("hooks", "info", "config", "config.worktree", "commondir", "gitdir")
_GIT_NESTED: Final = ("modules", "worktrees")
_HOME_NAMES: Final = (".claude", ".hookline")


def protected_entries(
    roots: Sequence[str], *, code_files: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """The protected paths (existing or not) and each root's ``.git``."""
    home = os.path.expanduser("~")
    try:
        module = importlib.import_module("hookline.permissions.protected")
    except ImportError:
        return _documented(roots, home, code_files), [os.path.join(r, ".git") for r in roots]
    found = module.protected_set(tuple(roots), home=home, code_files=tuple(code_files))
    return list(found.paths()), list(found.git_dirs())


def _documented(roots: Sequence[str], home: str, code_files: Sequence[str]) -> list[str]:
    found: list[str] = []
    for root in roots:
        found += (os.path.join(root, name) for name in _NAMES)
        found += _git_parts(os.path.join(root, ".git"), 0)
    found += (os.path.join(home, name) for name in _HOME_NAMES)
    key = os.environ.get("HOOKLINE_STATE_KEY_FILE")
    found += [os.path.abspath(key)] if key else []
    return list(dict.fromkeys((*found, *code_files)))


def _git_parts(git: str, depth: int) -> Iterator[str]:
    yield from (os.path.join(git, name) for name in _GIT_CODE)
    for nested in _GIT_NESTED:
        folder = os.path.join(git, nested)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        if depth >= 4:
            yield folder
            continue
        for name in names:
            yield from _git_parts(os.path.join(folder, name), depth + 1)

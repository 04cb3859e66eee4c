"""File rules: secrets stay unread, edits stay in the workspace and land at their real path.

Standard library only, so the Claude Code command hook needs nothing installed. The Bash guard
reuses ``is_secret`` to spot the same files on a command line.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any

#: File names whose content must never reach the model (matched on the name, ignoring case).
SECRET_NAMES = (".env", ".env.*", "*.pem", "*.key", "id_rsa*")
SECRET_ADVICE = (
    "it holds secrets, which must not enter this conversation: do not try another way to read "
    "it (cat, grep, cp, a symlink, a script). If code needs one of its values, read it at run "
    "time by its variable name (os.environ['NAME']); ask the user which names exist."
)
#: The guard's own files, in the folder it is installed in: not the model's to change.
GUARD_FILES = ("hooks", "hooks.py", ".claude")
#: What each file tool names its path.
PATH_KEYS = {"Read": "file_path", "Edit": "file_path", "Write": "file_path", "Grep": "path"}
WRITERS = frozenset({"Edit", "Write"})
#: Names a Grep ``glob`` is tried against: one that picks out these reaches for secrets (one
#: that matches any file, such as ``*``, is left to the ``Read(...)`` deny rules).
_SECRET_SAMPLES = (".env", ".env.local", "server.pem", "server.key", "id_rsa", "id_rsa.pub")
_PLAIN_SAMPLE = "notes.txt"


def is_secret(path: str) -> bool:
    """Whether the last part of ``path`` names a secret file (``.env``, ``x.pem``, ...)."""
    name = posixpath.basename(path.rstrip("/")).lower()
    return any(fnmatchcase(name, pattern) for pattern in SECRET_NAMES)


def real_path(path: str, *, workspace: str) -> str:
    """``path`` as the file system will write it: ``~`` expanded, made absolute against the
    workspace, ``..`` folded and every symlink resolved."""
    return os.path.realpath(posixpath.join(workspace, os.path.expanduser(path)))


def inside(path: str, folder: str) -> bool:
    """Whether absolute, normalised ``path`` is ``folder`` or lies below it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def refuse(
    tool_name: str, tool_input: Mapping[str, Any], *, workspace: str, guard_dir: str
) -> str | None:
    """Why this file tool call must not run, or None (``guard_dir``: where the guard is)."""
    key = PATH_KEYS.get(tool_name)
    path = tool_input.get(key) if key else None
    if tool_name == "Grep" and _glob_reaches_secrets(tool_input.get("glob")):
        return f"coding-guard: this Grep glob reaches secret files; {SECRET_ADVICE}"
    if not isinstance(path, str):
        return None if tool_name == "Grep" else f"coding-guard: {tool_name} gives no {key}."
    root = os.path.realpath(workspace)
    real = real_path(path, workspace=root)
    if tool_name in WRITERS and not inside(real, root):
        return (
            f"coding-guard: {path} leads to {real}, outside the workspace {root}. {tool_name} "
            f"stays inside it: give a path under {root}."
        )
    if is_secret(path) or is_secret(real):
        return f"coding-guard: {path} is a secret file; {SECRET_ADVICE}"
    if tool_name in WRITERS and _guard_file(real, os.path.realpath(guard_dir)):
        return (
            f"coding-guard: {path} is part of the guard itself, which the agent may not change. "
            "Ask the user to change the guard if it is in your way."
        )
    return None


def _glob_reaches_secrets(pattern: object) -> bool:
    if not isinstance(pattern, str):
        return False
    last = pattern.rstrip("/").rpartition("/")[2]
    picks = any(fnmatchcase(sample, last) for sample in _SECRET_SAMPLES)
    return is_secret(last) or (picks and not fnmatchcase(_PLAIN_SAMPLE, last))


def _guard_file(real: str, guard_dir: str) -> bool:
    return any(inside(real, posixpath.join(guard_dir, name)) for name in GUARD_FILES)

"""Where the words of a parsed Bash command point: folders, path patterns, expanded globs.

A ``Word`` becomes an absolute path pattern: ``~`` (or ``$HOME``) expanded where it was
unquoted, joined to the folder the command runs in, ``..`` folded, and quoted ``*?[`` escaped
so that only the globs Bash expands stay globs. ``expand`` matches such a pattern against the
file system (hidden files included, as if ``dotglob`` were set, to err towards more paths);
``located`` resolves symlinks, and says why when it cannot (a loop, an unreadable folder).
Nothing here runs a command. ``__all__`` is what a hook may use (``hookline.permissions`` lists
this module as public); the rest serves the permission layer.
"""

from __future__ import annotations

import errno
import glob
import os
import posixpath
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

import hookline.permissions._paths as paths

if TYPE_CHECKING:
    from hookline.permissions.bash import Command
    from hookline.permissions.bash._words import Word

__all__ = ["MAX_MATCHES", "TooManyMatches", "Unresolved", "expand", "folder", "located"]

#: Matches one glob may have before it counts as unprovable.
MAX_MATCHES = 10_000
_SPECIAL = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class Unresolved:
    """Why a path could not be followed to where it really is."""

    reason: str


def folder(command: Command, cwd: str, home: str) -> str | None:
    """The absolute folder ``command`` runs in; None when a ``cd`` went somewhere unknowable."""
    if command.cwd is None or _searched(command.cwd):
        return None
    if not command.cwd:
        return posixpath.normpath(cwd)
    return paths.absolute(command.cwd, cwd, home)


def _searched(target: str) -> bool:
    """Whether Bash's ``cd`` may look ``target`` up in an inherited ``CDPATH`` instead."""
    plain = target and not target.startswith(("/", "~", "./", "../")) and target not in (".", "..")
    return bool(plain and os.environ.get("CDPATH"))


def pattern(word: Word, where: str, home: str) -> str | None:
    """``word`` as an absolute glob pattern (quoted glob characters escaped), relative to
    ``where``; None when its value is only known at run time."""
    if word.value is None:
        return None
    chars = _chars(word)
    text = "".join(f"[{c}]" if c in _SPECIAL and quoted else c for c, quoted in chars)
    if word.tilde:
        head, slash, rest = text.partition("/")
        expanded = _tilde(head, where, home)
        if expanded is None:
            return None
        text = glob.escape(expanded) + slash + rest
    if text.startswith("/"):
        return posixpath.normpath(text)
    return _joined(glob.escape(where), text)


def relative_parts(word: Word) -> tuple[str, ...] | None:
    """The parts of a relative word as a pattern (None if absolute, ``~`` or unknowable)."""
    if word.value is None or word.tilde or word.value.startswith("/"):
        return None
    text = "".join(f"[{c}]" if c in _SPECIAL and quoted else c for c, quoted in _chars(word))
    return tuple(part for part in text.split("/") if part)


def anchored(word: Word) -> bool:
    """Whether ``word`` names the same place from any folder: an absolute path, ``~`` or
    ``~user`` (not ``~+``, the folder itself, nor ``~-`` or the directory stack)."""
    value = word.value
    if value is None:
        return False
    if not word.tilde:
        return value.startswith("/")
    head = value.partition("/")[0]
    return head == "~" or not (head[1:2] in ("+", "-") or head[1:].isdigit())


def literal(word: Word, where: str, home: str, *, fold: bool = True) -> str | None:
    """``word`` as an absolute path, its glob characters taken as they are; ``..`` folded
    unless ``fold`` is False (the kernel goes through a link before ``..``). None when only run
    time knows it: a variable, or ``~-``/``~N`` (the previous folder, the directory stack)."""
    if word.value is None:
        return None
    value = word.value
    if word.tilde:
        head, slash, rest = value.partition("/")
        expanded = _tilde(head, where, home)
        if expanded is None:
            return None
        value = expanded + slash + rest
    return _joined(where, value) if fold else posixpath.join(where, value)


def _tilde(head: str, where: str, home: str) -> str | None:
    """What Bash makes of a leading ``~`` word part: ``~`` the home folder, ``~+`` the folder
    (``$PWD``), ``~user`` that user's home (left as it is when there is no such user); None
    for ``~-`` (``$OLDPWD``) and the directory stack (``~1``, ``~+1``, ``~-1``)."""
    if head == "~":
        return home
    if head == "~+":
        return where
    if head == "~-" or head[1:].lstrip("+-").isdigit():
        return None
    return paths.expand_home(head, home)


class TooManyMatches(Exception):
    """A glob matched more paths than ``MAX_MATCHES``."""


def expand(word: Word, where: str, home: str, *, limit: int | None = None) -> list[str]:
    """The absolute paths ``word`` names: its glob's matches, or the word itself when it has
    no glob or the glob matches nothing (as Bash leaves it). Raises ``TooManyMatches``."""
    path = literal(word, where, home)
    if path is None:
        return []  # only run time knows it: callers check ``literal`` first
    if not word.glob:
        return [path]
    found = pattern(word, where, home) or path
    limit = MAX_MATCHES if limit is None else limit
    try:
        matches = list(islice(glob.iglob(found, include_hidden=True), limit + 1))
    except OSError:
        matches = []
    if len(matches) > limit:
        raise TooManyMatches(found)
    return sorted(posixpath.normpath(m) for m in matches) or [path]


def located(path: str) -> str | Unresolved:
    """Where absolute ``path`` really is: symlinks resolved, and for a path that does not
    exist yet, its nearest existing folder resolved with the rest appended."""
    missing: list[str] = []
    current = path
    while True:
        try:
            resolved = os.path.realpath(current, strict=True)
        except FileNotFoundError:
            parent, name = posixpath.split(current)
            if parent == current:
                return Unresolved(f"`{path}` does not lead to any folder")
            missing.insert(0, name)
            current = parent
            continue
        except OSError as exc:
            return Unresolved(_why(path, exc))
        return posixpath.join(resolved, *missing) if missing else resolved


def itself(path: str) -> str | Unresolved:
    """Where the entry ``path`` itself lies (its folder resolved, a final symlink not)."""
    parent, name = posixpath.split(path)
    if not name:
        return located(path)
    where = located(parent)
    return where if isinstance(where, Unresolved) else posixpath.join(where, name)


def _why(path: str, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return f"`{path}` goes through a symlink loop"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"`{path}` is in a folder hookline cannot read"
    return f"`{path}` cannot be followed: {exc.strerror or exc}"


def _chars(word: Word) -> list[tuple[str, bool]]:
    value = word.value or ""
    mask = word.mask if len(word.mask) == len(value) else ("." if word.glob else "q") * len(value)
    return [(c, m != ".") for c, m in zip(value, mask, strict=True)]


def _joined(where: str, value: str) -> str:
    return posixpath.normpath(posixpath.join(where, value))

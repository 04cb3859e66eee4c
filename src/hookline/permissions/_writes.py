"""What a Bash line writes, and whether each write is proven to miss the protected set.

``why_protected`` is None only when every write the line itself makes is proven to lie outside
the protected set (``hookline.permissions._protected``); otherwise it says, in a phrase that
follows the line's name, what may write into it. The writes it knows (``write_targets``):

- write redirects (``>``, ``>>``, ``&>``, ``<>``...), except to ``/dev/null``, stdout, stderr;
- the file arguments of the writing programs (``hookline.permissions._writers``: ``cp``,
  ``mv``, ``ln``, ``install``, ``rsync``, ``tee``, ``touch``, ``truncate``, ``rm``, ``mkdir``,
  ``chmod``, ``sed -i``, ``dd of=``, ``find -delete``/``-fprint``, ``tar x``, ``unzip``,
  ``patch``, ``git config``/``remote``/``submodule``/``worktree``...): for them every operand
  counts as written, a folder among them as written to by name (``cp x dir`` writes
  ``dir/x``), and a folder that a delete, a move or a recursive copy takes whole as changed
  with all it holds;
- a writing option's value (``--output=``, ``--log-file=``) on any program;
- the tracked files a git command rewrites (``hookline.permissions._gittree``: ``checkout``,
  ``reset --hard``, ``stash``, ``merge``, ``apply``...), judged against the repository's index;
- the literal paths of any other program that is not read-only, and its arguments only run
  time completes when they name a protected folder or file as a part (``"$PWD/.git/config"``).

Proven means: a literal path (no variable, no substitution; ``~+`` is the known folder,
``~-`` and the directory stack are not known), from a known folder (a ``cd`` only run time can
follow makes it unknown; after a ``cd`` the session's own folder is tried too, in case the
``cd`` failed or ran in a subshell), globs expanded and symlinks resolved (a final link both
followed and not). A write of a program that gets more arguments at run time (``xargs rm``,
``find -exec rm {} +``) is not proven either.
"""

from __future__ import annotations

import os
import posixpath
import re
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

import hookline.permissions._gittree as gittree
from hookline.permissions import targets
from hookline.permissions._protected import ProtectedSet
from hookline.permissions._readonly import why_command_not_read_only
from hookline.permissions._writers import GIT_CONFIG_FILE, Target, write_targets
from hookline.permissions.bash._words import Word

if TYPE_CHECKING:
    from hookline.permissions.bash import Analysis, Command


def why_protected(analysis: Analysis, *, cwd: str, protected: ProtectedSet) -> str | None:
    """What in ``analysis`` may write into ``protected``; None when nothing can."""
    for index, command in enumerate(analysis.commands):
        found = write_targets(command)
        if isinstance(found, str):
            return found
        for target in found:
            if why := _judge(target, command, cwd, protected):
                return why
        if (
            command.name == "git"
            and not command.wrapper
            and (why := _git_tree(analysis, index, cwd, protected))
        ):
            return why
    return None


def _git_tree(analysis: Analysis, index: int, cwd: str, protected: ProtectedSet) -> str | None:
    """A git command that rewrites tracked files (``gittree``), in each folder it may run in."""
    command = analysis.commands[index]

    def others_write() -> bool:
        return any(
            i != index and not c.wrapper and why_command_not_read_only(c) is not None
            for i, c in enumerate(analysis.commands)
        )

    folders: list[str | None] = [*_folders(command, cwd, protected.home)] or [None]
    for folder in folders:
        if why := gittree.why_protected(command, folder, protected, others_write=others_write):
            return why
    return None


def _judge(target: Target, command: Command, cwd: str, protected: ProtectedSet) -> str | None:
    word = target.word
    if word.value == GIT_CONFIG_FILE:
        return _git_config(command, cwd, protected)
    if word.value is None:
        if not target.strict and not _names_protected(word.raw):
            return None
        said = f"has `{command.name}` write to `{word.raw}`, which only run time knows"
        return said + " (it may be protected)"
    folders = _folders(command, cwd, protected.home)
    if not folders:
        if (word.tilde and not word.value.startswith("~+")) or word.value.startswith("/"):
            folders = ["/"]
        elif target.strict:
            return f"writes to `{word.raw}` after a `cd` to a folder only run time knows"
        else:
            hit = _names_protected(word.value)
            return f"writes to `{word.raw}` after a `cd` only run time knows" if hit else None
    for folder in folders if target.strict else folders[:1]:
        if why := _judge_in(target, word, folder, protected):
            return why
    return None


#: Names that put a path in the protected set wherever it starts.
_NAMES = re.compile(r"(?:^|[/\"'}])(?:\.git|\.claude|\.hookline|\.mcp\.json)(?:$|[/\"'])")


def _names_protected(text: str) -> bool:
    """Whether a path as written names a protected folder or file as one of its parts: an
    argument of another program that only run time completes (``"$PWD/.git/config"``) may
    then be written into the set."""
    return _NAMES.search(text) is not None


def _folders(command: Command, cwd: str, home: str) -> list[str]:
    """The folders ``command`` may run in: where its ``cd`` leads, and the session's own in
    case that ``cd`` failed or ran in a subshell; [] when a ``cd`` went somewhere unknown."""
    if command.cwd is None:
        return []
    found = targets.folder(command, cwd, home)
    return list(dict.fromkeys(p for p in (found, posixpath.normpath(cwd)) if p))


def _judge_in(target: Target, word: Word, folder: str, protected: ProtectedSet) -> str | None:
    home = protected.home
    given = targets.literal(word, folder, home)
    unfolded = targets.literal(word, folder, home, fold=False)
    if given is None or unfolded is None:
        return f"writes to `{word.raw}`, whose `~` part only run time knows (it may be protected)"
    try:
        found = targets.expand(word, folder, home)
    except targets.TooManyMatches:
        return f"writes to `{word.raw}`, which has too many matches to check"
    for path in dict.fromkeys([*found, given, unfolded]):
        if why := _path(target, path, protected):
            return why
    return None


def _forms(path: str) -> list[str] | targets.Unresolved:
    """``path`` as written (folded), the entry itself (its folder resolved) and where it leads
    (a final link followed too): one resolve of the folder, and of the link when it is one."""
    folded = posixpath.normpath(path)
    parent, name = posixpath.split(path)
    where = targets.located(parent) if name else targets.located(path)
    if isinstance(where, targets.Unresolved):
        return where
    entry = posixpath.normpath(posixpath.join(where, name)) if name else where
    found = [folded, entry]
    if name in ("..", "."):
        return found
    if os.path.islink(entry):
        leads = targets.located(entry)
        if isinstance(leads, targets.Unresolved):
            return leads
        found.append(leads)
    itself = targets.itself(folded) if folded != path else folded  # `..` folded before a link
    if isinstance(itself, targets.Unresolved):
        return itself
    return [*found, itself]


def _path(target: Target, path: str, protected: ProtectedSet) -> str | None:
    forms = _forms(path)
    if isinstance(forms, targets.Unresolved):
        return f"writes to `{target.word.raw}`, which cannot be followed: {forms.reason}"
    for form in dict.fromkeys(forms):
        if form == "/proc" or form.startswith("/proc/"):  # `/proc/self/cwd`: the shell's, not ours
            return f"writes to `{target.word.raw}` through /proc, which leads where run time says"
        if entry := protected.covers(form, resolve=False):
            return f"writes into {entry}, which is protected"
        if target.tree and target.names and os.path.isdir(form):
            try:
                hit = _find_hit(form, target.names, protected)
            except OSError as exc:
                hit = f"a folder that cannot be read ({exc.strerror})"
            if hit:
                return f"may delete below `{target.word.raw}` {hit}"
        elif target.tree and os.path.isdir(form) and (entry := protected.holds(form)):
            return f"changes `{target.word.raw}` whole, which holds {entry}, which is protected"
        if target.beside and os.path.isdir(form):
            for other in target.beside:
                if other.value is None:
                    return f"writes into `{target.word.raw}` a name only run time knows"
                name = posixpath.basename(other.value.rstrip("/"))
                if name and (entry := protected.covers(posixpath.join(form, name))):
                    return f"writes into {entry}, which is protected"
    return None


def _git_config(command: Command, cwd: str, protected: ProtectedSet) -> str | None:
    folders = _folders(command, cwd, protected.home)
    if not folders or any(e.partition("=")[0].startswith("GIT_") for e in command.env):
        return "writes a git config only run time can find"
    for folder in folders:
        current = folder
        while True:
            git = posixpath.join(current, ".git")
            if os.path.lexists(git):
                if entry := protected.covers(posixpath.join(git, "config")):
                    return f"writes into {entry}, which is protected"
                break
            parent = posixpath.dirname(current)
            if parent == current:
                break
            current = parent
    return None


#: Files a ``find -delete`` may walk through to prove it misses the protected set.
MAX_WALK = 20_000


def _find_hit(top: str, names: tuple[tuple[str, bool], ...], protected: ProtectedSet) -> str:
    """The first protected file below ``top`` that every pattern matches ('' if none); a
    phrase saying why when the walk is too long or fails."""
    seen = 0
    for folder, dirs, files in os.walk(top, onerror=_raise):
        for name in (*dirs, *files):
            seen += 1
            if seen > MAX_WALK:
                return f"more than {MAX_WALK} files to check"
            if all(fnmatchcase(name.lower() if low else name, p) for p, low in names):
                path = posixpath.join(folder, name)
                if entry := protected.covers(path):
                    return f"{path}, in {entry}, which is protected"
    return ""


def _raise(error: OSError) -> None:
    raise error

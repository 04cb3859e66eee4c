"""Recursive deletes and changes of mode or owner that reach a protected place.

The ``rm-root`` and ``chmod-root`` entries of the dangerous tier
(``hookline.permissions._dangerous``): ``rm -r``, ``chmod -R``, ``chown -R``, ``chgrp -R``,
``find -delete`` and ``find -exec`` of a deleting program, each judged on what it targets
(``reaches``: a path or glob that can name ``/``, a system folder, the home folder, a workspace
root, or everything in one), and the proofs that let such a call run unasked when every target
is proven harmless.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from fnmatch import fnmatchcase

import hookline.permissions._proving as proving
from hookline._support.words import words
from hookline.permissions import targets
from hookline.permissions._proving import Place
from hookline.permissions.bash import Analysis, Command
from hookline.permissions.bash._options import Options, Read, read
from hookline.permissions.bash._words import Word, literal

_EVERYTHING = re.compile(r"\.?(?:\*|\?|\[[!^][^]]+\]|\[[^]]*-[^]]+\])*")
_DELETERS = frozenset({"rm", "chmod", "chown", "chgrp", "shred", "unlink", "rmdir"})
#: Tests that make ``find -delete`` pick some files: then only ``/`` and system folders count.
_FIND_FILTERS = words(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -newer "
    "-mtime -mmin -atime -amin -ctime -cmin -size -empty -user -group -perm -links -inum "
    "-samefile"
)


def reaches(word: Word, command: Command, place: Place, *, system_only: bool = False) -> bool:
    """Whether the path or glob ``word`` can name a protected place, or everything in one
    (``system_only``: only ``/`` and the system folders count)."""
    where = targets.folder(command, place.cwd, place.home)
    if where is None and not targets.anchored(word):
        relative = targets.relative_parts(word)
        return relative is not None and all(p in (".", "..") or _everything(p) for p in relative)
    pattern = targets.pattern(word, where or "/", place.home)
    if pattern is None:
        return False
    parts = _parts(pattern)
    protected = place.protected(system_only=system_only)
    return any(_covers(parts, _parts(path)) for path in protected)


def _parts(path: str) -> list[str]:
    return [part for part in path.split("/") if part]


def _covers(pattern: list[str], place: list[str]) -> bool:
    if len(pattern) < len(place) or not all(map(fnmatchcase, place, pattern)):
        return False
    return all(_everything(part) for part in pattern[len(place) :])


def _everything(part: str) -> bool:
    """Whether a glob part matches (nearly) every name in its folder: ``*``, ``?*``, ``[a-z]*``."""
    return "*" in part and _EVERYTHING.fullmatch(part) is not None


#: Options of the programs the tier reads; long names listed so abbreviations resolve.
_RM = Options.of(
    "fiIrRdv",
    "",
    "--force --interactive --one-file-system --no-preserve-root --preserve-root --recursive "
    "--dir --verbose",
)
_CHANGE = Options.of(
    "cfvRhHLP",
    "",
    "--changes --silent --quiet --verbose --no-preserve-root --preserve-root --recursive "
    "--dereference --no-dereference",
    "--reference --from",
)
_MODE = re.compile(r"-[rwxXstugo]*(?:[-+=][rwxXstugo]*)*(?:,[ugoa]*(?:[-+=][rwxXstugo]*)+)*")


def _recursive(command: Command, given: Read) -> bool:
    """Recursion asked for, or a word only run time knows (``rm $FLAGS /``, ``xargs rm``)."""
    return command.more_args or any(
        not option.known or option.name in ("r", "R", "--recursive") for option in given.options
    )


def _deleted(command: Command) -> list[Word]:
    """What a recursive delete removes: ``rm -r``'s operands, where ``find`` deletes from."""
    if command.name == "rm":
        given = read(command.args, _RM)
        if not _recursive(command, given):
            return []
        return [*given.operands, *_unknowable(given), *([_ADDED] if command.more_args else [])]
    if command.name == "find" and _find_deletes(command):
        return list(proving.find_starts(command))
    return []


def _changed(command: Command) -> list[Word]:
    """What a recursive ``chmod``/``chown``/``chgrp`` changes (its mode or owner left out)."""
    if command.name not in ("chmod", "chown", "chgrp"):
        return []
    words = list(command.args)
    if command.name == "chmod":  # `chmod -x f`: the first word that reads as a mode is one
        at = next((i for i, w in enumerate(words) if _MODE.fullmatch(w.value or "")), None)
        words = words if at is None else [*words[:at], literal("mode"), *words[at + 1 :]]
    given = read(words, _CHANGE)
    if not _recursive(command, given):
        return []
    operands = given.operands if given.named("--reference") else given.operands[1:]
    return [*operands, *_unknowable(given), *([_ADDED] if command.more_args else [])]


def _unknowable(given: Read) -> list[Word]:
    """Words only run time knows, read as options: each may as well be a target."""
    return [o.value for o in given.options if not o.name and o.value is not None]


_ADDED = Word(None, raw="the arguments it is given at run time")


def _find_deletes(command: Command) -> bool:
    """``find -delete``, or a deleting program (``rm``, ``shred``...) anywhere in its
    ``-exec``/``-ok`` commands (``find ~ -exec env rm -rf {} +``)."""
    values = [a.value or "" for a in command.args]
    if "-delete" in values:
        return True
    runs = False
    for value in values:
        if value in ("-exec", "-execdir", "-ok", "-okdir"):
            runs = True
        elif value in (";", "+"):
            runs = False
        elif runs and any(posixpath.basename(t) in _DELETERS for t in value.split()):
            return True
    return False


def recursive_delete(command: Command, place: Place) -> bool:
    if command.name == "find":
        if not _find_deletes(command):
            return False
        filtered = _filtered(command)
        starts = proving.find_starts(command, links=False)
        return any(reaches(w, command, place, system_only=filtered) for w in starts)
    found = (proving.FOUND, proving.FOUND_ANY)
    return any(reaches(w, command, place) for w in _deleted(command) if w.raw not in found)


def _filtered(command: Command) -> bool:
    """Whether ``find`` has a test that picks some files ahead of its first action, and no
    ``-o``, ``-not``, ``!`` or ``,`` (``-name '*'`` picks every one)."""
    values = [a.value or "" for a in command.args]
    if {"-o", "-or", ",", "!", "-not"} & set(values):
        return False
    for index, value in enumerate(values[:-1]):
        if value in proving.FIND_ACTIONS:
            return False
        if value in _FIND_FILTERS and not (
            value in ("-name", "-iname", "-path", "-ipath") and _everything(values[index + 1])
        ):
            return True
    return False


def recursive_change(command: Command, place: Place) -> bool:
    found = (proving.FOUND, proving.FOUND_ANY)
    return any(reaches(w, command, place) for w in _changed(command) if w.raw not in found)


# The proofs: each says why one target of the line is not proven harmless.


def prove_deletes(analysis: Analysis, place: Place) -> str | None:
    if why := proving.renaming(analysis):
        return f"{why}, so no command on the line can be proven"
    return _prove(analysis, place, _deleted, "a recursive delete")


def prove_changes(analysis: Analysis, place: Place) -> str | None:
    return _prove(analysis, place, _changed, "a recursive change of owner or mode")


def _prove(
    analysis: Analysis, place: Place, found: Callable[[Command], list[Word]], what: str
) -> str | None:
    for item in proving.seen(analysis):
        for word in found(item.command):
            picks = item.command.name == "find" and proving.find_picks(item.command)
            root_ok = picks or word.raw == proving.FOUND
            why = proving.why_unproven(word, item, place, analysis, root_ok=root_ok)
            if why:
                return f"{what} (`{item.command.name}`) cannot be proven harmless: {why}"
    return None

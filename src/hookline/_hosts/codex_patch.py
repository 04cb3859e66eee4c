"""Codex's ``apply_patch`` read as the file changes it makes, each judged as the call of
hookline's that makes it.

Codex edits files with one tool, ``apply_patch``, whose hook payload carries the patch text in
``tool_input.command``::

    *** Begin Patch
    *** Add File: NOTES.txt
    +a line of the new file
    *** Update File: app.js
    *** Move to: main.js
    @@ function main() {
    -    return 1;
    +    return 0;
    *** Delete File: old.txt
    *** End Patch

A path is relative to the call's folder (or absolute). Each change is judged as the call that
would make it here: an added file is a ``Write`` of its content, each changed hunk an ``Edit``
of its old lines to its new ones (a hunk with no old lines, which Codex appends at the end, a
``Write`` of what it adds), a deleted file ``rm`` and a move ``mv`` in ``Bash``, so the rules
and hooks that guard those calls guard the patch. Anything this reading does not know is a
ConfigError: a call that cannot be read is refused, never waved through.
"""

from __future__ import annotations

import itertools
import posixpath
import shlex
from dataclasses import dataclass, field
from typing import Any, Final

from hookline._errors import ConfigError

BEGIN: Final = "*** Begin Patch"
END: Final = "*** End Patch"
_ADD: Final = "*** Add File: "
_DELETE: Final = "*** Delete File: "
_UPDATE: Final = "*** Update File: "
_MOVE: Final = "*** Move to: "
_END_OF_FILE: Final = "*** End of File"
#: The heredoc lines Codex's lenient reading takes a patch out of.
_HEREDOCS: Final = ("<<EOF", "<<'EOF'", '<<"EOF"')
#: What Rust's ``str::trim`` strips (Python's ``strip()`` also strips \x1c-\x1f).
_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
#: A hookline call: the tool's name and its input.
Call = tuple[str, dict[str, Any]]


@dataclass
class Change:
    """One file's part of a patch."""

    kind: str  # "add", "delete" or "update"
    path: str
    added: list[str] = field(default_factory=list)
    move_to: str | None = None
    #: Each hunk of an update: its old lines and its new lines.
    hunks: list[tuple[list[str], list[str]]] = field(default_factory=list)


def calls(patch: object, cwd: str) -> list[Call]:
    """The hookline calls that make the changes of ``patch`` (run in ``cwd``), in its order."""
    made: list[Call] = []
    for change in parse(patch):
        path = _where(change.path, cwd)
        if change.kind == "add":
            made.append(("Write", {"file_path": path, "content": _text(change.added)}))
        elif change.kind == "delete":
            made.append(("Bash", {"command": f"rm -- {shlex.quote(path)}"}))
        else:
            made.extend(_hunk_calls(path, change.hunks))
            if change.move_to is not None:
                moved = shlex.quote(_where(change.move_to, cwd))
                made.append(("Bash", {"command": f"mv -- {shlex.quote(path)} {moved}"}))
    if not made:
        raise ConfigError("apply_patch's patch changes nothing")
    return made


def _hunk_calls(path: str, hunks: list[tuple[list[str], list[str]]]) -> list[Call]:
    made: list[Call] = []
    for old, new in hunks:
        if old == new:
            continue  # context only: nothing changes
        if not old:
            made.append(("Write", {"file_path": path, "content": _text(new)}))
        else:
            edit = {"file_path": path, "old_string": _text(old), "new_string": _text(new)}
            made.append(("Edit", edit))
    return made


def parse(patch: object) -> list[Change]:
    """The changes of ``patch``, read line by line as Codex's own parser reads them (its lenient
    mode: a patch may come wrapped in a ``<<'EOF'`` heredoc); a ConfigError saying where it is
    not a patch Codex applies."""
    if not isinstance(patch, str):
        raise ConfigError("apply_patch's command is not text")
    body = _body(_lines(patch.strip(_WHITESPACE)))
    changes: list[Change] = []
    at = 0
    while at < len(body):
        change, used = _one_change(body[at:], at + 2)
        changes.append(change)
        at += used
    if not changes:
        raise ConfigError("apply_patch's patch changes no file")
    return changes


def _lines(text: str) -> list[str]:
    """``text``'s lines as Rust's ``str::lines`` makes them: split at LF only, a CR before it
    dropped (Python's ``splitlines`` would also split at other breaks Codex keeps in a line)."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _body(lines: list[str]) -> list[str]:
    """The lines between the patch's markers (inside a heredoc wrapper, if there is one)."""
    if _bounded(lines):
        return lines[1:-1]
    if len(lines) >= 4 and lines[0] in _HEREDOCS and lines[-1].endswith("EOF"):
        inner = lines[1:-1]
        if _bounded(inner):
            return inner[1:-1]
    raise ConfigError(f"apply_patch's command is not a patch from {BEGIN!r} to {END!r}")


def _bounded(lines: list[str]) -> bool:
    return (
        bool(lines)
        and lines[0].strip(_WHITESPACE) == BEGIN
        and (lines[-1].strip(_WHITESPACE) == END and len(lines) > 1)
    )


def _one_change(lines: list[str], number: int) -> tuple[Change, int]:
    """The change that starts at ``lines[0]`` (line ``number`` of the patch), and how many
    lines it takes."""
    header = lines[0].strip(_WHITESPACE)
    if header.startswith(_ADD):
        added = list(itertools.takewhile(lambda line: line.startswith("+"), lines[1:]))
        return Change("add", header[len(_ADD) :], [line[1:] for line in added]), 1 + len(added)
    if header.startswith(_DELETE):
        return Change("delete", header[len(_DELETE) :]), 1
    if header.startswith(_UPDATE):
        return _update(Change("update", header[len(_UPDATE) :]), lines[1:], number)
    raise ConfigError(f"apply_patch's line {number} is not a file's header: {header[:80]!r}")


def _update(change: Change, lines: list[str], number: int) -> tuple[Change, int]:
    """An update's move and hunks, from the lines after its header."""
    used = 1
    if lines and lines[0].startswith(_MOVE):
        change.move_to = lines[0][len(_MOVE) :]
        lines, used = lines[1:], used + 1
    while lines:
        if not lines[0].strip(_WHITESPACE):  # blank lines between hunks
            lines, used = lines[1:], used + 1
            continue
        if lines[0].startswith("*"):  # the next file's header
            break
        old, new, taken = _hunk(lines, number + used, first=not change.hunks)
        change.hunks.append((old, new))
        lines, used = lines[taken:], used + taken
    if not change.hunks:
        raise ConfigError(f"apply_patch's update of {change.path!r} (line {number}) is empty")
    return change, used


def _hunk(lines: list[str], number: int, *, first: bool) -> tuple[list[str], list[str], int]:
    """One hunk's old lines and new lines, and how many lines it takes: after an ``@@`` line
    (the first hunk may go without), lines marked " ", "-" or "+" (an empty one is an empty
    context line), up to ``*** End of File`` or the first line marked otherwise."""
    start = 1 if lines[0] == "@@" or lines[0].startswith("@@ ") else 0
    if start == 0 and not first:
        raise ConfigError(f"apply_patch's line {number} should start a hunk with @@")
    old: list[str] = []
    new: list[str] = []
    taken = 0
    for line in lines[start:]:
        if line == _END_OF_FILE:
            taken += 1
            break
        mark, text = line[:1], line[1:]
        if mark not in ("", " ", "-", "+"):
            break
        if mark != "+":
            old.append(text)
        if mark != "-":
            new.append(text)
        taken += 1
    if taken == 0 or (taken == 1 and lines[start:][:1] == [_END_OF_FILE]):
        raise ConfigError(f"apply_patch's hunk at line {number} has no lines")
    return old, new, start + taken


def _where(path: str, cwd: str) -> str:
    """``path`` as the absolute path Codex gives the file system: joined to the folder, not
    normalised (``a/..`` through a link is the link's parent, which the permission layer
    finds by resolving it)."""
    if not path:
        raise ConfigError("apply_patch names a file with no path")
    return posixpath.join(cwd, path)


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)

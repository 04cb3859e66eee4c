"""Bash lines acceptEdits may run unasked, and the protected folders a Bash line writes into.

``why_not_provable_edit`` is None only when it can prove a line just edits files inside the
workspace: every command a listed file-editing program (``mkdir``, ``touch``, ``cp``, ``mv``,
``rm`` without recursion, ``rmdir``, ``chmod`` without ``-R``) or a read-only one, with only
options it knows, and every path literal and — after ``~``, the folder a ``cd`` went to, globs
expanded against the file system and symlinks resolved — strictly inside a root and outside
``.claude``, ``.hookline`` and ``.git``. Otherwise it says what it could not prove.

``protected_writes`` lists the protected folders a line names as something it writes: a write
redirect's target, or a path argument of a command that is not read-only. What git writes into
``.git`` on its own is not counted: only paths named in the line.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from hookline.permissions import paths, targets
from hookline.permissions.bash.options import Options, read
from hookline.permissions.bash.words import Word, literal
from hookline.permissions.readonly import HARMLESS_TARGETS, PROGRAMS, why_command_not_read_only

if TYPE_CHECKING:
    from hookline.permissions.bash import Analysis, Command

_MODE = re.compile(r"[ugoa]*(?:[-+=][rwxXstugo]*)+(?:,[ugoa]*(?:[-+=][rwxXstugo]*)+)*|[0-7]{1,4}")
_SED = "`sed` is never provable: its `e` and `w` commands and `-i` can run code or write anywhere"


@dataclass(frozen=True, slots=True)
class Editor:
    """A file-editing program: the options known to be harmless (an option's value is never a
    path: ``mkdir -m 755``), and those refused, with why."""

    options: Options
    refused: dict[str, str] = field(default_factory=dict)
    #: Its first operand is a mode, not a path (``chmod``).
    mode: bool = False


_FOLDER = "takes a folder hookline cannot check"
_COPY = {"t": f"`{{}} -t` {_FOLDER}", "--target-directory": f"`{{}} --target-directory` {_FOLDER}",
         "S": "`{} -S` names backups by a suffix hookline cannot check",
         "--suffix": "`{} --suffix` names backups by a suffix hookline cannot check"}  # fmt: skip
EDITORS = {
    "mkdir": Editor(Options.of("pv", "m", "--parents --verbose", "--mode")),
    "touch": Editor(Options.of("acmfh", "dt", "--no-create --no-dereference", "--date --time")),
    "cp": Editor(Options.of("rRafinpvulPLHdxTb", "", "--recursive --archive --force "
                            "--interactive --no-clobber --preserve --no-preserve --verbose "
                            "--update --no-dereference --dereference --parents "
                            "--no-target-directory --backup --one-file-system --link"),
                 refused={**_COPY, "s": "`cp -s` makes symlinks, which can point anywhere",
                          "--symbolic-link": "`cp --symbolic-link` makes symlinks"}),
    "mv": Editor(Options.of("finvubT", "", "--force --interactive --no-clobber --verbose "
                            "--update --backup --no-target-directory"), refused=dict(_COPY)),
    "rm": Editor(Options.of("fivdI", "", "--force --verbose --dir --interactive "
                            "--one-file-system --preserve-root"),
                 refused={"r": "`rm -r` deletes recursively", "R": "`rm -R` deletes recursively",
                          "--recursive": "`rm --recursive` deletes recursively"}),
    "rmdir": Editor(Options.of("v", "", "--ignore-fail-on-non-empty --verbose"),
                    refused={"p": "`rmdir -p` removes the folders above it too",
                             "--parents": "`rmdir --parents` removes the folders above it too"}),
    "chmod": Editor(Options.of("vcf", "", "--verbose --changes --silent --quiet"),
                    refused={"R": "`chmod -R` changes a whole tree",
                             "--recursive": "`chmod --recursive` changes a whole tree",
                             "--reference": "`chmod --reference` reads a file hookline does not "
                                            "check"}, mode=True),
}  # fmt: skip


def why_not_provable_edit(
    analysis: Analysis, *, cwd: str, roots: Sequence[str], home: str | None
) -> str | None:
    """None when the line provably only edits files inside ``roots``; else what could not be
    proven, in one short phrase for the model."""
    if analysis.unknown:
        return f"what runs cannot be known: {analysis.unknown[0]}"
    if analysis.substitutions:
        return "`$(...)` runs another command"
    if analysis.recursive:
        return f"the function `{analysis.recursive[0]}` calls itself"
    where = _Where(cwd, tuple(paths.real(root) for root in roots), _home(home), tuple(roots))
    for command in analysis.commands:
        if why := _command(command, where):
            return why
    return None


def protected_writes(
    analysis: Analysis, *, cwd: str, roots: Sequence[str], home: str | None
) -> list[str]:
    """The protected folders (``<root>/.git``, ``~/.claude``) the line names as something it
    writes: write-redirect targets and the paths of commands that are not read-only."""
    where = _Where(cwd, tuple(paths.real(root) for root in roots), _home(home), tuple(roots))
    found: dict[str, None] = {}
    for command in analysis.commands:
        for word in _written(command):
            found.update(dict.fromkeys(_protected(word, command, where)))
    return list(found)


@dataclass(frozen=True, slots=True)
class _Where:
    cwd: str
    real_roots: tuple[str, ...]
    home: str
    roots: tuple[str, ...]


def _home(home: str | None) -> str:
    return posixpath.normpath(home or posixpath.expanduser("~"))


def _command(command: Command, where: _Where) -> str | None:
    name = command.name or ""
    if command.wrapper:
        return why_command_not_read_only(command)
    for redirect in command.writes:
        target = redirect.target.value if redirect.target else None
        if target not in HARMLESS_TARGETS:
            return f"a redirect writes `{target or redirect.target}`, which is not a file edit"
    if name == "sed":
        return _SED
    editor = EDITORS.get(name)
    if editor is None:
        why = why_command_not_read_only(command)
        if why is None or name in PROGRAMS:
            return why
        return f"`{name}` is not a file-editing program"
    return _editor(name, editor, command, where)


def _editor(name: str, editor: Editor, command: Command, where: _Where) -> str | None:
    if command.more_args:
        return f"`{name}` gets more arguments at run time (`xargs`, `find -exec +`)"
    if unknowable := next((w for w in command.args if w.value is None), None):
        return f"`{unknowable.raw}` is only known at run time"
    given = read(_mode_as_operand(command.args) if editor.mode else command.args, editor.options)
    for option in given.options:
        if option.name in editor.refused:
            return editor.refused[option.name].format(name)
        if not option.known:
            return f"`{name} {option.shown}` is an option hookline does not know"
    operands = given.operands[1:] if editor.mode else given.operands
    for word in operands:
        if why := _path(word, command, where):
            return why
    return None


def _mode_as_operand(args: Sequence[Word]) -> list[Word]:
    """``chmod -x f``: the first word that reads as a mode is the mode, even with its ``-``."""
    words = list(args)
    for index, word in enumerate(words):
        if (word.value or "").startswith("-") and _MODE.fullmatch(word.value or ""):
            words[index] = literal("mode")
            break
    return words


def _path(word: Word, command: Command, where: _Where) -> str | None:
    """Why a path argument is not provably inside the workspace and unprotected."""
    folder = targets.folder(command, where.cwd, where.home)
    if folder is None:
        return f"`{command.name}` runs after a `cd` to a folder only known at run time"
    if word.value is None:
        return f"`{word.raw}` is only known at run time"
    try:
        found = targets.expand(word, folder, where.home)
    except targets.TooManyMatches:
        return f"`{word.raw}` has too many matches (more than {targets.MAX_MATCHES})"
    for path in found:
        for form in (targets.located(path), targets.itself(path)):
            if isinstance(form, targets.Unresolved):
                return form.reason
            if why := _placed(word, form, where):
                return why
    return None


def _placed(word: Word, path: str, where: _Where) -> str | None:
    if any(path == root for root in where.real_roots):
        return f"`{word.raw}` is the workspace root itself"
    if not any(paths.inside(path, root) for root in where.real_roots):
        return f"`{word.raw}` is outside the workspace"
    if part := paths.protected_part(path, where.roots):
        return f"`{posixpath.basename(part)}` is protected"
    return None


def _written(command: Command) -> Iterator[Word]:
    """The words a command may write: write-redirect targets, and the arguments of a command
    that is not read-only (wrappers' own words are left to the commands they run)."""
    for redirect in command.writes:
        if redirect.target is not None and redirect.target.value not in HARMLESS_TARGETS:
            yield redirect.target
    if command.wrapper or command.name is None:
        return
    if why_command_not_read_only(replace(command, redirects=())) is None:
        return
    for word in command.args:
        value = word.value
        if value is None:
            continue
        if "=" in value and (value.startswith("-") or re.match(r"\w+=", value)):
            rest = value.partition("=")[2]
            yield _suffix(word, rest)
        elif not value.startswith("-"):
            yield word


def _suffix(word: Word, rest: str) -> Word:
    mask = word.mask[len(word.mask) - len(rest) :] if rest else ""
    return Word(rest, raw=rest, glob=word.glob, mask=mask)


def _protected(word: Word, command: Command, where: _Where) -> Iterator[str]:
    folder = targets.folder(command, where.cwd, where.home)
    if folder is None:
        parts = (word.value or "").split("/")
        if not word.tilde and not (word.value or "/").startswith("/"):
            if any(part in paths.PROTECTED for part in parts):
                yield word.value or ""
            return
        folder = "/"
    literal = targets.literal(word, folder, where.home)
    if literal is None:
        return
    try:
        found = [literal, *targets.expand(word, folder, where.home)]
    except targets.TooManyMatches:
        found = [literal]
    claude = posixpath.join(where.home, ".claude")
    for path in dict.fromkeys(found):
        if part := paths.protected_part(path, where.roots):
            yield part
        elif paths.inside(path, claude) or paths.inside(paths.real(path), claude):
            yield claude

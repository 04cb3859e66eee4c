"""Bash lines acceptEdits may run unasked, and what a line may write into the protected set.

``why_not_provable_edit`` is None only when it can prove a line just edits files inside the
workspace: every command a listed file-editing program (``mkdir``, ``touch``, ``cp``, ``mv``,
``rm`` without recursion, ``rmdir``, ``chmod`` without ``-R``) or a read-only one, with only
options it knows, and every path literal and — after ``~`` (``~+`` is the folder; ``~-`` and
the directory stack are unknown), from a known folder that exists, globs expanded against the
file system and symlinks resolved — strictly inside a root, outside the protected set and
``.git``, and covered by no Edit or Read deny rule (``denied``). Otherwise it says what it could
not prove.

``protected_write`` says what in a line may write into the protected set
(``hookline.permissions._writes``), or None when every write is proven to miss it.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Final

import hookline.permissions._paths as paths
import hookline.permissions._writes as writes
from hookline.permissions import targets
from hookline.permissions._protected import ProtectedSet, protected_set
from hookline.permissions._readonly import HARMLESS_TARGETS, PROGRAMS, why_command_not_read_only
from hookline.permissions._reads import ReadRules, why_reads_denied
from hookline.permissions.bash._options import Options, read
from hookline.permissions.bash._words import Word, literal

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
_COPY: Final = {
    "t": f"`{{}} -t` {_FOLDER}",
    "--target-directory": f"`{{}} --target-directory` {_FOLDER}",
    "S": "`{} -S` names backups by a suffix hookline cannot check",
    "--suffix": "`{} --suffix` names backups by a suffix hookline cannot check",
}
EDITORS: Final = {
    "mkdir": Editor(Options.of("pv", "m", "--parents --verbose", "--mode")),
    "touch": Editor(Options.of("acmfh", "dt", "--no-create --no-dereference", "--date --time")),
    "cp": Editor(
        Options.of(
            "rRafinpvulPLHdxTb",
            "",
            "--recursive --archive --force --interactive --no-clobber --preserve --no-preserve "
            "--verbose --update --no-dereference --dereference --parents --no-target-directory "
            "--backup --one-file-system --link",
        ),
        refused={
            **_COPY,
            "s": "`cp -s` makes symlinks, which can point anywhere",
            "--symbolic-link": "`cp --symbolic-link` makes symlinks",
        },
    ),
    "mv": Editor(
        Options.of(
            "finvubT",
            "",
            "--force --interactive --no-clobber --verbose --update --backup --no-target-directory",
        ),
        refused=dict(_COPY),
    ),
    "rm": Editor(
        Options.of(
            "fivdI", "", "--force --verbose --dir --interactive --one-file-system --preserve-root"
        ),
        refused={
            "r": "`rm -r` deletes recursively",
            "R": "`rm -R` deletes recursively",
            "--recursive": "`rm --recursive` deletes recursively",
        },
    ),
    "rmdir": Editor(
        Options.of("v", "", "--ignore-fail-on-non-empty --verbose"),
        refused={
            "p": "`rmdir -p` removes the folders above it too",
            "--parents": "`rmdir --parents` removes the folders above it too",
        },
    ),
    "chmod": Editor(
        Options.of("vcf", "", "--verbose --changes --silent --quiet"),
        refused={
            "R": "`chmod -R` changes a whole tree",
            "--recursive": "`chmod --recursive` changes a whole tree",
            "--reference": "`chmod --reference` reads a file hookline does not check",
        },
        mode=True,
    ),
}


def why_not_provable_edit(
    analysis: Analysis,
    *,
    cwd: str,
    roots: Sequence[str],
    home: str | None,
    code_files: Sequence[str] = (),
    denied: Denied | None = None,
    read_rules: ReadRules | None = None,
) -> str | None:
    """None when the line provably only edits files inside ``roots``, outside the protected
    set, none that ``denied`` refuses (``denied("Edit", path)`` for each path it names,
    ``denied("Read", path)`` too: a copy must not carry a file a Read rule keeps away), and
    its read-only commands open no file ``read_rules`` cover (``hookline.permissions._reads``);
    else what could not be proven, in one short phrase for the model."""
    if analysis.unknown:
        return f"what runs cannot be known: {analysis.unknown[0]}"
    if analysis.substitutions:
        return "`$(...)` runs another command"
    if analysis.recursive:
        return f"the function `{analysis.recursive[0]}` calls itself"
    real_roots = tuple(paths.real(root) for root in roots)
    found = protected_set(roots, home=_home(home), code_files=code_files)
    where = _Where(cwd, real_roots, _home(home), tuple(roots), found, denied, read_rules)
    for command in analysis.commands:
        if why := _command(command, where):
            return why
    return None


def protected_write(
    analysis: Analysis,
    *,
    cwd: str,
    roots: Sequence[str],
    home: str | None,
    code_files: Sequence[str] = (),
) -> str | None:
    """What in the line may write into the protected set (``hookline.permissions._writes``), in
    a phrase that follows the line's name; None when every write it makes is proven outside."""
    found = protected_set(roots, home=_home(home), code_files=code_files)
    return writes.why_protected(analysis, cwd=cwd, protected=found)


#: Whether a deny rule of a tool (``"Edit"``, ``"Read"``) covers an absolute path.
Denied = Callable[[str, str], bool]


@dataclass(frozen=True, slots=True)
class _Where:
    cwd: str
    real_roots: tuple[str, ...]
    home: str
    roots: tuple[str, ...]
    protected: ProtectedSet
    denied: Denied | None
    read_rules: ReadRules | None = None


def _home(home: str | None) -> str:
    return posixpath.normpath(home or paths.user_home())


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
        if why is None:
            return _reads(command, where)
        if name in PROGRAMS:
            return why
        return f"`{name}` is not a file-editing program"
    return _editor(name, editor, command, where)


def _reads(command: Command, where: _Where) -> str | None:
    """Why a read-only command may open a file a Read deny rule covers."""
    if where.read_rules is None:
        return None
    return why_reads_denied(command, cwd=where.cwd, home=where.home, rules=where.read_rules)


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
    if name in ("cp", "mv") and len(operands) > 1:
        return _copies(operands, command, where)
    return None


#: Files a copy or a move may walk through to prove what it carries where.
MAX_COPIED = 20_000


def _copies(operands: Sequence[Word], command: Command, where: _Where) -> str | None:
    """Why a copy or move of ``operands`` (the last one the destination) is not provable: a
    file it carries (a folder's, at any depth) is one a Read or Edit deny rule covers, or
    where it lands is one an Edit deny rule or the protected set covers."""
    folder = targets.folder(command, where.cwd, where.home) or where.cwd
    *sources, dest = operands
    given = targets.literal(dest, folder, where.home)
    landing = targets.located(given) if given else None
    if not isinstance(landing, str):
        return f"`{dest.raw}` cannot be followed"
    into = os.path.isdir(landing)
    for source in sources:
        for path in targets.expand(source, folder, where.home):
            base = posixpath.join(landing, posixpath.basename(path)) if into else landing
            try:
                files = list(islice(_files(path), MAX_COPIED + 1))
            except OSError as exc:
                return f"`{source.raw}` holds a folder hookline cannot read ({exc.strerror})"
            if len(files) > MAX_COPIED:
                return f"`{source.raw}` holds more than {MAX_COPIED} files to check"
            for file, rel in files:
                if why := _carried(source, dest, file, posixpath.join(base, rel), where):
                    return why
    return None


def _files(path: str) -> Iterator[tuple[str, str]]:
    """``path`` and, for a folder, everything below it, each with its path relative to it."""
    yield path, ""
    if os.path.isdir(path) and not os.path.islink(path):
        for top, dirs, names in os.walk(path, onerror=_raise):
            for name in (*dirs, *names):
                found = posixpath.join(top, name)
                yield found, posixpath.relpath(found, path)


def _raise(error: OSError) -> None:
    raise error


def _carried(source: Word, dest: Word, file: str, lands: str, where: _Where) -> str | None:
    real = paths.real(file)
    for tool in ("Read", "Edit"):
        if where.denied and any(where.denied(tool, p) for p in dict.fromkeys((file, real))):
            return f"`{source.raw}` carries {file}, which a {tool} deny rule covers"
    if where.denied and where.denied("Edit", lands):
        return f"`{dest.raw}` would get {lands}, which an Edit deny rule covers"
    if entry := where.protected.covers(lands):
        return f"`{dest.raw}` would get {lands}, in {entry}, which is protected"
    return None


def _mode_as_operand(args: Sequence[Word]) -> list[Word]:
    """``chmod -x f``: the first word that reads as a mode is the mode, even with its ``-``."""
    words = list(args)
    for index, word in enumerate(words):
        if (word.value or "").startswith("-") and _MODE.fullmatch(word.value or ""):
            words[index] = literal("mode")
            break
    return words


def _folders(command: Command, where: _Where) -> list[str] | None:
    """The folder ``command`` runs in, as a list; None when a ``cd`` leads somewhere unknown
    or to a folder that does not exist (the ``cd`` fails, and the command runs elsewhere)."""
    folder = targets.folder(command, where.cwd, where.home)
    if folder is None or (command.cwd and not os.path.isdir(folder)):
        return None
    return [folder]


def _path(word: Word, command: Command, where: _Where) -> str | None:
    """Why a path argument is not provably inside the workspace and unprotected."""
    folders = _folders(command, where)
    if folders is None:
        return f"`{command.name}` runs after a `cd` to a folder only known at run time"
    if word.value is None:
        return f"`{word.raw}` is only known at run time"
    for folder in folders:
        if targets.literal(word, folder, where.home) is None:
            return f"`{word.raw}` is only known at run time"
        try:
            found = targets.expand(word, folder, where.home)
        except targets.TooManyMatches:
            return f"`{word.raw}` has too many matches (more than {targets.MAX_MATCHES})"
        unfolded = targets.literal(word, folder, where.home, fold=False)
        for path in dict.fromkeys([*found, *([unfolded] if unfolded else [])]):
            for form in (targets.located(path), targets.itself(posixpath.normpath(path))):
                if isinstance(form, targets.Unresolved):
                    return form.reason
                if why := _placed(word, form, where) or _denied(word, path, form, where):
                    return why
    return None


def _placed(word: Word, path: str, where: _Where) -> str | None:
    if any(path == root for root in where.real_roots):
        return f"`{word.raw}` is the workspace root itself"
    if not any(paths.inside(path, root) for root in where.real_roots):
        return f"`{word.raw}` is outside the workspace"
    if entry := where.protected.covers(path):
        return f"`{word.raw}` lies in {entry}, which is protected"
    if git := paths.protected_part(path, where.roots, names=(".git",)):
        return f"`{word.raw}` lies in {git}, git's own folder, which holds no file edits"
    return None


def _denied(word: Word, given: str, real: str, where: _Where) -> str | None:
    if where.denied is None:
        return None
    for tool in ("Edit", "Read"):
        if any(where.denied(tool, p) for p in dict.fromkeys((posixpath.normpath(given), real))):
            return f"`{word.raw}` is covered by a {tool} deny rule"
    return None

"""What a Bash command may read that a ``Read`` deny rule covers.

``why_reads_denied(command, ...)`` is None only when it is proven that the command opens no
file a Read deny rule covers; else what could not be proven, in a phrase for the model. The
read-only tier runs a line unasked, and acceptEdits a copy, only with that proof. It is over
what the line says, not over what each program does with each word:

- every literal word counts as a path it may open, whatever the program and wherever the word
  stands: an operand, an option's value (``--file=.env``, ``-f.env``), a pattern; a glob counts
  as every path it matches on the file system as it is now (hidden names too), and each path
  is tested as given and as its real path (a link to ``.env`` is ``.env``);
- so do the files read redirects open (``< .env cat``);
- a word only run time knows (``"$F"``, ``$PWD/.env``), a relative word in a folder only run
  time knows, arguments added at run time (``xargs cat``) and file names read from a file
  (``--files0-from``, ``tree --fromfile``, ``git --pathspec-from-file``) may name any file;
- a program that reads folders whole (``grep -r``, ``rg``, ``ag``, ``diff``, ``git grep``,
  ``git diff --no-index``) reads what lies below each folder it names, and below its own
  folder when it is given no path (``rg TODO``). It is walked as the program walks it: where
  a rule reaches (``rg`` and ``ag`` skip hidden names unless told not to), or whole for one
  that follows links (``grep -R``, ``rg -L``, ``ag -f``, ``diff``), up to ``MAX_WALKED``
  entries (more: not proven). Options from the environment count (``GREP_OPTIONS``, a
  ``RIPGREP_CONFIG_PATH`` file).

Programs that only list names (``ls -R``, ``find``, ``du``, ``tree``) are not walked: a name
is not the content. What git keeps of a file (``git show HEAD:.env``, ``git log -p``) is not a
path on the line, and is not covered here.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import TYPE_CHECKING, Final, Literal, Protocol

import hookline.permissions._paths as paths
from hookline.permissions import targets
from hookline.permissions._readlist import PROGRAMS
from hookline.permissions.bash._options import read
from hookline.permissions.bash._words import Word

if TYPE_CHECKING:
    from hookline.permissions._rules import PermissionRule
    from hookline.permissions.bash import Analysis, Command

__all__ = [
    "MAX_WALKED", "DenyRules", "ReadRules", "Scope", "why_line_reads_denied", "why_reads_denied"
]  # fmt: skip

#: What a check counts (``why_reads_denied``).
Scope = Literal["proof", "named", "reach"]

#: Entries a walk of the folders a recursive reader names may look at.
MAX_WALKED = 20_000
#: Options whose value is a file of more file names (GNU spellings; find's has one dash).
_NAME_LISTS = (
    "--files0-from",
    "-files0-from",
    "--fromfile",
    "--pathspec-from-file",
    "--files-from",
)
_GREPS = frozenset({"grep", "egrep", "fgrep"})
_GREP_RECURSES = frozenset(
    {"r", "R", "d", "--recursive", "--dereference-recursive", "--directories"}
)
#: Options that give grep, rg and ag their pattern: then every operand is a path.
_PATTERN_GIVEN = frozenset({"e", "f", "--regexp", "--file"})


class ReadRules(Protocol):
    """The Read deny rules (or hookline's private places), as the proof asks them."""

    @property
    def what(self) -> str:
        """What covers a path, as the reason says it: ``a file {what}``, ``which {what}``."""
        ...

    def covers(self, path: str) -> bool:
        """Whether a rule covers absolute, normalised ``path``, as given or as its real path."""
        ...

    def covers_real(self, path: str) -> bool:
        """Whether a rule covers ``path``, absolute and with no link on it (a walk's entry)."""
        ...

    @property
    def scopes(self) -> tuple[str, ...]:
        """Each rule's reach: the path all it covers lies at or below
        (``PermissionRule.scope``)."""
        ...


@dataclass(frozen=True)
class DenyRules:
    """``Read`` deny rules, read from ``cwd`` with ``./`` rules anchored at ``anchor``."""

    rules: tuple[PermissionRule, ...]
    cwd: str
    home: str
    anchor: str
    what: str = "a Read deny rule covers"

    @cached_property
    def _anchors(self) -> tuple[tuple[str, str], ...]:
        pairs = ((self.anchor, self.home), (paths.real(self.anchor), paths.real(self.home)))
        return tuple(dict.fromkeys(pairs))

    def covers(self, path: str) -> bool:
        """As ``PermissionRule.matches`` reads a Read call's path: as given and as its real
        path, from the anchor and the home folder as given and as real paths."""
        return any(self.covers_real(form) for form in dict.fromkeys((path, _real(path))))

    def covers_real(self, path: str) -> bool:
        path = posixpath.normpath(path)
        return any(
            paths.inside(path, scope) and rule.covers_real(path, anchors=(pair,))
            for rule, pair, scope in self._reach
        )

    @cached_property
    def _reach(self) -> tuple[tuple[PermissionRule, tuple[str, str], str], ...]:
        """Each rule from each anchor, with its scope: a path outside it is not covered."""
        return tuple((r, pair, r.scope(*pair)) for r in self.rules for pair in self._anchors)

    @cached_property
    def scopes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(scope for _, _, scope in self._reach))


def why_line_reads_denied(
    analysis: Analysis, *, cwd: str, home: str, rules: ReadRules, scope: Scope = "proof"
) -> str | None:
    """Why some command of the line may open a file a Read deny rule covers (None: proven not
    to, in ``scope``); a wrapper's own words are its command's."""
    for command in analysis.commands:
        if command.wrapper:
            continue
        if why := why_reads_denied(command, cwd=cwd, home=home, rules=rules, scope=scope):
            return why
    return None


def why_reads_denied(
    command: Command, *, cwd: str, home: str, rules: ReadRules, scope: Scope = "proof"
) -> str | None:
    """Why ``command`` may open a file a Read deny rule covers; None when it is proven not to
    (see the module docstring). ``cwd`` is the session's folder, where a ``cd`` starts.
    ``scope`` says what counts: ``proof``, everything the module docstring lists; ``named``,
    only a path the command's own words name (a word, a glob, a redirect); ``reach``, only a
    folder they name (or the one it reads with none) that it reads whole with a covered path
    in its reach. What run time alone knows counts in ``proof`` only."""
    name = command.name or "the command"
    if scope == "reach" and _reader(command) is None:  # it reads no folder whole
        return None
    proof = scope == "proof"
    if command.more_args and proof:
        return f"`{name}` gets file names at run time (`xargs`, `find -exec +`)"
    folder = targets.folder(command, cwd, home)
    bases = list(dict.fromkeys([folder, _git_folder(command, folder, home)]))
    folder = bases[-1]  # where it reads what it is given no path for
    words = [*command.args, *(r.target for r in command.redirects if _reads(r.op, r.target))]
    folders: list[str] = []
    for word in words:
        if word is None:
            continue
        if (listed := _name_list(word)) and proof:
            return f"`{name} {listed}` reads file names from a file"
        for path in (p for base in bases for p in _paths(word, base, home)):
            if isinstance(path, _Unknown):
                if proof:
                    return f"`{path.raw}` may name a file {rules.what}"
                continue
            if rules.covers(path) and scope != "reach":
                shown = f"`{word.raw}`" if word.raw == path else f"{path} (`{word.raw}`)"
                return f"`{name}` may read {shown}, which {rules.what}"
            folders.append(path)
    reader = _reader(command)
    if folder is None or reader is None or scope == "named":
        return None
    if _implicit(command):
        folders.append(folder)
    folders = [f for f in folders if os.path.isdir(f)]
    if scope == "reach":
        return _reaches(name, folders, reader, rules)
    return _walked(name, folders, reader, rules)


def _reaches(name: str, folders: list[str], reader: _Reader, rules: ReadRules) -> str | None:
    """Why reading ``folders`` whole reaches a covered path: one lies in a rule's folder, or a
    rule's folder lies below one where the reader goes (none of its entries are looked at)."""
    walk = _Walk(rules, reader)
    for folder in folders:
        if place := next(walk.places(_real(folder)), None):
            return f"`{name}` reads {folder} whole, and reaches {place[1]}, which {rules.what}"
    return None


def _git_folder(command: Command, folder: str | None, home: str) -> str | None:
    """Where ``git -C DIR ...`` reads the paths it is given (each ``-C`` from the last)."""
    args = command.args
    for flag, value in pairwise(args):
        if command.name == "git" and flag.value == "-C" and folder is not None:
            folder = targets.literal(value, folder, home)
    return folder


class _Unknown:
    """A word whose path only run time knows."""

    def __init__(self, raw: str) -> None:
        self.raw = raw


def _reads(op: str, target: Word | None) -> bool:
    return target is not None and op in ("<", "<>")


def _name_list(word: Word) -> str | None:
    given = (word.value or "").partition("=")[0]
    if len(given) > 3 and any(n.startswith(given) for n in _NAME_LISTS):
        return given
    return None


def _paths(word: Word, folder: str | None, home: str) -> Iterator[str | _Unknown]:
    """The absolute paths a word may name: itself, an option's value, its glob's matches."""
    if word.value is None:
        yield _Unknown(word.raw)
        return
    for form in _forms(word):
        if folder is None and not targets.anchored(form):
            if form.value:
                yield _Unknown(form.raw)
            continue
        where = folder or "/"
        unfolded = targets.literal(form, where, home, fold=False)  # `link/..`: the kernel's way
        if unfolded is None or _PROCESS_VIEW.match(unfolded):
            yield _Unknown(form.raw)
            continue
        try:
            yield from dict.fromkeys([*targets.expand(form, where, home), unfolded])
        except targets.TooManyMatches:
            yield _Unknown(form.raw)


#: A process's own view of the files (``/proc/self/cwd``, ``/proc/1234/root``, ``/dev/fd/3``):
#: resolved here, it would be this process's, not the command's, so only run time knows it.
_PROCESS_VIEW: Final = re.compile(r"/proc/(self|thread-self|\d+)(/|$)|/dev/fd(/|$)")


def _real(path: str) -> str:
    try:
        return paths.real(path)
    except (OSError, ValueError):
        return path


def _forms(word: Word) -> list[Word]:
    """The word, the value of ``NAME=VALUE`` or ``--name=value``, and of ``-fVALUE``."""
    value = word.value or ""
    found = [word]
    if "=" in value:
        found.append(_tail(word, value.index("=") + 1))
    if value.startswith("-") and not value.startswith("--") and len(value) > 2:
        found.append(_tail(word, 2))
    return found


def _tail(word: Word, start: int) -> Word:
    value = (word.value or "")[start:]
    mask = word.mask[start:] if len(word.mask) == len(word.value or "") else ""
    return Word(value, raw=value, glob=word.glob, mask=mask, tilde=value.startswith("~"))


@dataclass(frozen=True, slots=True)
class _Reader:
    """How a program reads the folders it is given: whether it follows the links it meets
    below them, and whether it reads hidden entries (names that start with ``.``)."""

    follows: bool
    hidden: bool


def _reader(command: Command) -> _Reader | None:
    """How the program reads folders whole; None when it reads none (``cat dir`` fails)."""
    name, values = command.name or "", [a.value for a in command.args]
    if name == "git":
        if "grep" in values:
            return _Reader(follows=False, hidden=True)
        return _Reader(follows=True, hidden=True) if "--no-index" in values else None
    if name == "diff":
        return _Reader(follows="--no-dereference" not in values, hidden=True)
    if name not in ("rg", "ag", *_GREPS):
        return None
    given = {o.name for o in read(command.args, PROGRAMS[name].options).options}
    if name in _GREPS and os.environ.get("GREP_OPTIONS"):  # older greps add these options
        return _Reader(follows=True, hidden=True)
    if name == "rg" and os.environ.get("RIPGREP_CONFIG_PATH") and "--no-config" not in given:
        return _Reader(follows=True, hidden=True)  # its options are in that file
    unrestricted = sum(v.count("u") for v in values if v and re.fullmatch(r"-[a-zA-Z0-9]+", v))
    unrestricted += values.count("--unrestricted")
    if name == "rg":
        return _Reader("L" in given or "--follow" in given, "--hidden" in given or unrestricted > 1)
    if name == "ag":
        return _Reader("f" in given or "--follow" in given, bool(given & {"--hidden", "u"}))
    if not given & _GREP_RECURSES:
        return None
    return _Reader(follows=bool(given & {"R", "--dereference-recursive"}), hidden=True)


def _implicit(command: Command) -> bool:
    """Whether it reads its own folder for want of a path (``rg TODO``, ``grep -r x``)."""
    if command.name == "git":
        return "grep" in [a.value for a in command.args]
    if command.name == "diff":
        return False
    spec = PROGRAMS.get(command.name or "")
    if spec is None:
        return True
    given = read(command.args, spec.options)
    paths = len(given.operands) - (0 if given.named(*_PATTERN_GIVEN) else 1)
    return paths < 1


def _walked(name: str, folders: list[str], reader: _Reader, rules: ReadRules) -> str | None:
    """Why reading ``folders`` whole may open a file a rule covers: a rule's own path lies
    below one of them, or one of the files it may reach there is covered. A reader that
    follows links is walked whole; one that does not only where a rule reaches."""
    walk = _Walk(rules, reader)
    for folder in folders:
        if rules.covers(folder):
            return f"`{name}` reads {folder}, which {rules.what}"
        places = [(folder, folder)] if reader.follows else list(walk.places(_real(folder)))
        for given, start in places:
            if why := walk.through(given, start):
                return f"`{name}` reads {why}"
    return None


class _Walk:
    """One reader's walk below its folders, bounded by ``MAX_WALKED`` entries in all."""

    def __init__(self, rules: ReadRules, reader: _Reader) -> None:
        self.rules, self.reader, self.count = rules, reader, 0

    def places(self, folder: str) -> Iterator[tuple[str, str]]:
        """Where below real ``folder`` a reader that follows no link may meet what a rule
        covers, as walks to make: ``folder`` itself when it lies in a rule's folder; a rule's
        own folder or path below it, when the reader reaches it."""
        for place in self.rules.scopes:
            if paths.inside(folder, place):
                yield folder, folder
            elif paths.inside(place, folder) and self._reaches(folder, place):
                yield place, place

    def _reaches(self, folder: str, place: str) -> bool:
        """Whether ``place``, below ``folder``, exists and is reached: through no link (nor
        one itself), and not hidden from a reader that skips hidden entries."""
        parent = posixpath.dirname(place)
        if os.path.islink(place) or not os.path.lexists(place) or _real(parent) != parent:
            return False
        rest = posixpath.relpath(place, folder).split("/")
        return self.reader.hidden or not any(part.startswith(".") for part in rest)

    def through(self, given: str, start: str) -> str | None:
        """What a walk from ``start`` (reached as ``given``) finds a rule covers, or why the
        walk cannot end; None when it finds nothing."""
        queue, seen = [(given, _real(start))], set()
        while queue:
            shown, real = queue.pop()
            if real in seen:
                continue
            seen.add(real)
            if self.rules.covers_real(shown) or self.rules.covers_real(real):
                through = "" if real == shown else f" (through {shown})"
                return f"{real}{through}, which {self.rules.what}"
            if not os.path.isdir(real):
                continue
            try:
                entries = list(os.scandir(real))
            except OSError:
                continue  # the program cannot read it either
            self.count += len(entries)
            if self.count > MAX_WALKED:
                return f"folders of more than {MAX_WALKED} entries to check"
            for entry in entries:
                if entry.name.startswith(".") and not self.reader.hidden:
                    continue
                link = entry.is_symlink()
                if link and not self.reader.follows:
                    continue
                path = posixpath.join(real, entry.name)
                queue.append((posixpath.join(shown, entry.name), _real(path) if link else path))
        return None

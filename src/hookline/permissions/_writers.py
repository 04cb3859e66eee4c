"""The words a Bash command may write: redirects, writing programs' operands, writing options.

``write_targets(command)`` lists them as ``Target``s for ``hookline.permissions._writes`` to
judge: a writing program (``WRITERS``) counts every operand as written (a folder among them as
written to by the others' names; what a delete, a move or a recursive copy takes, whole); a
writing option's value (``--output=``) on any program; the literal paths of any other program
that is not read-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Final

from hookline._support.words import words
from hookline.permissions._readgit import remote_verb
from hookline.permissions._readonly import HARMLESS_TARGETS, why_command_not_read_only
from hookline.permissions.bash._containers import mounts
from hookline.permissions.bash._git import split
from hookline.permissions.bash._words import Word, literal

if TYPE_CHECKING:
    from hookline.permissions.bash import Command

Writer = Callable[[Sequence[Word]], "list[Target]"]
#: Where ``git config`` writes: a stand-in the judge finds from the command's folder.
GIT_CONFIG_FILE = "\0git-config"


@dataclass(frozen=True, slots=True)
class Target:
    """One word a command may write: with ``tree``, all a folder holds changes with it; with
    ``strict``, a word not proven counts as a write into the set (a writing program's)."""

    word: Word
    tree: bool = False
    strict: bool = True
    #: The other operands: when ``word`` is a folder, each is written into it by its name.
    beside: tuple[Word, ...] = ()
    #: Only what these ``find -name`` patterns all match changes (``tree``): lowercase ones
    #: match without case (``-iname``).
    names: tuple[tuple[str, bool], ...] | None = None


def write_targets(command: Command) -> list[Target] | str:
    """The words ``command`` may write, or why they are only known at run time."""
    found = [Target(r.target) for r in command.writes if r.target is not None]
    found = [t for t in found if t.word.value not in HARMLESS_TARGETS]
    if command.wrapper or command.name is None:
        return found  # a wrapper's own words are left to the command it runs
    reads = why_command_not_read_only(replace(command, redirects=())) is None
    found += _option_targets(command.args, short=not reads)
    writer = WRITERS.get(command.name)
    if command.name == "git" and reads:
        return found  # a read-only git command (`git status`) writes nothing it names
    if writer is not None:
        if command.more_args:
            return f"may write where only run time knows: `{command.name}` gets more arguments"
        return found + writer(command.args)
    if reads:
        return found
    named = [w for w in command.args if w.value is None or _is_path(w)]
    return found + [Target(_value_of(w), strict=False) for w in named]


_WRITE_OPTIONS = words(
    "--output --output-file --out-file --outfile --log-file --output-document --directory-prefix"
)
#: Short options that name a file a program writes (``curl -o``, ``wget -O``, ``sort -o``):
#: read on programs that are not read-only.
_WRITE_SHORT = ("-o", "-O")


def _option_targets(args: Sequence[Word], *, short: bool) -> Iterator[Target]:
    words = list(args)
    for index, word in enumerate(words):
        raw = word.value if word.value is not None else word.raw
        name, equals, _ = raw.partition("=")
        following = words[index + 1] if index + 1 < len(words) else None
        if any(_abbreviates(name, option) for option in _WRITE_OPTIONS) and len(name) > 4:
            if equals:
                yield Target(_value_of(word))
            elif following is not None:
                yield Target(following)
        elif short and raw[:2] in _WRITE_SHORT and not raw.startswith("--"):
            if len(raw) > 2:
                attached = raw[2:]
                yield Target(Word(attached, raw=attached) if word.value is not None else word)
            elif following is not None:
                yield Target(following)


def _value_of(word: Word) -> Word:
    """The value of ``--name=value`` or ``name=value`` (the word itself otherwise)."""
    value = word.value
    if value is None:
        return word
    if "=" in value and (value.startswith("-") or re.match(r"\w+=", value)):
        rest = value.partition("=")[2]
        mask = word.mask[len(word.mask) - len(rest) :] if rest else ""
        return Word(rest, raw=rest, glob=word.glob, mask=mask, tilde=rest.startswith("~"))
    return word


def _is_path(word: Word) -> bool:
    value = word.value
    return value is not None and (not value.startswith("-") or "=" in value)


def _operands(args: Sequence[Word]) -> list[Word]:
    """Every word that is not an option (an unknown word counts: it may be a path)."""
    found, ended = [], False
    for word in args:
        value = word.value
        if not ended and value == "--":
            ended = True
        elif ended or value is None or not value.startswith("-") or value == "-":
            found.append(word)
    return found


def _flag(args: Sequence[Word], letters: str, *longs: str) -> bool:
    for word in args:
        value = word.value or ""
        if value.startswith("--"):
            if value.partition("=")[0] in longs:
                return True
        elif value.startswith("-") and any(c in value[1:] for c in letters):
            return True
    return False


def _plain(*, tree: bool = False) -> Writer:
    """Every operand written; with ``tree``, a folder whole when the options recurse."""

    def writer(args: Sequence[Word]) -> list[Target]:
        whole = tree and _flag(args, "rR", "--recursive")
        return [Target(w, tree=whole) for w in _operands(args)]

    return writer


def _copier(*, moves: bool = False, syncs: bool = False) -> Writer:
    """``cp``/``mv``/``ln``/``install``/``rsync``: every operand may be written, a folder among
    them by the others' names; what a move or a recursive copy takes, whole."""

    def writer(args: Sequence[Word]) -> list[Target]:
        words = _operands(args)
        into = _values(args, "-t", "--target-directory")  # `-t DIR`: every operand a source
        whole = moves or syncs or _flag(args, "rRa", "--recursive", "--archive")
        found = [Target(folder, beside=tuple(words)) for folder in into]
        for index, word in enumerate(words):
            others = tuple(w for w in words if w is not word)
            taken = whole and (moves or index < len(words) - 1 or bool(into))
            found.append(Target(word, tree=taken or syncs, beside=others))
        return found

    return writer


def _sed(args: Sequence[Word]) -> list[Target]:
    if _flag(args, "i", "--in-place"):
        return [Target(w) for w in _operands(args)]
    scripts = [w for w in _operands(args)[:1]] + _values(args, "-e", "--expression")
    if any(w.value is None or _SED_WRITE.search(w.value) for w in scripts):
        return [Target(Word(None, raw="sed's `w` command"))]
    return []


#: A sed ``w``/``W`` command or ``s///w`` flag: it writes a file its script names.
_SED_WRITE = re.compile(r"(?:^|[;{}\n/])\s*[0-9,$!]*\s*[wW]\s*\S|/[gpiImMe0-9]*w\s")


def _values(args: Sequence[Word], short: str, long: str) -> list[Word]:
    """The values of ``short`` (``-tDIR``, ``-t DIR``) and ``long`` (``--long=v``, ``--long v``,
    or a unique prefix of it, as GNU programs take: ``--target-dir=v``)."""
    found, words = [], list(args)
    for index, word in enumerate(words):
        value = word.value
        if value is None:
            continue
        name, equals, _ = value.partition("=")
        if value == short or (not equals and _abbreviates(name, long)):
            found += words[index + 1 : index + 2]
        elif equals and _abbreviates(name, long):
            found.append(_value_of(word))
        elif value.startswith(short) and len(value) > len(short) and not value.startswith("--"):
            found.append(Word(value[len(short) :], raw=value[len(short) :]))
    return found


def _abbreviates(name: str, long: str) -> bool:
    """Whether ``name`` is ``long`` or a prefix of it long enough to mean it (``--ta``)."""
    return name.startswith("--") and len(name) > 3 and long.startswith(name)


def _dd(args: Sequence[Word]) -> list[Target]:
    found = []
    for word in args:
        if word.value is None and word.raw.startswith(("of=", '"of=', "'of=")):
            found.append(Target(word))
        elif word.value is not None and word.value.startswith("of="):
            found.append(Target(_value_of(word)))
        elif word.value is None and "=" not in word.raw:
            found.append(Target(word))  # it may spell `of=` at run time
    return found


_FIND_OUT = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})


def _find(args: Sequence[Word]) -> list[Target]:
    words = list(args)
    starts: list[Word] = []
    for word in words:
        if word.value is not None and word.value[:1] in "-(!" and word.value != "-":
            break
        starts.append(word)
    found = [Target(after) for word, after in pairwise(words) if word.value in _FIND_OUT]
    if any(w.value == "-delete" for w in words):
        names = _find_names(words[len(starts) :])
        found += [Target(w, tree=True, names=names) for w in starts or [literal(".")]]
    return found


_FIND_TESTS = frozenset({"-type", "-maxdepth", "-mindepth", "-xtype"})


def _find_names(expression: Sequence[Word]) -> tuple[tuple[str, bool], ...] | None:
    """The ``-name``/``-iname`` patterns of an expression that is only those, ``-type`` and
    depth tests and ``-delete`` (all joined by and); None for any other expression."""
    names: list[tuple[str, bool]] = []
    words = [w.value for w in expression]
    index = 0
    while index < len(words):
        word = words[index]
        if word == "-delete":
            index += 1
            continue
        value = words[index + 1] if index + 1 < len(words) else None
        if value is None or (word not in ("-name", "-iname") and word not in _FIND_TESTS):
            return None
        if word in ("-name", "-iname"):
            names.append((value.lower() if word == "-iname" else value, word == "-iname"))
        index += 2
    return tuple(names) or None


def _here(args: Sequence[Word], *options: str) -> list[Target]:
    """A program that writes files a stream names, below ``-C dir``/``-d dir`` or its folder."""
    given = [v for option in options for v in _values(args, option, option)]
    return [Target(w, tree=True) for w in given] or [Target(literal("."), tree=True)]


def _tar(args: Sequence[Word]) -> list[Target]:
    first = (args[0].value or "") if args else ""
    extracts = _flag(args, "x", "--extract", "--get") or (
        not first.startswith("-") and "x" in first
    )
    found = [Target(w, strict=False) for w in _operands(args)]
    return found + (_here(args, "-C", "--directory") if extracts else [])


def _git(args: Sequence[Word]) -> list[Target]:
    """``git config``/``remote``/``submodule``/``worktree``/``init`` write the repository's
    config (``git remote -v``, ``get-url``, ``show``, ``submodule status`` and the like do not);
    any git command may write the paths it names."""
    named = [Target(_value_of(w), strict=False) for w in args if _is_path(w)]
    git = split(args)
    if git.unknown:
        return [*named, Target(Word(None, raw=git.text))]
    if git.subcommand is None or not _writes_config(git.subcommand, git.args):
        return named
    if git.options:  # `-C`, `--git-dir`, `-c` first: which repository is unsure
        return [*named, Target(Word(None, raw=git.text))]
    return [*named, Target(literal(GIT_CONFIG_FILE))]


_SUBMODULE_OWN = frozenset({"-q", "--quiet", "--cached"})


def _writes_config(subcommand: str, args: Sequence[Word]) -> bool:
    """Whether ``git SUBCOMMAND ARGS`` writes the repository's config (or what git keeps
    beside it: ``.git/modules``, ``.git/worktrees``); a word only run time knows may."""
    words = [w.value for w in args]
    if None in words:
        return subcommand in ("config", "remote", "submodule", "worktree", "init")
    given = [w for w in words if w is not None]
    if subcommand in ("config", "init"):
        return True  # a read-only `git config --get` never gets here
    if subcommand == "remote":
        found = remote_verb(given)
        return found is None or found[0] not in (None, "show", "get-url")
    if subcommand == "submodule":
        while given and given[0] in _SUBMODULE_OWN:
            given.pop(0)
        return bool(given) and given[0] not in ("status", "summary", "foreach")
    if subcommand == "worktree":
        return not given or given[0] != "list"
    return False


def _container(args: Sequence[Word]) -> list[Target]:
    """``docker run -v SRC:DST``: the container may write anything below SRC; and the paths
    any docker command names (``docker cp c:/x dst``)."""
    named = [Target(_value_of(w), strict=False) for w in args if w.value is None or _is_path(w)]
    return named + [Target(w, tree=True) for w in mounts(args)]


WRITERS: Final[dict[str, Writer]] = {
    **dict.fromkeys(
        ("tee", "touch", "truncate", "mkdir", "shred", "unlink", "mkfifo", "mknod"), _plain()
    ),
    **dict.fromkeys(
        ("rm", "rmdir", "chmod", "chown", "chgrp", "setfacl", "chattr"), _plain(tree=True)
    ),
    "cp": _copier(),
    "install": _copier(),
    "ln": _copier(),
    "mv": _copier(moves=True),
    "rsync": _copier(syncs=True),
    "sed": _sed,
    "dd": _dd,
    "find": _find,
    "tar": _tar,
    "unzip": lambda args: _here(args, "-d"),
    "patch": lambda args: _here(args, "-d", "--directory"),
    "cpio": lambda args: _here(args, "-D", "--directory"),
    "git": _git,
    "docker": _container,
    "podman": _container,
}

"""What the dangerous tier looks at on a Bash line, and how it proves a target harmless.

``seen(analysis)`` lists the commands the tier judges: every command the analysis found, with
``hash -p``/``alias`` renames applied (``hash -p /bin/rm ls; ls -rf ~/*`` is ``rm``) and the
``{}`` of ``find -exec`` read as find's start paths; and, as ``hidden`` commands, what a
program the analysis does not model may run from its arguments: the words from a program
name on (``unbuffer rm -rf x``) or a code string (``tool --hook 'rm -rf ~/*'``). A hidden
command is never proven: whoever runs it may run it elsewhere or with other arguments.

``why_unproven(word, ...)`` is None only for a target proven by the written model: a literal
path (no variable, no substitution, no argument only run time supplies), from a known folder
that exists, with every glob match and symlink resolved, inside a workspace root and not the
root itself, on a line where no other command may change the file system first.
``device(word, ...)`` says whether a write target is a disk ("disk"), another device or kernel
file ("kernel"), or neither (None), on the path as the kernel resolves it (``//dev/sda``,
``/dev/./sda``, ``/proc/self/root/dev/sda``, symlinks).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace

import hookline.permissions._paths as paths
from hookline._support.words import words
from hookline.permissions import targets
from hookline.permissions._readonly import why_command_not_read_only
from hookline.permissions.bash import Analysis, Command, analyze
from hookline.permissions.bash._words import Word

#: Programs whose use the tier judges (a hidden command is looked for by these names).
SENSITIVE = words("rm chmod chown chgrp find dd tee cp mv install shred git pv ddrescue")
#: Programs that never run their arguments: no hidden command is looked for in them.
NEVER_RUNS = frozenset({"echo", "printf", ":", "true", "false", "test", "["})
#: Programs that cannot make a link or move a file: they do not change what a path leads to.
_NO_LINKS = words(
    "mkdir touch rm rmdir unlink chmod chown chgrp find tee dd shred truncate cd pushd popd "
    "alias hash export unset set shopt trap local declare readonly read exit return wait sleep "
    "true false : echo printf test ["
)
#: Runners that run their command in the same folder with the words as written (``xargs`` and
#: ``find -exec +`` add arguments: the command says so itself).
_KEEPS = words(
    "env timeout nice ionice nohup stdbuf setsid time command builtin exec flock taskset chrt "
    "coproc eval find xargs watch sh bash dash zsh ksh mksh ash rbash"
)
_DIRS = re.compile(r"~[+-]?\d*(?=/|$)(?<!~)")
_TOKEN = re.compile(r"[^\s;&|()`{}<>]+")
KERNEL = ("/dev/", "/proc/", "/sys/")
_MAX_DEPTH = 2
#: How a ``{}`` of ``find -exec`` read as one of find's start paths is marked.
FOUND = "{}"
FOUND_ANY = "{} "
FIND_ACTIONS = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir"})
_FIND_LOGIC = frozenset({"-o", "-or", ",", "!", "-not"})
_FIND_NAMES = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})


@dataclass(frozen=True, slots=True)
class Place:
    """Where a line runs: the session's folder, the home folder and the workspace roots."""

    cwd: str
    home: str
    roots: tuple[str, ...] = ()

    def protected(self, *, system_only: bool = False) -> frozenset[str]:
        """``/``, the system folders, and the home folder and roots with every folder above."""
        found = {"/", *SYSTEM_FOLDERS}
        for path in () if system_only else (self.home, *self.roots):
            while path not in found:
                found.add(path)
                path = posixpath.dirname(path)
        return frozenset(found)


#: Top-level folders whose loss wrecks a machine (Linux and macOS).
SYSTEM_FOLDERS = (
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/snap",
    "/mnt",
    "/media",
    "/run",
    "/Users",
    "/System",
    "/Library",
    "/Applications",
    "/Volumes",
    "/private",
)


@dataclass(frozen=True, slots=True)
class Seen:
    """One command the tier judges: ``index`` into the analysis (-1 for a hidden one), and
    the program that runs it in a way hookline does not follow (``"flock"`` for a hidden one,
    ``"ssh"``), or ""."""

    command: Command
    index: int = -1
    runner: str = ""


#: ``seen`` of recent analyses, by identity (an analysis is cached and shared by ``analyze``;
#: hashing one whole costs more than reading it again); each entry keeps its analysis alive.
_SEEN: OrderedDict[tuple[int, int], tuple[Analysis, tuple[Seen, ...]]] = OrderedDict()
_SEEN_SIZE = 256


def seen(analysis: Analysis, depth: int = 0) -> tuple[Seen, ...]:
    """The commands the tier judges on the line (see the module docstring)."""
    key = (id(analysis), depth)
    hit = _SEEN.get(key)
    if hit is not None and hit[0] is analysis:
        return hit[1]
    found = _seen(analysis, depth)
    _SEEN[key] = (analysis, found)
    if len(_SEEN) > _SEEN_SIZE:
        _SEEN.popitem(last=False)
    return found


def _seen(analysis: Analysis, depth: int) -> tuple[Seen, ...]:
    renames = _renames(analysis)
    found: list[Seen] = []
    starts: tuple[Word, ...] = ()
    picks = False
    for index, command in enumerate(analysis.commands):
        modelled = _modelled(analysis.commands, index)
        if any(w.tilde and _DIRS.match(w.value or "") for w in command.args):
            command = replace(command, args=tuple(_dir_stack(w) for w in command.args))
        if command.name in renames and not command.path:
            command = replace(command, name=renames[command.name])
        if command.name == "find":
            starts, picks = find_starts(command), find_picks(command)
        elif "find -exec" in command.via and starts:
            command = _found_by_find(command, starts, picks)
        found.append(Seen(command, index, _unfollowed(command.via)))
        if not modelled and command.name not in NEVER_RUNS and depth < _MAX_DEPTH:
            found += _hidden(command, depth)
    return tuple(found)


def _dir_stack(word: Word) -> Word:
    """``~+`` is the folder the shell is in (``~+/x`` is ``./x``); ``~-`` (the folder before)
    and ``~N`` (the folder stack) only run time knows."""
    value = word.value or ""
    found = _DIRS.match(value) if word.tilde else None
    if found is None:
        return word
    if found.group() != "~+":
        return Word(None, raw=word.raw)
    rest = value[2:]
    return Word("." + rest, raw=word.raw, glob=word.glob, mask="." + word.mask[2:])


def _unfollowed(via: tuple[str, ...]) -> str:
    """The first runner in ``via`` that may run its command elsewhere or with other arguments
    (``ssh``, ``chroot``, ``parallel``, a function the line defines, which may be called from
    any folder); "" when each keeps the folder and the words as written."""
    return next(
        (label for label in via if label.split()[:1] and label.split()[0] not in _KEEPS), ""
    )


def _modelled(commands: tuple[Command, ...], index: int) -> bool:
    """Whether the analysis read what the command at ``index`` runs: a wrapper, or a runner
    whose commands follow it, labelled with its name (``find -exec``, ``git rebase -x``)."""
    command = commands[index]
    if command.wrapper:
        return True
    depth = len(command.via)
    return any(
        len(later.via) == depth + 1
        and later.via[:depth] == command.via
        and later.via[-1].split()[:1] == [command.name]
        for later in commands[index + 1 :]
    )


def renaming(analysis: Analysis) -> str:
    """Why names on the line may run programs hookline cannot name ("" when they cannot)."""
    for command in analysis.commands:
        values = [a.value for a in command.args]
        flags = [v for v in values if v is None or v.startswith("-")]
        takes = any(v is None or re.match(r"-\w*p", v) for v in flags)
        if command.name == "hash" and takes and (None in values or _hash_names(values) is None):
            return "`hash -p` makes a name run a program only run time knows"
        if command.name == "enable" and any(v is None or re.match(r"-\w*f", v) for v in flags):
            return "`enable -f` loads a builtin from a file"
    return ""


def _renames(analysis: Analysis) -> dict[str, str]:
    """``hash -p PATH NAME``: ``NAME`` runs ``PATH``; ``alias NAME=WORDS``: it runs the first."""
    found: dict[str, str] = {}
    for command in analysis.commands:
        values = [a.value for a in command.args]
        if None in values:
            continue
        words = [v for v in values if v is not None]
        if command.name == "hash" and (names := _hash_names(words)):
            found.update(names)
        elif command.name == "alias":
            for word in words:
                name, eq, value = word.partition("=")
                if eq and value.split():
                    found[name] = posixpath.basename(value.split()[0])
    return found


def _hash_names(values: Sequence[str | None]) -> dict[str, str] | None:
    words = list(values)
    while words and words[0] is not None and words[0].startswith("-") and words[0] != "--":
        flag = words.pop(0) or ""
        if "p" in flag:
            path = flag.partition("p")[2] or (words.pop(0) if words else None)
            if path is None:
                return None
            names = [w for w in words if w != "--"]
            return {w: posixpath.basename(path) for w in names if w is not None}
    return {}


def find_starts(command: Command, *, links: bool = True) -> tuple[Word, ...]:
    """The start paths of ``find`` (``.`` when none); with ``links``, a word only run time
    knows when it follows links (``-L``, ``-follow``), which lead out of its folders."""
    words = list(command.args)
    follows = any(w.value in ("-L", "-follow") for w in words)
    while words and words[0].value in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"):
        words.pop(0)
    found: list[Word] = []
    for word in words:
        if word.value is not None and word.value.startswith(("-", "(", "!")):
            break
        found.append(word)
    if follows and links:
        return (Word(None, raw="what find -L reaches through links"),)
    return tuple(found) or (Word(".", raw=".", mask="q"),)


def find_picks(command: Command) -> bool:
    """Whether ``find`` picks some entries by name before it acts: a ``-name`` or ``-path``
    test with a literal part (``*.pyc``, not ``*`` or ``[a-z]*``) ahead of its first action,
    and no ``-o``, ``-not``, ``!`` or ``,`` that could turn it around."""
    values = [a.value for a in command.args]
    if None in values or _FIND_LOGIC & set(values):
        return False
    for index, value in enumerate(values[:-1]):
        if value in FIND_ACTIONS:
            return False
        if value in _FIND_NAMES and re.search(
            r"\w", re.sub(r"\[[^]]*\]", "", values[index + 1] or "")
        ):
            return True
    return False


def _found_by_find(command: Command, starts: tuple[Word, ...], picks: bool) -> Command:
    """``find build -exec rm -rf {} +``: the ``{}`` are paths below ``build`` (``FOUND``), or
    at the root too when find does not pick by name (``FOUND_ANY``)."""
    args: list[Word] = []
    marked = tuple(replace(start, raw=FOUND if picks else FOUND_ANY) for start in starts)
    for word in command.args:
        args += marked if word.value is None and word.raw == "{}" else [word]
    return replace(command, args=tuple(args), more_args=False)


def _hidden(command: Command, depth: int) -> list[Seen]:
    """What ``command`` may run from its arguments without the analysis modelling it."""
    runner = command.name or "a program"
    found: list[Seen] = []
    for index, word in enumerate(command.args):
        value = word.value
        if value is not None and posixpath.basename(value) in SENSITIVE:
            inner = Command(
                posixpath.basename(value),
                command.args[index + 1 :],
                via=(*command.via, runner),
                cwd=command.cwd,
                more_args=command.more_args,
            )
            found.append(Seen(inner, -1, runner))
        text = value if value is not None else _quoted(word.raw)
        if text and _mentions(text):
            for inner_seen in seen(analyze(text), depth + 1):
                found.append(Seen(inner_seen.command, -1, runner))
    return found


def _quoted(raw: str) -> str:
    return raw[1:-1] if len(raw) > 1 and raw[0] == raw[-1] and raw[0] in "\"'" else ""


def _mentions(text: str) -> bool:
    """Whether a word may be code naming a sensitive program (``'rm -rf ~'``)."""
    if not any(c in text for c in " \t\n;&|"):
        return False
    return any(posixpath.basename(t) in SENSITIVE for t in _TOKEN.findall(text))


def why_unproven(
    word: Word, item: Seen, place: Place, analysis: Analysis, *, root_ok: bool = False
) -> str | None:
    """Why ``word`` (a target of ``item``) is not proven to lie strictly inside a workspace
    root (``root_ok``: or to be one, for where ``find`` starts); None when it is."""
    command = item.command
    if item.runner:
        return f"`{item.runner}` runs `{command.name}` in a way hookline does not model"
    if command.more_args:
        return f"`{command.name}` gets more targets at run time (`xargs`, `find -exec +`)"
    if word.value is None:
        return f"`{word.raw}` is only known at run time"
    where = _folder(word, command, place)
    if not isinstance(where, str):
        return where[0]
    try:
        found = targets.expand(word, where, place.home)
    except targets.TooManyMatches:
        return f"`{word.raw}` has too many matches (more than {targets.MAX_MATCHES})"
    roots = [paths.real(root) for root in place.roots]
    for path in found:
        for form in (targets.located(path), targets.itself(path)):
            if isinstance(form, targets.Unresolved):
                return form.reason
            if form in roots and not root_ok:
                return f"`{word.raw}` is the workspace root itself"
            if not any(paths.inside(form, root) for root in roots):
                return f"`{word.raw}` is outside the workspace (`{form}`)"
    return changes_first(analysis, item, word)


def _folder(word: Word, command: Command, place: Place) -> str | tuple[str]:
    folder = targets.folder(command, place.cwd, place.home)
    relative = not word.tilde and not (word.value or "").startswith("/")
    if folder is None:
        if relative:
            return (
                f"`{word.raw}` is relative to a folder only known at run time (a `cd` "
                "hookline cannot follow)",
            )
        return "/"
    if relative and command.cwd and not os.path.isdir(folder):
        return (
            f"`{word.raw}` is relative to `{folder}`, which does not exist: the `cd` there "
            "may fail and leave the shell elsewhere",
        )
    return folder


def changes_first(
    analysis: Analysis, item: Seen, word: Word, *, named_only: bool = False
) -> str | None:
    """Why another command of the line may change what ``word`` leads to before it is used
    (``named_only``: only one that names ``/dev``, ``/proc`` or ``/sys``, or a word only run
    time knows, for a link to a device)."""
    for index, other in enumerate(analysis.commands):
        if named_only and not _names_kernel(other):
            continue
        if index == item.index or other.wrapper or other.name in _NO_LINKS:
            continue
        if other.name == "git" and "push" in other.words:
            continue
        if why_command_not_read_only(replace(other, redirects=())) is not None:
            return (
                f"`{word.raw}` is judged as the file system is now, and `{other.name}` on the "
                "same line may change it first (a link made there)"
            )
    return None


def _names_kernel(command: Command) -> bool:
    return any(
        word.value is None or any(k.rstrip("/") in word.value for k in KERNEL)
        for word in command.args
    )

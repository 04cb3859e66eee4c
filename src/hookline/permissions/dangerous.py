"""The dangerous tier: calls refused whatever the mode, the rules or the hooks say, and the
operations that run unasked only when their targets are proven.

``DANGEROUS`` holds the built-in entries, each a check on the parsed Bash line
(``hookline.permissions.bash``): it sees every command that will run, under wrappers, inside
``bash -c`` and substitutions, with its arguments after quote removal and the folder a literal
``cd`` took it to, and what ``hookline.permissions.proving`` adds (``hash -p`` renames, the
``{}`` of ``find -exec``, commands a program the analysis does not model may run). Settings add
their own entries: a permission rule, or a regex searched in the raw command.

What the built-in entries refuse (``check``):

- ``rm-root`` / ``chmod-root``: ``rm -r``, ``chmod -R``, ``chown -R``, ``chgrp -R`` (and
  ``find -delete`` or ``find -exec`` of a deleting program) reaching ``/``, a top-level system
  folder, the home folder, a workspace root, or a folder holding one of them; a glob counts
  when it can match one of those places or everything in one (``/*``, ``~/*``, ``*`` after
  ``cd /``); a relative ``.`` or ``*`` after a ``cd`` to an unknowable folder counts, since
  that folder may be ``/``, and an absolute or ``~`` target counts wherever the code runs (a
  trap, a function, after such a ``cd``). ``find -delete`` with a test that picks files
  (``-name``...) counts only at ``/`` and the system folders.
- ``block-device``: writing onto a disk (``> /dev/sda``, ``dd of=//dev/nvme0n1``, ``tee``,
  ``cp``), judged on the path the kernel resolves; ``mkfs``: making filesystems or partitions;
- ``fork-bomb``; ``shutdown``; ``force-push-main`` (``hookline.permissions.pushes``: a push
  that surely forces or deletes a protected branch, or forces every branch); ``privilege``
  (``sudo``, ``su``, ``doas``, ``pkexec``, ``run0``), last, so a more precise name wins.

What four of them prove (``prove``), in every mode: a recursive delete, a recursive
chmod/chown/chgrp, a write that may reach a device, and a push (forced or not) run unasked only
when every target is proven (``proving.why_unproven``; for a push: every destination a literal
branch that is not protected). What is not proven asks, saying what could not be proved.

A code string only run time knows (``bash -c "rm -rf $HOME"``) is also read as written, a
guess that errs towards refusing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from hookline._support.words import words
from hookline.permissions import devices, proving, pushes, targets
from hookline.permissions.bash import Analysis, Command, analyze
from hookline.permissions.bash.options import Options, Read, read
from hookline.permissions.bash.runners import SHELLS
from hookline.permissions.bash.words import Word, literal
from hookline.permissions.devices import DEVICE
from hookline.permissions.proving import SYSTEM_FOLDERS, Place
from hookline.permissions.rules import PermissionRule

__all__ = ["DANGEROUS", "DEVICE", "SYSTEM_FOLDERS", "Danger", "Place", "reaches"]
_EVERYTHING = re.compile(r"\.?(?:\*|\?|\[[!^][^]]+\]|\[[^]]*-[^]]+\])*")
_DISK_TOOLS = words("mkfs mke2fs mkswap wipefs fdisk sfdisk cfdisk gdisk sgdisk parted blkdiscard")
_LISTS_ONLY = frozenset({"-l", "--list", "-s", "--show-size", "-p"})
_PRIVILEGE = frozenset({"sudo", "su", "doas", "pkexec", "run0"})
_POWER = frozenset({"shutdown", "reboot", "poweroff", "halt"})
_SYSTEMCTL_POWER = frozenset({"poweroff", "reboot", "halt", "kexec", "soft-reboot"})
_DELETERS = frozenset({"rm", "chmod", "chown", "chgrp", "shred", "unlink", "rmdir"})
#: Tests that make ``find -delete`` pick some files: then only ``/`` and system folders count.
_FIND_FILTERS = words(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -newer "
    "-mtime -mmin -atime -amin -ctime -cmin -size -empty -user -group -perm -links -inum "
    "-samefile"
)
_CODE_RUNNERS = frozenset({*SHELLS, "eval", "su", "watch"})
Check = Callable[[Analysis, Place], bool]
#: What a file tool's path leads to: "disk", "kernel" or None.
Files = Callable[[str, Mapping[str, Any], Place], "str | None"]
#: Why a line's targets are not proven (None when they are).
Prove = Callable[[Analysis, Place], "str | None"]


@dataclass(frozen=True, slots=True)
class Danger:
    """One entry of the dangerous tier: a check on the parsed Bash line, a regex searched in
    the raw command, or a permission rule; a built-in entry also proves its targets."""

    name: str
    about: str
    pattern: re.Pattern[str] | None = None
    rule: PermissionRule | None = None
    check: Check | None = None
    prove: Prove | None = None
    #: What a file tool's path is ("disk", "kernel" or None): a disk is this danger; a
    #: device, ``/proc`` or ``/sys`` file is not proven.
    files: Files | None = None

    def matches(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        *,
        cwd: str,
        home: str | None = None,
        roots: Sequence[str] = (),
    ) -> bool:
        """Whether the call is this danger (a rule matches any part of it, as a deny rule)."""
        if self.rule is not None:
            return self.rule.matches(tool_name, tool_input, cwd=cwd, home=home)
        command = _command(tool_name, tool_input)
        if command is None:
            place = _place(cwd, home, roots)
            return self.files is not None and self.files(tool_name, tool_input, place) == "disk"
        if self.check is not None:
            return self.check(analyze(command), _place(cwd, home, roots))
        return bool(self.pattern and self.pattern.search(command))

    def unproven(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        *,
        cwd: str,
        home: str | None = None,
        roots: Sequence[str] = (),
    ) -> str | None:
        """Why the call's targets for this entry are not proven harmless; None when they are
        (or the entry proves nothing)."""
        command = _command(tool_name, tool_input)
        if command is None and self.files is not None:
            if self.files(tool_name, tool_input, _place(cwd, home, roots)) == "kernel":
                return f"`{tool_name}` writes into /dev, /proc or /sys"
            return None
        if command is None or self.prove is None:
            return None
        return self.prove(analyze(command), _place(cwd, home, roots))


def _command(tool_name: str, tool_input: Mapping[str, Any]) -> str | None:
    command = tool_input.get("command")
    return command if tool_name == "Bash" and isinstance(command, str) else None


def _place(cwd: str, home: str | None, roots: Sequence[str]) -> Place:
    return _placed(cwd, home, tuple(roots))


@lru_cache(maxsize=64)
def _placed(cwd: str, home: str | None, roots: tuple[str, ...]) -> Place:
    home = posixpath.normpath(home or posixpath.expanduser("~"))
    return Place(posixpath.normpath(cwd), home, tuple(posixpath.normpath(r) for r in roots))


def _each(*checks: Callable[[Command, Place], bool]) -> Check:
    """A check on the line that holds when one of ``checks`` holds for one of its commands."""

    def on_line(analysis: Analysis, place: Place) -> bool:
        return any(check(c, place) for c in _commands(analysis) for check in checks)

    return on_line


def _commands(analysis: Analysis, depth: int = 0) -> list[Command]:
    """The line's commands (renames applied, ``find -exec``'s ``{}`` read as find's start
    paths), and a guess at those of code strings only run time knows (``bash -c "rm -rf
    $HOME"``): their text read as written, to err towards refusing."""
    found = [item.command for item in proving.seen(analysis) if item.index >= 0]
    if depth >= 2 or not analysis.unknown:
        return found
    for command in analysis.commands:
        if command.name in _CODE_RUNNERS:
            for arg in command.args:
                if arg.value is None and len(arg.raw) > 1 and arg.raw[0] == arg.raw[-1] == '"':
                    found += _commands(analyze(arg.raw[1:-1]), depth + 1)
    return found


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


def _recursive_delete(command: Command, place: Place) -> bool:
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


def _recursive_change(command: Command, place: Place) -> bool:
    found = (proving.FOUND, proving.FOUND_ANY)
    return any(reaches(w, command, place) for w in _changed(command) if w.raw not in found)


def _disk_tool(command: Command, place: Place) -> bool:
    name = command.name or ""
    if name not in _DISK_TOOLS and not name.startswith("mkfs."):
        return False
    values = {a.value for a in command.args}
    return not (name in ("fdisk", "sfdisk", "parted", "gdisk") and values & _LISTS_ONLY)


def _fork_bomb(analysis: Analysis, place: Place) -> bool:
    return bool(analysis.recursive)


def _privilege(command: Command, place: Place) -> bool:
    names = {command.name, *(label.split()[0] for label in command.via if label)}
    return bool(names & _PRIVILEGE)


def _shutdown(command: Command, place: Place) -> bool:
    name, values = command.name, [a.value for a in command.args]
    if name in _POWER:
        return True
    if name in ("init", "telinit"):
        return bool({"0", "6"} & set(values))
    return name == "systemctl" and bool(_SYSTEMCTL_POWER & set(values))


def _force_push_main(command: Command, place: Place) -> bool:
    """A push that surely forces or deletes a protected branch, or forces every branch."""
    push = pushes.judge(command, targets.folder(command, place.cwd, place.home))
    return push is not None and bool(push.catastrophic)


# The proofs: each says why one target of the line is not proven harmless.


def _prove_deletes(analysis: Analysis, place: Place) -> str | None:
    if why := proving.renaming(analysis):
        return f"{why}, so no command on the line can be proven"
    return _prove(analysis, place, _deleted, "a recursive delete")


def _prove_changes(analysis: Analysis, place: Place) -> str | None:
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


def _prove_pushes(analysis: Analysis, place: Place) -> str | None:
    for item in proving.seen(analysis):
        folder = targets.folder(item.command, place.cwd, place.home)
        if {"GIT_DIR", "GIT_COMMON_DIR"} & set(item.command.env):
            folder = None  # the repository is where the variable says
        push = pushes.judge(item.command, folder)
        if push is None:
            continue
        if item.runner:
            return f"`{item.runner}` runs `git push` in a way hookline does not model"
        if push.unproven:
            return push.unproven
        if folder is None:
            return "a push in a repository only known at run time (its default branch unknown)"
    return None


_PLACES = "/, a system folder, the home folder or a workspace root"

#: The built-in dangerous tier: commands that wreck a machine or shared history for good.
DANGEROUS = (
    Danger(
        "rm-root",
        f"a recursive delete of {_PLACES}",
        check=_each(_recursive_delete),
        prove=_prove_deletes,
    ),
    Danger(
        "chmod-root",
        f"a recursive chmod or chown of {_PLACES}",
        check=_each(_recursive_change),
        prove=_prove_changes,
    ),
    Danger(
        "block-device",
        "a write onto a disk device",
        check=_each(devices.disk_write),
        prove=devices.prove_writes,
        files=devices.file_write,
    ),
    Danger("mkfs", "making a filesystem or changing partitions", check=_each(_disk_tool)),
    Danger("fork-bomb", "a fork bomb", check=_fork_bomb),
    Danger("shutdown", "shutting down or rebooting the machine", check=_each(_shutdown)),
    Danger(
        "force-push-main",
        "a force push to (or deletion of) a protected branch",
        check=_each(_force_push_main),
        prove=_prove_pushes,
    ),
    Danger(
        "privilege",
        "running a command as another user (sudo, su, doas, pkexec, run0)",
        check=_each(_privilege),
    ),
)

"""The dangerous tier: calls refused whatever the mode, the rules or the hooks say.

``DANGEROUS`` holds the built-in entries, each a check on the parsed Bash line
(``hookline.permissions.bash``): it sees every command that will run, under wrappers, inside
``bash -c`` and substitutions, with its arguments after quote removal and the folder a literal
``cd`` took it to. Settings add their own entries: a permission rule, or a regex searched in
the raw command.

What the built-in entries refuse:

- ``rm-root`` / ``chmod-root``: ``rm -r``, ``chmod -R``, ``chown -R``, ``chgrp -R`` (and
  ``find -delete`` or ``find -exec rm``) reaching ``/``, a top-level system folder, the home
  folder, a workspace root, or a folder holding one of them; a glob counts when it can match
  one of those places or everything in one (``/*``, ``~/*``, ``*`` after ``cd /``). A target
  only run time knows (``rm -rf "$DIR"``) is not refused; a relative ``.`` or ``*`` after a
  ``cd`` to an unknowable folder is, since that folder may be ``/``. ``find -delete`` with a
  test that picks files (``-name``...) counts only at ``/`` and the system folders.
- ``block-device``: writing onto a disk (``> /dev/sda``, ``dd of=/dev/nvme0n1``, ``tee``,
  ``cp``); ``mkfs``: making filesystems or partitions (``mkfs``, ``wipefs``, ``fdisk``...);
- ``fork-bomb``; ``shutdown``; ``force-push-main`` (``-f``, ``--force``, ``+main``,
  deleting ``main``); ``privilege`` (``sudo``, ``su``, ``doas``, ``pkexec``, ``run0``), last,
  so a more precise name wins.

A code string only run time knows (``bash -c "rm -rf $HOME"``) is also read as written, a
guess that errs towards refusing.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from hookline.permissions import targets
from hookline.permissions.bash import Analysis, Command, analyze
from hookline.permissions.bash.options import Options, Read, read
from hookline.permissions.bash.programs import SHELLS
from hookline.permissions.bash.words import Word
from hookline.permissions.rules import PermissionRule

#: Top-level folders whose loss wrecks a machine (Linux and macOS).
SYSTEM_FOLDERS = ("/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64",
                  "/libx32", "/opt", "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var",
                  "/snap", "/mnt", "/media", "/run", "/Users", "/System", "/Library",
                  "/Applications", "/Volumes", "/private")  # fmt: skip
#: Where a path to a disk starts (``/dev/sda``, ``/dev/nvme0n1p2``, ``/dev/mapper/root``).
DEVICE = re.compile(r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|loop|dm-|md\d|sr\d|mapper/|disk/)")
_DEVICE_SAMPLES = ("/dev/sda", "/dev/sda1", "/dev/hda", "/dev/vda", "/dev/xvda", "/dev/nvme0n1",
                   "/dev/mmcblk0", "/dev/loop0", "/dev/dm-0", "/dev/md0", "/dev/mapper/root",
                   "/dev/disk/by-id/x")  # fmt: skip
_EVERYTHING = re.compile(r"\.?(?:\*|\?|\[[!^][^]]+\]|\[[^]]*-[^]]+\])*")
_DISK_TOOLS = frozenset({"mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk",
                         "sgdisk", "parted", "blkdiscard"})  # fmt: skip
_LISTS_ONLY = frozenset({"-l", "--list", "-s", "--show-size", "-p"})
_PRIVILEGE = frozenset({"sudo", "su", "doas", "pkexec", "run0"})
_POWER = frozenset({"shutdown", "reboot", "poweroff", "halt"})
_SYSTEMCTL_POWER = frozenset({"poweroff", "reboot", "halt", "kexec", "soft-reboot"})
_DELETERS = frozenset({"rm", "chmod", "chown", "chgrp", "shred", "unlink", "rmdir"})
#: Tests that make ``find -delete`` pick some files: then only ``/`` and system folders count.
_FIND_FILTERS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
                           "-regex", "-iregex", "-lname", "-ilname", "-newer", "-mtime", "-mmin",
                           "-atime", "-amin", "-ctime", "-cmin", "-size", "-empty", "-user",
                           "-group", "-perm", "-links", "-inum", "-samefile"})  # fmt: skip
_CODE_RUNNERS = frozenset({*SHELLS, "eval", "su", "watch"})
_MAIN = frozenset({"main", "master", "refs/heads/main", "refs/heads/master"})


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


Check = Callable[[Analysis, Place], bool]


@dataclass(frozen=True, slots=True)
class Danger:
    """One entry of the dangerous tier: a check on the parsed Bash line, a regex searched in
    the raw command, or a permission rule."""

    name: str
    about: str
    pattern: re.Pattern[str] | None = None
    rule: PermissionRule | None = None
    check: Check | None = None

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
        command = tool_input.get("command")
        if tool_name != "Bash" or not isinstance(command, str):
            return False
        if self.check is not None:
            home = posixpath.normpath(home or posixpath.expanduser("~"))
            place = Place(
                posixpath.normpath(cwd), home, tuple(posixpath.normpath(r) for r in roots)
            )
            return self.check(analyze(command), place)
        return bool(self.pattern and self.pattern.search(command))


def _each(*checks: Callable[[Command, Place], bool]) -> Check:
    """A check on the line that holds when one of ``checks`` holds for one of its commands."""

    def on_line(analysis: Analysis, place: Place) -> bool:
        return any(check(c, place) for c in _commands(analysis) for check in checks)

    return on_line


def _commands(analysis: Analysis, depth: int = 0) -> list[Command]:
    """The line's commands, and a guess at those of code strings only run time knows
    (``bash -c "rm -rf $HOME"``): their text read as written, to err towards refusing."""
    found = list(analysis.commands)
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
    if where is None:
        relative = targets.relative_parts(word)
        return relative is not None and all(p in (".", "..") or _everything(p) for p in relative)
    pattern = targets.pattern(word, where, place.home)
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
_RECURSION = Options.of(long_flags="--recursive --force --verbose --interactive --dir")


def _recursive(given: Read, letters: str) -> bool:
    """Recursion asked for, or an option only run time knows (``rm $FLAGS /``)."""
    return any(
        not option.name or option.name == "--recursive" or option.name in letters
        for option in given.options
    )


def _recursive_change(letters: str, names: frozenset[str]) -> Callable[[Command, Place], bool]:
    def check(command: Command, place: Place) -> bool:
        if command.name not in names:
            return False
        given = read(command.args, _RECURSION)
        return _recursive(given, letters) and any(
            reaches(w, command, place) for w in given.operands
        )

    return check


def _find_deletes(command: Command, place: Place) -> bool:
    """``find -delete`` or ``find -exec rm`` starting at a protected place."""
    if command.name != "find":
        return False
    values = [a.value for a in command.args]
    deletes = "-delete" in values or any(
        value in ("-exec", "-execdir", "-ok", "-okdir")
        and index + 1 < len(values)
        and posixpath.basename(values[index + 1] or "") in _DELETERS
        for index, value in enumerate(values)
    )
    if not deletes:
        return False
    starts = _leading_paths(command.args) or [Word(".", raw=".", mask="q")]
    filtered = bool(_FIND_FILTERS & set(values))
    return any(reaches(word, command, place, system_only=filtered) for word in starts)


def _leading_paths(args: Sequence[Word]) -> list[Word]:
    """The start paths of ``find``: the words before its expression (after ``-H/-L/-P``)."""
    words = list(args)
    while words and words[0].value in ("-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"):
        words.pop(0)
    found: list[Word] = []
    for word in words:
        if word.value is not None and word.value.startswith(("-", "(", "!")):
            break
        found.append(word)
    return found


def _device(word: Word, command: Command, place: Place) -> bool:
    where = targets.folder(command, place.cwd, place.home) or "/"
    path = targets.pattern(word, where, place.home)
    if path is None:
        return False
    if word.glob:
        return any(fnmatchcase(sample, path) for sample in _DEVICE_SAMPLES)
    return DEVICE.match(path) is not None


def _device_targets(command: Command) -> list[Word]:
    """The words a command writes to: redirects, ``dd of=``, ``tee`` and ``cp``/``mv`` targets."""
    found = [r.target for r in command.writes if r.target is not None]
    name, args = command.name, command.args
    if name == "dd":
        found += [_after(a, "of=") for a in args if (a.value or "").startswith("of=")]
    elif name in ("tee", "shred"):
        found += read(args, Options()).operands
    elif name in ("cp", "mv", "install", "cat", "pv", "ddrescue"):
        operands = read(args, Options()).operands
        found += operands[-1:] if name != "cat" else []
        found += [_after(a, "--target-directory=") for a in args if _starts(a, "--target-dir")]
    return found


def _after(word: Word, prefix: str) -> Word:
    value = (word.value or "").partition("=")[2]
    return Word(value, raw=word.raw, glob=word.glob, mask=word.mask[-len(value) :] if value else "")


def _starts(word: Word, prefix: str) -> bool:
    return (word.value or "").startswith(prefix)


def _block_device(command: Command, place: Place) -> bool:
    return any(_device(word, command, place) for word in _device_targets(command))


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
    """``git push`` forcing (``-f``, ``--force``, ``+ref``) or deleting main or master."""
    push = _git_push_args(command)
    if push is None:
        return False
    options, operands = _push_operands(push)
    force = any(o in ("--force", "--mirror") or o.startswith("--force-with-lease") for o in options)
    force |= any(not o.startswith("--") and "f" in o for o in options)
    delete = any(o == "--delete" or (not o.startswith("--") and "d" in o) for o in options)
    everything = any(o in ("--all", "--mirror", "--branches") for o in options)
    for spec in operands[1:]:
        plus = spec.startswith("+")
        source, colon, destination = spec.lstrip("+").rpartition(":")
        target = destination if colon else spec.lstrip("+")
        if target in _MAIN and (force or plus or delete or (colon and not source)):
            return True
    return everything and force


def _git_push_args(command: Command) -> list[str] | None:
    if command.name != "git":
        return None
    values = [a.value or "" for a in command.args]
    index = 0
    while index < len(values) and values[index].startswith("-"):
        takes = values[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace")
        index += 2 if takes else 1
    if index >= len(values) or values[index] != "push":
        return None
    return values[index + 1 :]


def _push_operands(words: list[str]) -> tuple[list[str], list[str]]:
    options: list[str] = []
    operands: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in ("-o", "--push-option", "--repo", "--receive-pack", "--exec"):
            skip = True
        elif word.startswith("-") and word != "-":
            options.append(word)
        else:
            operands.append(word)
    return options, operands


_rm = _recursive_change("rR", frozenset({"rm"}))
_chmod = _recursive_change("R", frozenset({"chmod", "chown", "chgrp"}))
_PLACES = "/, a system folder, the home folder or a workspace root"

#: The built-in dangerous tier: commands that wreck a machine or shared history for good.
DANGEROUS = (
    Danger("rm-root", f"a recursive delete of {_PLACES}", check=_each(_rm, _find_deletes)),
    Danger("chmod-root", f"a recursive chmod or chown of {_PLACES}", check=_each(_chmod)),
    Danger("block-device", "a write onto a disk device", check=_each(_block_device)),
    Danger("mkfs", "making a filesystem or changing partitions", check=_each(_disk_tool)),
    Danger("fork-bomb", "a fork bomb", check=_fork_bomb),
    Danger("shutdown", "shutting down or rebooting the machine", check=_each(_shutdown)),
    Danger("force-push-main", "a force push to (or deletion of) main or master",
           check=_each(_force_push_main)),
    Danger("privilege", "running a command as another user (sudo, su, doas, pkexec, run0)",
           check=_each(_privilege)),
)  # fmt: skip

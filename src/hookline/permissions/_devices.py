"""Writes the dangerous tier judges for devices: where a command writes, and whether that
path leads to a disk or into ``/dev``, ``/proc`` or ``/sys``.

``written(command)`` lists a command's write targets: write redirects, ``dd of=``, ``tee`` and
``shred`` operands, the destination of ``cp``/``mv``/``install``/``pv``/``ddrescue`` (and their
``-t``/``--target-directory``), and every word only run time knows among them. ``device(word,
...)`` is "disk", "kernel" or None on the path as the kernel resolves it (``//dev/sda``,
``/dev/./sda``, ``/proc/self/root/dev/sda``, symlinks); a write is proven only when its target
is literal, from a known folder, and resolves outside ``/dev``, ``/proc`` and ``/sys`` (but for
``/dev/null``, ``/dev/stdout``, ``/dev/fd/N`` and the like, and shared memory, ``/dev/shm``), on
a line where no other command that names those folders, or a word only run time knows, may make
a link first. A program whose writes are not listed (``npm install "$PKG"``, and what it may run
from its words) writes a device only when it names one.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Mapping
from dataclasses import replace
from fnmatch import fnmatchcase
from typing import Any

import hookline.permissions._paths as paths
import hookline.permissions._proving as proving
from hookline._file_tools import WRITERS
from hookline.permissions import targets
from hookline.permissions._proving import KERNEL, Place, Seen
from hookline.permissions._readonly import why_command_not_read_only
from hookline.permissions.bash import Analysis, Command
from hookline.permissions.bash._options import Options, read
from hookline.permissions.bash._words import Word

#: Programs whose writes ``written`` lists in full (their other words are read).
_WRITES_LISTED = frozenset({"dd", "tee", "shred", "cp", "mv", "install", "pv", "ddrescue"})

__all__ = ["DEVICE", "device", "disk_write", "file_write", "path_kind", "prove_writes", "written"]

#: Where a path to a disk starts (``/dev/sda``, ``/dev/nvme0n1p2``, ``/dev/mapper/root``).
DEVICE = re.compile(r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|loop|dm-|md\d|sr\d|mapper/|disk/)")
_HARMLESS = re.compile(r"/dev/(?:null|zero|full|stdout|stderr|tty|fd/\d+)|/proc/self/fd/\d+")
#: ``/proc/PID/root``, ``/proc/self/root``, ``/proc/thread-self/root``: the root folder again.
_PROC_ROOT = re.compile(r"^/proc/(?:\d+|self|thread-self)(?:/task/\d+)?/root(?=/|$)/?")
#: Shared memory: a tmpfs of plain files and folders (a workspace may be there).
_SHARED = "/dev/shm/"
#: Write targets that change no file, as written.
HARMLESS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def written(command: Command) -> list[Word]:
    """The words a command writes to: redirects, ``dd of=``, ``tee`` and ``cp``/``mv`` targets."""
    found = [r.target for r in command.writes if r.target is not None]
    name, args = command.name, command.args
    if name == "dd":
        found += [_after(a) for a in args if (a.value or "").startswith("of=") or a.value is None]
    elif name in ("tee", "shred"):
        found += read(args, Options()).operands
        found += [a for a in args if a.value is None]
    elif name in ("cp", "mv", "install", "pv", "ddrescue"):
        operands = read(args, Options()).operands
        found += operands[-1:]
        found += [_after(a) for a in args if _starts(a, "--target-dir") or a.value is None]
        found += [w for i, w in enumerate(args[1:]) if args[i].value == "-t"]
    return found


def _after(word: Word) -> Word:
    if word.value is None:
        return word
    value = word.value.partition("=")[2]
    return Word(value, raw=word.raw, glob=word.glob, mask=word.mask[-len(value) :] if value else "")


def _starts(word: Word, prefix: str) -> bool:
    return (word.value or "").startswith(prefix)


def disk_write(command: Command, place: Place) -> bool:
    return any(device(word, command, place) == "disk" for word in written(command))


def prove_writes(analysis: Analysis, place: Place) -> str | None:
    """Why a write of the line may reach a device: a write target not proven, or a disk or
    kernel file named by a program that is not read-only, which may write it by an option the
    tier does not list (``sort -o /dev/sda``)."""
    judged: set[tuple[str, str | None, str | None]] = set()
    for item in proving.seen(analysis):
        if item.index < 0:  # a guess at what a program hookline does not model may run
            if guessed := _named_device(item, place, guessed=True):
                said = f"`{item.runner}` names `{guessed}`, which it may write"
                return f"a write cannot be proven not to reach a device: {said}"
            continue
        for word in written(item.command):
            key = (word.raw, word.value, item.command.cwd)
            if key in judged and not item.runner:  # a redirect around a wrapper and its command
                continue
            judged.add(key)
            if why := _write_unproven(word, item, place, analysis):
                return f"a write cannot be proven not to reach a device: {why}"
        if named := _named_device(item, place):
            why = f"`{item.command.name}` names `{named}`, which it may write"
            return f"a write cannot be proven not to reach a device: {why}"
    return None


def _named_device(item: Seen, place: Place, *, guessed: bool = False) -> str:
    """A device or kernel file a program names on the line (``guessed``: a command read out of
    the words of a program hookline does not model, whose writes it cannot list: only the
    paths it names count, never a word only run time knows, as for any other program)."""
    command = item.command
    if command.wrapper or command.name is None:
        return ""
    if not guessed and command.name in _WRITES_LISTED:
        return ""
    if not guessed and why_command_not_read_only(replace(command, redirects=())) is None:
        return ""
    for word in command.args:
        value = word.value or ""
        if re.match(r"-|\w+=", value) and "=" in value and not value.startswith("if="):
            value = value.partition("=")[2]
        if value.startswith(("/", "~", ".")):
            path = Word(value, raw=value, mask="q" * len(value))
            if device(path, command, place) is not None:
                return value
    return ""


def _write_unproven(word: Word, item: Seen, place: Place, analysis: Analysis) -> str | None:
    command = item.command
    if item.runner:
        return f"`{item.runner}` runs `{command.name}` in a way hookline does not model"
    if word.value is None:
        return f"`{word.raw}` is only known at run time"
    relative = not word.tilde and not word.value.startswith("/")
    if relative and targets.folder(command, place.cwd, place.home) is None:
        return f"`{word.raw}` is relative to a folder only known at run time"
    kind = device(word, command, place)
    if kind is not None:
        return f"`{word.raw}` leads into /dev, /proc or /sys"
    if word.value in HARMLESS or word.glob:
        return None
    return proving.changes_first(analysis, item, word, named_only=True)


def device(word: Word, command: Command, place: Place) -> str | None:
    """ "disk", "kernel" (another device, ``/proc`` or ``/sys``) or None for a write target
    (a glob: any path it may match); the path is resolved as the kernel resolves it."""
    where = targets.folder(command, place.cwd, place.home) or "/"
    pattern = targets.pattern(word, where, place.home)
    if pattern is None:
        return None
    pattern = "/" + pattern.lstrip("/")
    if word.glob:
        return "disk" if any(DEVICE.match(p) for p in _glob_samples(pattern)) else None
    return path_kind(pattern)


def path_kind(pattern: str) -> str | None:
    """ "disk", "kernel" or None for an absolute path, as the kernel resolves it: a disk when
    the path as written, as resolved (links followed before ``..``, as the kernel does) or
    under ``/proc/PID/root`` (the root as that process sees it) names one; "kernel" when one
    of them lies in ``/dev``, ``/proc`` or ``/sys`` but for the harmless ones (``/dev/null``,
    ``/dev/stdout``, ``/dev/fd/N``...) and shared memory (``/dev/shm``, a plain folder)."""
    given = "/" + pattern.lstrip("/")
    folded = "/" + posixpath.normpath(given).lstrip("/")
    if _HARMLESS.fullmatch(folded):
        return None
    resolved = [_real(given), _real(folded)]
    forms = dict.fromkeys([folded, *(path for path in resolved if path is not None)])
    forms.update(dict.fromkeys(_PROC_ROOT.sub("/", path) for path in list(forms)))
    if any(DEVICE.match(path) or _is_block(path) for path in forms):
        return "disk"
    if None in resolved or any(_kernel(path) for path in forms):
        return "kernel"  # a link hookline may not read (`/proc/1/root`) is not proven either
    return None


def _real(path: str) -> str | None:
    try:
        return paths.real(path)
    except (OSError, ValueError):
        return None


def _kernel(path: str) -> bool:
    """Whether an absolute, folded path lies in ``/dev``, ``/proc`` or ``/sys`` (or is one of
    them), other than a harmless file or shared memory."""
    if not (path.startswith(KERNEL) or f"{path}/" in KERNEL):
        return False
    return not (_HARMLESS.fullmatch(path) or path.startswith(_SHARED))


def file_write(tool_name: str, tool_input: Mapping[str, Any], place: Place) -> str | None:
    """ "disk", "kernel" or None for the path a file tool writes (``Write`` of ``/dev/sda``)."""
    path = tool_input.get(WRITERS.get(tool_name, ""))
    if not isinstance(path, str) or not path:
        return None
    return path_kind(paths.absolute(path, place.cwd, place.home))


def _is_block(path: str) -> bool:
    try:
        return stat.S_ISBLK(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


_SAMPLES = (
    "/dev/sda",
    "/dev/sda1",
    "/dev/hda",
    "/dev/vda",
    "/dev/xvda",
    "/dev/nvme0n1",
    "/dev/mmcblk0",
    "/dev/loop0",
    "/dev/dm-0",
    "/dev/md0",
    "/dev/mapper/root",
    "/dev/disk/by-id/x",
)


def _glob_samples(pattern: str) -> list[str]:
    return [sample for sample in _SAMPLES if fnmatchcase(sample, pattern)]

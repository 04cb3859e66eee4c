"""The dangerous tier: calls refused whatever the mode, the rules or the hooks say, and the
operations that run unasked only when their targets are proven.

``DANGEROUS`` holds the built-in entries, each a check on the parsed Bash line
(``hookline.permissions.bash``): it sees every command that will run, under wrappers, inside
``bash -c`` and substitutions, with its arguments after quote removal and the folder a literal
``cd`` took it to, and what ``hookline.permissions._proving`` adds (``hash -p`` renames, the
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
- ``fork-bomb``; ``shutdown``; ``force-push-main`` (``hookline.permissions._pushes``: a push
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
from functools import lru_cache
from typing import Any

import hookline.permissions._devices as devices
import hookline.permissions._proving as proving
import hookline.permissions._pushes as pushes
from hookline._support.words import words
from hookline.permissions import targets
from hookline.permissions._devices import DEVICE
from hookline.permissions._paths import user_home
from hookline.permissions._proving import SYSTEM_FOLDERS, Place
from hookline.permissions._recursive import (
    prove_changes,
    prove_deletes,
    reaches,
    recursive_change,
    recursive_delete,
)
from hookline.permissions._rules import PermissionRule
from hookline.permissions.bash import Analysis, Command, analyze
from hookline.permissions.bash._runners import SHELLS

__all__ = ["DANGEROUS", "DEVICE", "SYSTEM_FOLDERS", "Danger", "Place", "reaches"]
_DISK_TOOLS = words("mkfs mke2fs mkswap wipefs fdisk sfdisk cfdisk gdisk sgdisk parted blkdiscard")
_LISTS_ONLY = frozenset({"-l", "--list", "-s", "--show-size", "-p"})
_PRIVILEGE = frozenset({"sudo", "su", "doas", "pkexec", "run0"})
_POWER = frozenset({"shutdown", "reboot", "poweroff", "halt"})
_SYSTEMCTL_POWER = frozenset({"poweroff", "reboot", "halt", "kexec", "soft-reboot"})
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
        return self.met(tool_name, tool_input, command, call_place(cwd, home, roots))

    def met(
        self,
        tool_name: str,
        tool_input: Mapping[str, Any],
        command: str | None,
        place: Place,
        commands: Sequence[Command] | None = None,
    ) -> bool:
        """``matches`` of an entry with no rule, for a call whose Bash ``command`` (None: not
        Bash) and ``place`` are worked out, and the line's ``commands`` (``line_commands``)
        when known: a call is judged against every entry, and reads them once."""
        if command is None:
            files = self.files
            return files is not None and files(tool_name, tool_input, place) == "disk"
        check = self.check
        if check is not None:
            if commands is not None and isinstance(check, _Each):
                return check.among(commands, place)
            return check(analyze(command), place)
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
        return self.unproven_at(tool_name, tool_input, command, call_place(cwd, home, roots))

    def unproven_at(
        self, tool_name: str, tool_input: Mapping[str, Any], command: str | None, place: Place
    ) -> str | None:
        """``unproven``, for a call whose Bash ``command`` (None: not Bash) and ``place`` are
        worked out."""
        if command is None and self.files is not None:
            if self.files(tool_name, tool_input, place) == "kernel":
                return f"`{tool_name}` writes into /dev, /proc or /sys"
            return None
        if command is None or self.prove is None:
            return None
        return self.prove(analyze(command), place)


def _command(tool_name: str, tool_input: Mapping[str, Any]) -> str | None:
    command = tool_input.get("command")
    return command if tool_name == "Bash" and isinstance(command, str) else None


def call_place(cwd: str, home: str | None, roots: Sequence[str]) -> Place:
    """Where a call runs, as the entries' checks read it."""
    return _placed(cwd, home, tuple(roots))


@lru_cache(maxsize=64)
def _placed(cwd: str, home: str | None, roots: tuple[str, ...]) -> Place:
    home = posixpath.normpath(home or user_home())
    return Place(posixpath.normpath(cwd), home, tuple(posixpath.normpath(r) for r in roots))


@dataclass(frozen=True, slots=True)
class _Each:
    """A check on the line that holds when one of ``checks`` holds for one of its commands."""

    checks: tuple[Callable[[Command, Place], bool], ...]

    def __call__(self, analysis: Analysis, place: Place) -> bool:
        return self.among(line_commands(analysis), place)

    def among(self, commands: Sequence[Command], place: Place) -> bool:
        """Whether a check holds for one of the line's ``commands`` (``line_commands``)."""
        return any(check(c, place) for c in commands for check in self.checks)


def _each(*checks: Callable[[Command, Place], bool]) -> _Each:
    return _Each(checks)


def line_commands(analysis: Analysis) -> list[Command]:
    """The commands the entries check on a line (``_commands``)."""
    return _commands(analysis)


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
        check=_each(recursive_delete),
        prove=prove_deletes,
    ),
    Danger(
        "chmod-root",
        f"a recursive chmod or chown of {_PLACES}",
        check=_each(recursive_change),
        prove=prove_changes,
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

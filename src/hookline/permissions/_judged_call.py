"""A tool call as the permission steps read it (``hookline.permissions._steps``)."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import hookline.permissions._dangerous as dangerous
import hookline.permissions._readonly as readonly
import hookline.permissions._visibility as visibility
from hookline.permissions._paths import user_home
from hookline.permissions.bash import Analysis, Command, analyze

if TYPE_CHECKING:
    from hookline.permissions._call import CallContext
    from hookline.permissions._dangerous import Danger, Place
    from hookline.permissions._policy import PermissionPolicy
    from hookline.permissions._rules import PermissionRule
    from hookline.permissions._visibility import PrivateReads


def judged_call(policy: PermissionPolicy, asked: CallContext) -> JudgedCall:
    """The call ``policy`` judges: a tool the policy lists as read-only counts as one, and
    the workspace is the project folder (``cwd`` if None) when the policy names none."""
    name, cwd = asked.tool_name, asked.cwd
    read_only = asked.read_only or name in policy.read_only_tools
    anchor = posixpath.normpath(asked.project_dir or cwd)
    roots = policy.workspace or (anchor,)
    home = asked.home or user_home()
    where = {"cwd": cwd, "roots": roots, "home": home}
    return JudgedCall(name, asked.tool_input, read_only, cwd, home, roots, anchor, where)


@dataclass(frozen=True)
class JudgedCall:
    """One tool call as the permission steps read it: its input, where it runs, and (made
    once, on first use) the Bash line as Bash reads it and why it does more than read."""

    tool_name: str
    tool_input: Mapping[str, Any]
    read_only: bool
    cwd: str
    home: str | None
    roots: tuple[str, ...]
    #: Where ``./`` rules start: the project folder, wherever the shell is.
    anchor: str
    #: ``cwd``, ``roots`` and ``home`` as the path checks take them (made once per call: every
    #: entry of the dangerous tier is given them).
    where: dict[str, Any]

    def matches(self, rule: PermissionRule, *, every: bool = False) -> bool:
        name, given, anchor = self.tool_name, self.tool_input, self.anchor
        return rule.matches(name, given, cwd=self.cwd, home=self.home, every=every, anchor=anchor)

    def meets(self, danger: Danger) -> bool:
        if danger.rule is not None:
            return danger.matches(self.tool_name, self.tool_input, **self.where)
        command = self.command
        commands = None if command is None else self.line_commands
        return danger.met(self.tool_name, self.tool_input, command, self.place, commands)

    def unproven(self, danger: Danger) -> str | None:
        return danger.unproven_at(self.tool_name, self.tool_input, self.command, self.place)

    @cached_property
    def private_reads(self) -> tuple[str, PrivateReads]:
        """The home folder, and hookline's private places as a Bash line's reads are proven
        against them (worked out once: the steps ask three times)."""
        home = self.home or user_home()
        return home, visibility.PrivateReads.of(self.roots, home)

    @cached_property
    def place(self) -> Place:
        """Where the call runs, as the dangerous tier's entries read it (worked out once)."""
        return dangerous.call_place(self.cwd, self.home, self.roots)

    @cached_property
    def line_commands(self) -> list[Command]:
        """The commands the dangerous tier checks on the Bash line (read once, for every
        entry); none for other tools."""
        return [] if self.bash is None else dangerous.line_commands(self.bash)

    @cached_property
    def command(self) -> str | None:
        command = self.tool_input.get("command")
        return command if self.tool_name == "Bash" and isinstance(command, str) else None

    @cached_property
    def bash(self) -> Analysis | None:
        """The Bash line as Bash reads it; None for other tools."""
        return None if self.command is None else analyze(self.command)

    @cached_property
    def not_read_only(self) -> str | None:
        """Why the call does more than read; None when it only reads."""
        if self.bash is not None:
            return readonly.why_not_read_only(self.bash)
        return None if self.read_only else f"{self.tool_name} can change files"

    @cached_property
    def what(self) -> str:
        """The call in a few words: ``Bash command `rm -rf build` `` or just the tool's name."""
        command = self.command
        if command is None:
            return self.tool_name
        return f"Bash command `{command if len(command) < 60 else command[:57] + '...'}`"

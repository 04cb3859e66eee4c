"""Subcommands imported when they are used, so ``hookline --version`` and ``hookline --help``
load neither the agent nor the audit, the stores or the models.

A ``LazyGroup`` knows each subcommand by where it lives and by its one-line summary, which is
what ``hookline --help`` lists (``tests/test_cli_lazy.py`` checks each summary against the
command's own help). Everything else sees a plain click group: ``group.commands`` is a
mapping whose lookups import the command's module on first use.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, NamedTuple

import click


class Lazy(NamedTuple):
    """A subcommand not imported yet: ``where`` is ``"module:attribute"``."""

    where: str
    #: Its first sentence, as ``whole_short_help`` makes it.
    summary: str


class LazyCommands(MutableMapping[str, click.Command]):
    """A group's subcommands by name; a lazy one is imported when it is looked up."""

    def __init__(self, lazy: Mapping[str, Lazy]) -> None:
        self.lazy = dict(lazy)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        command = self._loaded.get(name)
        if command is None:
            module, _, attribute = self.lazy[name].where.partition(":")
            command = getattr(importlib.import_module(module), attribute)
            whole_short_help(command)
            self._loaded[name] = command
        return command

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        if self.lazy.pop(name, None) is None and name not in self._loaded:
            raise KeyError(name)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self.lazy
        yield from (name for name in self._loaded if name not in self.lazy)

    def __len__(self) -> int:
        return len(self.lazy.keys() | self._loaded.keys())

    def summary(self, name: str, limit: int) -> str | None:
        """The line ``--help`` lists for ``name`` without importing it; None: hidden."""
        command = self._loaded.get(name)
        if command is None:
            return self.lazy[name].summary
        return None if command.hidden else command.get_short_help_str(limit)


class LazyGroup(click.Group):
    """A click group whose ``lazy`` subcommands are imported when first looked up."""

    commands: LazyCommands

    def __init__(self, name: str | None = None, *, lazy: Mapping[str, Lazy], **kwargs: Any) -> None:
        super().__init__(name, LazyCommands(lazy), **kwargs)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from the summaries: no subcommand is imported."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = [(n, line) for n in names if (line := self.commands.summary(n, limit)) is not None]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def whole_short_help(command: click.Command) -> None:
    """Give ``command`` and its subcommands their whole first sentence in a command list:
    click cuts it, by default, at about 45 characters."""
    if command.help and not command.short_help:
        paragraph = " ".join(inspect.cleandoc(command.help).split("\n\n")[0].split())
        command.short_help = re.split(r"(?<=\.)\s", paragraph, maxsplit=1)[0]
    for sub in getattr(command, "commands", {}).values():
        whole_short_help(sub)

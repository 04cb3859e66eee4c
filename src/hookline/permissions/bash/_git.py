"""A git command split as git splits it: global options, the subcommand, the subcommand's words.

``split(args)`` reads the words after ``git`` with git's own global-option syntax (git's
``handle_options``): ``-C DIR``, ``-c NAME=VALUE``, ``--config-env[=]NAME=ENVVAR``,
``--git-dir[=]DIR``, ``--work-tree[=]DIR``, ``--namespace[=]NAME``, ``--super-prefix[=]PATH``,
``--attr-source[=]TREE``, ``--exec-path[=DIR]`` and the flags (``-p``, ``-P``, ``--no-pager``,
``--bare``, the pathspec flags, ...). Git takes no abbreviation of a global option, no attached
``-Cdir`` and no clustered flags; ``--help``/``-h`` and ``--version``/``-v`` are read as the
``help`` and ``version`` subcommands, as git reads them. An option git does not know, or a
word only run time knows where an option or the subcommand stands, makes the split unknown:
``Git.unknown`` says why, and the subcommand is then None.

    >>> from hookline.permissions.bash._words import literal
    >>> git = split([literal(w) for w in ["-C", ".", "--no-pager", "push", "-f"]])
    >>> git.subcommand, [w.value for w in git.args], git.text
    ('push', ['-f'], 'git push -f')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from hookline._support.words import words
from hookline.permissions.bash._options import Option
from hookline.permissions.bash._words import Word, literal

__all__ = ["Git", "split"]

#: Global options that take a value: in the next word, or (``=``) attached, or both.
_SEPARATE = words(
    "-C -c --config-env --git-dir --work-tree --namespace --super-prefix --attr-source"
)
_ATTACHED = words(
    "--config-env --git-dir --work-tree --namespace --list-cmds --super-prefix --attr-source "
    "--exec-path"
)
_FLAGS = words(
    "-p --paginate -P --no-pager --no-replace-objects --no-lazy-fetch --no-optional-locks "
    "--no-advice --bare --literal-pathspecs --glob-pathspecs --noglob-pathspecs "
    "--icase-pathspecs --exec-path --html-path --man-path --info-path"
)
#: Flags that print and end git: no subcommand runs after them.
_PRINTS = frozenset({"--html-path", "--man-path", "--info-path", "--list-cmds"})
_AS_SUBCOMMAND: Final = {"--help": "help", "-h": "help", "--version": "version", "-v": "version"}


@dataclass(frozen=True, slots=True)
class Git:
    """A git command's parts: global options as given, the subcommand and its words."""

    #: Global options in order, named as written (``-C``, ``--git-dir``), with their values.
    options: tuple[Option, ...] = ()
    #: The subcommand (``push``); None when there is none or it cannot be known.
    subcommand: str | None = None
    #: The words after the subcommand.
    args: tuple[Word, ...] = ()
    #: Why the split cannot be known; "" when it can.
    unknown: str = ""

    def option(self, *names: str) -> Option | None:
        """The last global option given by one of ``names``."""
        return next((o for o in reversed(self.options) if o.name in names), None)

    @property
    def config(self) -> tuple[str, ...]:
        """The ``NAME=VALUE`` settings of ``-c`` (``\\0`` for one only run time knows)."""
        found = (o.value.value if o.value else "" for o in self.options if o.name == "-c")
        return tuple("\0" if value is None else value for value in found)

    @property
    def text(self) -> str:
        """``git SUBCOMMAND ARGS`` without the global options, as a rule names it (a word
        only run time knows shows as ``\\0``); ``git`` alone when there is no subcommand."""
        words = [self.subcommand or "", *("\0" if a.value is None else a.value for a in self.args)]
        return " ".join(["git", *words]) if self.subcommand else "git"


def split(args: Sequence[Word]) -> Git:
    """``args`` (the words after ``git``) as global options, subcommand and its words."""
    options: list[Option] = []
    index = 0
    while index < len(args):
        word = args[index].value
        if word is None:
            shown = args[index].raw
            return Git(
                tuple(options), unknown=f"a git option or subcommand is not known (`{shown}`)"
            )
        if word in _AS_SUBCOMMAND:
            return Git(tuple(options), _AS_SUBCOMMAND[word], tuple(args[index + 1 :]))
        if not word.startswith("-"):
            return Git(tuple(options), word, tuple(args[index + 1 :]))
        name, eq, attached = word.partition("=")
        if word in _SEPARATE:
            if index + 1 == len(args):
                return Git(tuple(options), unknown=f"`git {word}` has no value")
            options.append(Option(word, args[index + 1]))
            index += 2
            continue
        if eq and name in _ATTACHED:
            options.append(Option(name, literal(attached)))
        elif word in _FLAGS:
            options.append(Option(word))
        else:
            return Git(tuple(options), unknown=f"`git {name}` is not a git option hookline knows")
        if name in _PRINTS or word == "--exec-path":
            return Git(tuple(options))
        index += 1
    return Git(tuple(options))

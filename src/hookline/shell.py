"""Bash command lines cut into subcommands, for permission rules and the permission layer.

``split(line)`` reads a line the way Bash would group it: subcommands end at ``&&``, ``||``,
``;``, ``|``, ``&``, new lines and parentheses, and those inside ``$(...)`` and backticks count
too; a redirect and its target are dropped. It answers None for what it cannot read safely (an
open quote or ``$(``, a here-document), and says whether the line is ``dynamic``: a variable,
``$(...)`` or a backtick means the text is not all of what runs. Nothing is run or expanded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""(?P<space>[ \t]+)
    |(?P<comment>(?<![^\s;&|()])\#[^\n]*)
    |(?P<quoted>'[^']*'|")
    |(?P<unreadable><<(?!<)|'|\\$)
    |(?P<substitution>[$<>]\(|`)
    |(?P<redirect>(?:\d+|&)?(?:>>|<<<|<>|>|<)(?:&(?:\d+|-)|[&|]?[ \t]*(?:[^\s;&|()<>'"]
        |'[^']*'|"(?:[^"\\]|\\.)*")*))
    |(?P<separator>&&|\|\||\|&|[;|&\n()])
    |(?P<variable>\$[\w{@*#?!$-])
    |(?P<text>\\.|[^\s'"\\`$;&|()<>#]+|.)""",
    re.VERBOSE | re.DOTALL,
)
#: Inside double quotes only ``$``, backticks, ``\`` and the closing quote are special.
_IN_QUOTES = re.compile(
    r'(?P<quoted>")|(?P<substitution>\$\(|`)|(?P<variable>\$[\w{@*#?!$-])'
    r'|(?P<text>\\.|[^"\\$`]+|.)',
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class CommandLine:
    """A line's subcommands (each a list of words), and whether it expands anything."""

    subcommands: list[list[str]]
    dynamic: bool


def split(command: str) -> CommandLine | None:
    """``command`` cut into subcommands; None if it cannot be read safely."""
    splitter = _Splitter()
    try:
        splitter.split(command)
    except _Unreadable:
        return None
    return CommandLine(splitter.found, splitter.dynamic)


def subcommands(command: object) -> list[list[str]] | None:
    """A Bash line's subcommands, as words (those inside ``$(...)`` too); None if it cannot be
    read safely (an open quote, a here-document, ...) or is not a string."""
    line = split(command) if isinstance(command, str) else None
    return None if line is None else line.subcommands


class _Unreadable(Exception):
    """The command cannot be split safely: an open quote or ``$(``, a here-document."""


class _Splitter:
    """Cuts a command line into subcommands (lists of words), reading into ``$(...)``."""

    def __init__(self, depth: int = 0) -> None:
        if depth > 20:
            raise _Unreadable
        self.depth, self.found, self.words = depth, list[list[str]](), list[str]()
        self.word: str | None = None
        self.open = 0  # subshells opened with `(`, so a later `)` is not the end of `$(`
        self.quoted = False  # inside "...", where only $, backticks and \\ are special
        self.dynamic = False  # $VAR, $(...) or backticks: the text is not all of what runs

    def split(self, text: str, pos: int = 0, closer: str = "") -> int:
        """Read ``text`` from ``pos`` to its end, or past the ``closer`` of a substitution."""
        while token := (_IN_QUOTES if self.quoted else _TOKEN).match(text, pos):
            if token.group() == closer and not (self.open or self.quoted):
                self.end_command()
                return token.end()
            pos = self.take(token, text)
        if closer or self.quoted:
            raise _Unreadable  # an open quote, or a `$(` or backtick never closed
        self.end_command()
        return pos

    def take(self, token: re.Match[str], text: str) -> int:
        """Add one token to the word, command or list of commands; return where the next starts."""
        kind, value, end = token.lastgroup, token.group(), token.end()
        if kind == "unreadable":
            raise _Unreadable
        if kind == "separator":
            self.open += (value == "(") - (value == ")")
            self.end_command()
        elif kind in ("space", "comment", "redirect"):  # a redirect takes its target along
            self.end_word()
        else:
            if kind == "substitution":
                inner = _Splitter(self.depth + 1)
                end = inner.split(text, end, "`" if value == "`" else ")")
                self.found.extend(inner.found)
            self.quoted ^= value == '"'
            self.dynamic |= kind in ("substitution", "variable")
            self.word = (self.word or "") + text[token.start() : end]
        return end

    def end_word(self) -> None:
        if self.word is not None:
            self.words.append(self.word)
        self.word = None

    def end_command(self) -> None:
        self.end_word()
        if self.words:
            self.found.append(self.words)
        self.words = []

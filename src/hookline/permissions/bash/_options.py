"""Command-line options read as a program reads them: short clusters, values, long names, ``--``.

``read(words, spec)`` walks the words of one command. ``-abc`` is three short options, unless
one of them takes a value: then the rest of the cluster is its value, or the next word when the
cluster ends there. ``--name`` and ``--name=value`` are long options, and a unique prefix stands
for the whole name, as GNU programs allow (``--recu`` is ``--recursive``). ``--`` ends the
options and ``-`` alone is an operand. Options and operands may mix (GNU style) unless
``first_operand_ends``, as for a wrapper (``timeout 5 cmd -x``: ``-x`` is the command's). A
long option whose value is optional takes it only attached (``nsenter --mount=FILE``; ``--mount``
alone takes none), as a short one in ``attached`` does.

An option the spec does not list is kept with ``known=False``: whether it takes the next word
as its value cannot be known, so a caller that depends on that treats the command as unknown.
A word only run time knows is an unknown option named ``""`` (it may be one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hookline.permissions.bash._words import Word, literal


@dataclass(frozen=True, slots=True)
class Options:
    """What a program's options are: short letters alone or with a value, long names alike."""

    flags: str = ""
    values: str = ""
    long_flags: frozenset[str] = frozenset()
    long_values: frozenset[str] = frozenset()
    #: Short options whose value is only ever attached (``xargs -i{}``): no next word taken.
    attached: str = ""
    #: ``-5`` is an option (``nice -5``).
    numbers: bool = False
    #: Long options whose value is optional, so only ever attached (``--mount[=FILE]``).
    long_attached: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        flags: str = "",
        values: str = "",
        long_flags: str = "",
        long_values: str = "",
        *,
        attached: str = "",
        numbers: bool = False,
        long_attached: str = "",
    ) -> Options:
        """Options with the long names given space-separated: ``of("pv", "m", "--parents")``."""
        longs, valued = frozenset(long_flags.split()), frozenset(long_values.split())
        optional = frozenset(long_attached.split())
        return cls(flags, values, longs, valued, attached, numbers, optional)


@dataclass(frozen=True, slots=True)
class Option:
    """One option as given: a letter (``"r"``) or a long name (``"--recursive"``), its value."""

    name: str
    value: Word | None = None
    known: bool = True

    @property
    def shown(self) -> str:
        """As it is written: ``-r``, ``--recursive``, or the word only run time knows."""
        if not self.name:
            return self.value.raw if self.value else ""
        return self.name if self.name.startswith("-") else f"-{self.name}"


@dataclass(frozen=True, slots=True)
class Read:
    """A command's options, and its operands (with ``first_operand_ends``: all that follows)."""

    options: tuple[Option, ...]
    operands: tuple[Word, ...]

    def named(self, *names: str) -> Option | None:
        """The last option given by one of ``names``."""
        return next((o for o in reversed(self.options) if o.name in names), None)

    @property
    def unknown(self) -> Option | None:
        return next((o for o in self.options if not o.known), None)


def read(words: Sequence[Word], spec: Options, *, first_operand_ends: bool = False) -> Read:
    """The options and operands of ``words`` (a command's arguments)."""
    options: list[Option] = []
    operands: list[Word] = []
    queue = list(words)
    while queue:
        word = queue.pop(0)
        value = word.value
        if value == "--":
            operands.extend(queue)
            break
        if value is None and not first_operand_ends:
            options.append(Option("", word, known=False))
        elif value is None or not value.startswith("-") or value == "-":
            operands.append(word)
            if first_operand_ends:
                operands.extend(queue)
                break
        elif spec.numbers and value[1:].isdigit():
            options.append(Option(value))
        elif value.startswith("--"):
            options.append(_long(value, spec, queue))
        else:
            options.extend(_short(value, spec, queue))
    return Read(tuple(options), tuple(operands))


def _long(word: str, spec: Options, queue: list[Word]) -> Option:
    given, eq, attached = word.partition("=")
    name = _full_name(given, spec.long_flags | spec.long_values | spec.long_attached)
    if name is None:
        return Option(given, literal(attached) if eq else None, known=False)
    if name in spec.long_values:
        return Option(name, literal(attached) if eq else _take(queue))
    if name in spec.long_attached:
        return Option(name, literal(attached) if eq else None)
    return Option(name)


def _full_name(given: str, names: frozenset[str]) -> str | None:
    """``given`` itself when listed, else the one listed name it is a prefix of."""
    if given in names:
        return given
    candidates = [name for name in names if name.startswith(given)]
    return candidates[0] if len(candidates) == 1 and len(given) > 2 else None


def _short(word: str, spec: Options, queue: list[Word]) -> list[Option]:
    found: list[Option] = []
    for index, letter in enumerate(word[1:], start=1):
        rest = word[index + 1 :]
        if letter in spec.attached:
            return [*found, Option(letter, literal(rest))]
        if letter in spec.values:
            return [*found, Option(letter, literal(rest) if rest else _take(queue))]
        found.append(Option(letter, known=letter in spec.flags))
    return found


def _take(queue: list[Word]) -> Word | None:
    return queue.pop(0) if queue else None

"""How a read-only program's arguments are proved harmless: every option it is given is on its
list, read with the program's real option syntax.

A ``Spec`` lists a program's permitted options: short letters alone (``flags``) or with a value
(``values``: attached, ``-n5``, or the next word, ``-n 5``; ``attached``: only attached, as
``git status -uno``), long names alone or with a value (``--lines=5``, ``--lines 5``), and
whether ``-5`` is an option. A long option written shorter (``--recu``) is read as the one
listed name it starts, only for programs that take abbreviations (GNU ``getopt_long``) and only
when no option the program is known to write or run code with (``harmful``) starts the same
way. Anything else, an option not listed above all, is a reason: the reason names the option.

``harmful`` names the options of the real program that write or run code, so the reason can say
what they do; a program with none (``cat``, ``ls``, ``wc``) may take words only run time knows,
a program with some may not (``sort $OPTS`` could be ``sort -o FILE``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from hookline.permissions.bash._options import Options, read
from hookline.permissions.bash._words import Word, literal

__all__ = ["Check", "Spec", "why_arguments"]

#: A program's own check: of its operands after its options are read, or (``check_only``) of all
#: its literal words instead. None, or why not.
Check = Callable[[list[str]], "str | None"]


@dataclass(frozen=True)
class Spec:
    """A read-only program: every option it may be given, and what else limits it."""

    flags: str = ""
    values: str = ""
    long_flags: str = ""
    long_values: str = ""
    attached: str = ""
    numbers: bool = False
    #: A unique start of a listed long name stands for it (GNU ``getopt_long``).
    abbreviate: bool = True
    #: The real program's options that write or run code, space-separated (``-o --output``).
    harmful: str = ""
    #: What a harmful option does, for the reason.
    does: str = "writes a file"
    #: More operands than this, and it writes (``uniq in out``); None: no limit.
    max_operands: int | None = None
    #: Its words are data, not options (``echo``, ``test``).
    any_words: bool = False
    #: Run instead of reading options (``find``, ``git``), or after it (with ``options``).
    check: Check | None = field(default=None, compare=False)
    check_only: bool = False

    @cached_property
    def options(self) -> Options:
        harmful = [h for h in self.harmful.split() if h.startswith("--")]
        short = "".join(h[1] for h in self.harmful.split() if len(h) == 2)
        return Options(
            self.flags,
            self.values + short,
            frozenset(self.long_flags.split()),
            frozenset(self.long_values.split()) | frozenset(harmful),
            self.attached,
            self.numbers,
        )

    @cached_property
    def harmful_names(self) -> frozenset[str]:
        return frozenset(h.lstrip("-") if len(h) == 2 else h for h in self.harmful.split())

    @property
    def strict(self) -> bool:
        """Whether some argument could make it write or run code."""
        return bool(self.harmful or self.check or self.max_operands is not None)


def why_arguments(name: str, spec: Spec, args: Sequence[Word]) -> str | None:
    """None when every argument of ``name`` is proved harmless by ``spec``; else why not."""
    words: list[str] = []
    for arg in args:
        if arg.value is None and spec.strict:
            return f"`{name}` has an argument only known at run time (`{arg.raw}`)"
        if arg.glob and spec.strict and arg.value and arg.value[0] in "*?[":
            return f"`{arg.raw}` could expand to an option of `{name}`"
        if arg.value is not None:
            words.append(arg.value)
    if spec.any_words:
        return spec.check(words) if spec.check else None
    if spec.check is not None and spec.check_only:
        return spec.check(words)
    why, operands = _options(name, spec, words)
    if why is None and spec.check is not None:
        return spec.check(operands)
    return why


def _options(name: str, spec: Spec, words: list[str]) -> tuple[str | None, list[str]]:
    """Why an option is not read-only (or None), and the operands."""
    if why := _long_spellings(name, spec, words):
        return why, []
    given = read([literal(word) for word in words], spec.options)
    operands = [w.value or "" for w in given.operands]
    for option in given.options:
        if option.name in spec.harmful_names:
            return f"`{name} {option.shown}` {spec.does}", operands
        if not option.known:
            return f"`{name} {option.shown}` is not an option hookline lists as read-only", operands
    if spec.max_operands is not None and len(operands) > spec.max_operands:
        return f"`{name} {operands[spec.max_operands]}` {spec.does}", operands
    return None, operands


def _long_spellings(name: str, spec: Spec, words: list[str]) -> str | None:
    """An abbreviated long option where the program takes none, or one that may stand for a
    harmful option."""
    listed = spec.options.long_flags | spec.options.long_values
    for word in words:
        if word == "--":
            return None
        if not word.startswith("--"):
            continue
        given = word.partition("=")[0]
        if given in listed:
            continue
        harmful = [h for h in spec.harmful.split() if h.startswith(given) and len(given) > 2]
        if harmful:
            return f"`{name} {harmful[0]}` {spec.does}"
        if not spec.abbreviate:
            return f"`{name} {given}` is not an option hookline lists as read-only"
    return None

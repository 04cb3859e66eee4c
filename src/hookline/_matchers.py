"""Matchers: which events a hook sees. Small callables with reprs that print what they match.

``tool_name("Bash|Edit")`` reads Claude Code's matcher syntax: empty or ``*`` matches everything; a
pattern of only letters, digits, ``_``, ``-``, space, ``,`` and ``|`` is a list of exact names;
anything else is an unanchored regular expression (``Edit.*`` also matches ``NotebookEdit``). It
filters on the event's match field (the tool name; ``source`` for SessionStart, ...) and lets
every event without one through, as Claude Code ignores matchers there.

``arg("command", contains="rm -rf")`` looks into the tool input. Matchers compose with
``&``, ``|`` and ``~``, or ``all_of`` / ``any_of`` / ``not_``.

A matcher that reads nothing but the event's match value (``by_name``: ``tool_name`` and what
is composed of them alone) gives one answer for every event of a kind with that value, so the
hook engine asks it once per value and keeps the answer (``hookline._hooks.registry.Plan``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hookline._errors import ConfigError

if TYPE_CHECKING:
    from hookline._events import HookEvent

_EXACT = re.compile(r"[A-Za-z0-9_\-|, ]*")
_MISSING = object()


class Matcher:
    """Base class: ``matcher(event) -> bool``, composable with ``&``, ``|`` and ``~``."""

    __slots__ = ()

    #: Whether it reads nothing of an event but its class's ``match_field`` and its
    #: ``match_value()``, and always answers the same for them (see the module docstring).
    by_name: bool = False

    def __call__(self, event: HookEvent) -> bool:
        raise NotImplementedError

    def __and__(self, other: Matcher) -> Matcher:
        return AllOf((self, other))

    def __or__(self, other: Matcher) -> Matcher:
        return AnyOf((self, other))

    def __invert__(self) -> Matcher:
        return Not(self)

    def label(self) -> str:
        """The matcher as people read it: as settings write it where they can (``Bash``,
        ``Edit|Write``, ``*``), else its Python form."""
        return repr(self)


class _Everything(Matcher):
    __slots__ = ()
    by_name = True

    def __call__(self, event: HookEvent) -> bool:
        return True

    def __repr__(self) -> str:
        return "everything"

    def label(self) -> str:
        return "*"


EVERYTHING: Matcher = _Everything()


class NameIn(Matcher):
    """The event's match value is one of these exact names."""

    __slots__ = ("names", "pattern")
    by_name = True

    def __init__(self, names: frozenset[str], pattern: str) -> None:
        self.names = names
        self.pattern = pattern

    def __call__(self, event: HookEvent) -> bool:
        value = event.match_value()
        return (value is None and event.match_field is None) or value in self.names

    def __repr__(self) -> str:
        return f"tool_name({self.pattern!r})"

    def label(self) -> str:
        return self.pattern


class NameRegex(Matcher):
    """The event's match value contains a match of this regular expression."""

    __slots__ = ("regex",)
    by_name = True

    def __init__(self, regex: re.Pattern[str]) -> None:
        self.regex = regex

    def __call__(self, event: HookEvent) -> bool:
        value = event.match_value()
        if value is None:
            return event.match_field is None
        return self.regex.search(value) is not None

    def __repr__(self) -> str:
        return f"tool_name({self.regex.pattern!r})"

    def label(self) -> str:
        return self.regex.pattern


def tool_name(pattern: str | None, *, file: str | None = None, key: str = "matcher") -> Matcher:
    """A matcher in Claude Code's syntax; a bad regex is a ConfigError naming file and key."""
    text = (pattern or "").strip()
    if text in ("", "*"):
        return EVERYTHING
    if _EXACT.fullmatch(text):
        names = frozenset(n.strip() for n in re.split(r"[|,]", text) if n.strip())
        return NameIn(names, text)
    try:
        return NameRegex(re.compile(text))
    except re.error as exc:
        raise ConfigError(
            f"matcher {text!r} is not a valid regular expression: {exc}",
            file=file,
            key=key,
            fix="escape special characters, or list exact names as 'Bash|Edit'",
        ) from None


class Arg(Matcher):
    """A test on one field of the tool input, addressed by a dotted path."""

    __slots__ = ("_test", "op", "path", "value")

    def __init__(self, path: str, op: str, value: Any, test: Callable[[Any], bool]) -> None:
        self.path = path
        self.op = op
        self.value = value
        self._test = test

    def __call__(self, event: HookEvent) -> bool:
        found: Any = getattr(event, "tool_input", _MISSING)
        if found is _MISSING:
            return False  # not a tool event: no input to test
        for part in self.path.split("."):
            found = found.get(part, _MISSING) if isinstance(found, dict) else _MISSING
        if self.op == "exists":
            return (found is not _MISSING) is self.value
        return found is not _MISSING and self._test(found)

    def __repr__(self) -> str:
        return f"arg({self.path!r}, {self.op}={self.value!r})"


def arg(
    path: str,
    *,
    equals: Any = _MISSING,
    contains: str | None = None,
    matches: str | None = None,
    startswith: str | None = None,
    one_of: tuple[Any, ...] | list[Any] | None = None,
    exists: bool | None = None,
) -> Matcher:
    """A test on the tool input field ``path`` ("command", "options.force"); give one test."""
    tests: list[tuple[str, Any, Callable[[Any], bool]]] = []
    if equals is not _MISSING:
        tests.append(("equals", equals, lambda v: v == equals))
    if contains is not None:
        tests.append(("contains", contains, lambda v: isinstance(v, str) and contains in v))
    if matches is not None:
        regex = re.compile(matches)
        tests.append(("matches", matches, lambda v: isinstance(v, str) and bool(regex.search(v))))
    if startswith is not None:
        tests.append(
            ("startswith", startswith, lambda v: isinstance(v, str) and v.startswith(startswith))
        )
    if one_of is not None:
        options = tuple(one_of)
        tests.append(("one_of", options, lambda v: v in options))
    if exists is not None:
        tests.append(("exists", exists, lambda v: exists))
    if len(tests) != 1:
        raise ConfigError(
            f"arg({path!r}) needs exactly one test",
            fix="pass one of equals=, contains=, matches=, startswith=, one_of=, exists=",
        )
    op, value, test = tests[0]
    return Arg(path, op, value, test)


class AllOf(Matcher):
    __slots__ = ("by_name", "parts")

    def __init__(self, parts: tuple[Matcher, ...]) -> None:
        self.parts = tuple(_flatten(parts, AllOf))
        self.by_name = all(part.by_name for part in self.parts)

    def __call__(self, event: HookEvent) -> bool:
        return all(part(event) for part in self.parts)

    def __repr__(self) -> str:
        return " & ".join(_wrap(p, AnyOf) for p in self.parts)

    def label(self) -> str:
        return " & ".join(p.label() for p in self.parts)


class AnyOf(Matcher):
    __slots__ = ("by_name", "parts")

    def __init__(self, parts: tuple[Matcher, ...]) -> None:
        self.parts = tuple(_flatten(parts, AnyOf))
        self.by_name = all(part.by_name for part in self.parts)

    def __call__(self, event: HookEvent) -> bool:
        return any(part(event) for part in self.parts)

    def __repr__(self) -> str:
        return " | ".join(_wrap(p, AllOf) for p in self.parts)


class Not(Matcher):
    __slots__ = ("by_name", "part")

    def __init__(self, part: Matcher) -> None:
        self.part = part
        self.by_name = part.by_name

    def __call__(self, event: HookEvent) -> bool:
        return not self.part(event)

    def __repr__(self) -> str:
        return f"~{_wrap(self.part, (AllOf, AnyOf))}"


def all_of(*parts: Matcher) -> Matcher:
    """Every part matches."""
    return AllOf(parts)


def any_of(*parts: Matcher) -> Matcher:
    """At least one part matches."""
    return AnyOf(parts)


def not_(part: Matcher) -> Matcher:
    """The part does not match."""
    return Not(part)


def as_matcher(value: str | Matcher | None, *, file: str | None = None) -> Matcher:
    """A matcher from Claude Code syntax, an existing matcher, or None (everything)."""
    if isinstance(value, Matcher):
        return value
    if value is None or isinstance(value, str):
        return tool_name(value, file=file)
    raise ConfigError(
        f"a matcher must be a string or a hookline matcher, not {type(value).__name__}",
        file=file,
        key="matcher",
        fix="write matcher='Bash|Edit', or tool_name('Bash') & arg('command', contains='rm')",
    )


def _flatten(parts: tuple[Matcher, ...], kind: type) -> list[Matcher]:
    flat: list[Matcher] = []
    for part in parts:
        flat.extend(part.parts if isinstance(part, kind) else (part,))  # type: ignore[attr-defined]
    return flat


def _wrap(part: Matcher, kinds: type | tuple[type, ...]) -> str:
    return f"({part!r})" if isinstance(part, kinds) else repr(part)

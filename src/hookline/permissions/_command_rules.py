"""``Bash(...)`` rule specifiers matched against every command a line will run.

A specifier is text with ``*`` standing for any text (``git push *``); a trailing `` *`` or the
older ``:*`` also covers the bare command (``ls *`` matches ``ls``, not ``lsof``). It is matched
against each command the analysis finds (``hookline.permissions.bash``), name and arguments
joined by single spaces after quote removal, under wrappers and inside substitutions too.

- **any** (deny and ask rules, hook ``if`` conditions): some command matches. A word only run
  time knows matches anything, so ``rm $X`` meets ``Bash(rm -rf *)``. A git command matches as
  written and without its global options (``git -C . --no-pager push`` meets
  ``Bash(git push *)``). A line whose commands cannot be known matches every such rule.
- **every** (allow rules): each command matches on its own, with no ``VAR=`` prefix but
  harmless ones (``NODE_ENV``, ``CI``, ...) and its program as written (``./echo`` is a file,
  not the ``echo`` a rule names) — wrappers such as ``timeout`` or
  ``nice`` are looked through, others (``sudo``, ``xargs``, ``bash -c``) must match too — and a
  word only run time knows must fall under a ``*``. A line that cannot be known (outside the
  known subset), or with a function that calls itself, matches none: an allow rule is a proof
  that every command the line runs is one the rule names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from hookline.permissions.bash import Analysis, Command, analyze
from hookline.permissions.bash._git import split

#: Variables an allow rule reads past (``NODE_ENV=test npm test``); any other makes it not match.
SAFE_ENV = frozenset({"NODE_ENV", "CI", "NO_COLOR", "FORCE_COLOR", "TZ", "LANG", "LC_ALL"})
#: Past this many characters before the first unknown word, "could it match" is answered yes.
_PREFIX_LIMIT = 4096


def command_matches(spec: str, line: str, *, every: bool) -> bool:
    """Whether ``line`` matches the specifier: some command of it, or with ``every`` all."""
    analysis = analyze(line)
    pattern = _pattern(spec)
    if every:
        runs = [c for c in analysis.commands if not c.transparent]
        return _provable(analysis) and bool(runs) and all(pattern.allows(c) for c in runs)
    return not analysis.known or any(pattern.meets(c) for c in analysis.commands)


def cover(specs: Sequence[str], line: str) -> list[int] | None:
    """For each command ``line`` runs, the index of the first specifier that allows it on its
    own; None when the line cannot be known or some command is allowed by none."""
    analysis = analyze(line)
    if not _provable(analysis):
        return None
    patterns = [_pattern(spec) for spec in specs]
    found: list[int] = []
    for command in analysis.commands:
        if command.transparent:
            continue
        index = next((i for i, p in enumerate(patterns) if p.allows(command)), None)
        if index is None:
            return None
        found.append(index)
    return found or None


def _provable(analysis: Analysis) -> bool:
    """Whether the line lies in the known subset, so an allow rule can prove it."""
    return analysis.known and not analysis.recursive


@dataclass(frozen=True, slots=True)
class _Pattern:
    """A specifier as glob tokens (one character, or ``*``) and as a regex."""

    regex: re.Pattern[str]
    alternatives: tuple[tuple[str, ...], ...]

    def allows(self, command: Command) -> bool:
        """Every word matches, an unknown one only where a ``*`` covers it; no variable is set
        for it beyond the harmless ones."""
        safe = SAFE_ENV.issuperset(command.env)
        return safe and self.regex.fullmatch(_text(command, written=True)) is not None

    def meets(self, command: Command) -> bool:
        """Some value of the unknown words would make the command match; a git command as
        written or without its global options."""
        if command.name == "git":
            git = split(command.args)
            if git.subcommand and self.meets_text(git.text + (" \0" if command.more_args else "")):
                return True
        return self.meets_text(_text(command))

    def meets_text(self, text: str) -> bool:
        if "\0" not in text:
            return self.regex.fullmatch(text) is not None
        prefix = text[: text.index("\0")]
        return len(prefix) > _PREFIX_LIMIT or any(
            _could_start(t, prefix) for t in self.alternatives
        )


def _text(command: Command, *, written: bool = False) -> str:
    """The command as one line; ``written``: its program as written (``./echo``, not ``echo``)."""
    return (command.written if written else command.text) + (" \0" if command.more_args else "")


@lru_cache(maxsize=512)
def _pattern(spec: str) -> _Pattern:
    spec = f"{spec[:-2]} *" if spec.endswith(":*") else spec
    forms = [spec]
    if spec.endswith(" *") and spec.count("*") == 1:  # `ls *` also matches a bare `ls`
        forms.append(spec[:-2])
    regex = "|".join(".*".join(re.escape(part) for part in form.split("*")) for form in forms)
    tokens = tuple(tuple("*" if c == "*" else c for c in form) for form in forms)
    return _Pattern(re.compile(regex, re.DOTALL), tokens)


def _could_start(tokens: tuple[str, ...], prefix: str) -> bool:
    """Whether some text matching the glob ``tokens`` starts with ``prefix``."""
    states = _closure(tokens, {0})
    for char in prefix:
        moved = set()
        for state in states:
            if state < len(tokens) and tokens[state] == "*":
                moved.add(state)
            elif state < len(tokens) and tokens[state] == char:
                moved.add(state + 1)
        states = _closure(tokens, moved)
        if not states:
            return False
    return True


def _closure(tokens: tuple[str, ...], states: set[int]) -> set[int]:
    """``states`` plus those reached by letting a ``*`` match nothing."""
    out, todo = set(states), list(states)
    while todo:
        state = todo.pop()
        if state < len(tokens) and tokens[state] == "*" and state + 1 not in out:
            out.add(state + 1)
            todo.append(state + 1)
    return out

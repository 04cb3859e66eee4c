"""``--allowedTools`` / ``--disallowedTools``: permission rules on the command line, as
``claude -p`` takes them.

Each flag takes one or more values (``--allowedTools Bash Read`` as well as
``--allowedTools "Bash(git log:*),Edit"``), and may be repeated. A value is split on commas and
spaces outside parentheses, so ``"Bash(git log:*) Edit"`` is two rules, the first keeping its
space. The rules join the settings as the allow and deny lists of a ``cli`` layer, merging with
the settings files' lists as Claude Code merges them. Like Claude Code's, the flags take every
value up to the next option: put the prompt before them, or after ``--``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

import click

from hookline.permissions._rules import PermissionRule

#: The flag names (Claude Code's, then the kebab-case aliases) and their help.
_FLAGS: Final = {
    "allowed_tools": (
        ("--allowedTools", "--allowed-tools"),
        'Allow rules, as in Claude Code: "Bash(git log:*) Edit" (comma- or space-separated, '
        "repeatable); they join the settings' permissions.allow.",
    ),
    "disallowed_tools": (
        ("--disallowedTools", "--disallowed-tools"),
        'Deny rules, as in Claude Code: "Bash(rm:*),WebFetch" (comma- or space-separated, '
        "repeatable); they join the settings' permissions.deny.",
    ),
}


class Greedy(click.Option):
    """An option that, like Claude Code's variadic flags, takes every value after it up to the
    next option (or ``--``); repeated, the values add up."""

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        super().add_to_parser(parser, ctx)
        for name in self.opts:
            option = parser._long_opt[name]
            option.process = _taking_the_rest(option.process)


def _taking_the_rest(process: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
    def take(value: Any, state: Any) -> None:
        process(value, state)
        while state.rargs and not state.rargs[0].startswith("-"):
            process(state.rargs.pop(0), state)

    return take


def tool_rule_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``hookline run``'s ``--allowedTools`` and ``--disallowedTools``."""
    for dest, (names, help_text) in reversed(_FLAGS.items()):
        option = click.option(
            *names, dest, cls=Greedy, multiple=True, metavar="RULES", help=help_text
        )
        command = option(command)
    return command


def split_rules(values: Iterable[str], *, flag: str) -> tuple[str, ...]:
    """The rules in ``values`` (split on commas and spaces outside parentheses), each checked:
    a malformed one is a ConfigError naming ``flag``, so no rule is silently dropped."""
    rules: list[str] = []
    for value in values:
        rules.extend(_split(value))
    for rule in rules:
        PermissionRule.parse(rule, key=flag)
    return tuple(dict.fromkeys(rules))


def _split(value: str) -> list[str]:
    pieces, current, depth = [], "", 0
    for char in value:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth <= 0 and (char == "," or char.isspace()):
            pieces.append(current)
            current, depth = "", 0
        else:
            current += char
    return [piece.strip() for piece in (*pieces, current) if piece.strip()]

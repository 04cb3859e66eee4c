"""The read-only tier for Bash: a line runs without asking when it is proved only to read.

``why_not_read_only(analysis)`` is None for such a line, else one short reason for the model.
The proof is over a closed list, not a search for known-bad spellings: the line must lie in the
known subset (nothing in ``Analysis.unknown``), every command must be a program on the read list
(``readlist``; git's subcommands in ``readgit``) with every option it is given on that program's
list (``readspec``), no write redirect except to ``/dev/null``, ``/dev/stdout``, ``/dev/stderr``,
no substitution, and no variable set for a command but the harmless ``SAFE_ENV``. Wrappers that
only change how a command runs (``timeout``, ``nice``, ``env X=1``, ``xargs``) are looked
through, though under ``xargs`` a command gets arguments only run time knows, which a program
with writing options (``sort``) does not pass with; wrappers that run code as another user or
from a string (``sudo``, ``bash -c``, ``eval``, ``watch``) are never read-only.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hookline.permissions._readlist import PROGRAMS
from hookline.permissions._readspec import Spec, why_arguments

if TYPE_CHECKING:
    from hookline.permissions.bash import Analysis, Command

__all__ = [
    "HARMLESS_TARGETS",
    "PROGRAMS",
    "SAFE_ENV",
    "Spec",
    "why_command_not_read_only",
    "why_not_read_only",
]

#: Write redirect targets that change no file.
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
#: Variables a read-only command may be given (``LC_ALL=C sort``): they choose a language,
#: a time zone, colours or a terminal size, and name no program or file to run or write.
SAFE_ENV = re.compile(r"LC_[A-Z]+|LANG|LANGUAGE|TZ|NO_COLOR|TERM|COLUMNS|LINES|CLICOLOR")
#: Where a program named by its path is still the program of that name.
SYSTEM_BIN = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/")


def why_not_read_only(analysis: Analysis) -> str | None:
    """None when every command of the line only reads; else why not, in one short phrase."""
    if analysis.unknown:
        return f"what runs cannot be known: {analysis.unknown[0]}"
    if analysis.recursive:
        return f"the function `{analysis.recursive[0]}` calls itself"
    for command in analysis.commands:
        if why := why_command_not_read_only(command):
            return why
    if analysis.substitutions:
        return "`$(...)` runs another command"
    return None


def why_command_not_read_only(command: Command) -> str | None:
    """None when this one command (with its redirects) only reads; else why not."""
    if command.name is None:
        return "what runs cannot be known: the command name is only known at run time"
    for redirect in command.writes:
        target = redirect.target.value if redirect.target else None
        if target not in HARMLESS_TARGETS:
            return f"its output is redirected to `{target or redirect.target}`"
    if unsafe := next((v for v in command.env if not SAFE_ENV.fullmatch(v)), None):
        return f"`{unsafe}=` is set for `{command.name}`, which may change what it runs or writes"
    if command.wrapper:
        return _wrapper(command)
    if command.path and not command.path.startswith(SYSTEM_BIN):
        return f"`{command.path}` is a file of its own, not the `{command.name}` program"
    spec = PROGRAMS.get(command.name)
    if spec is None:
        return f"`{command.name}` is not a read-only program"
    if command.more_args and spec.strict:
        return f"`{command.name}` gets more arguments at run time (`xargs`, `find -exec +`)"
    return why_arguments(command.name, spec, command.args)


def _env_variable(command: Command) -> str | None:
    """The first variable ``env NAME=VALUE ...`` sets that is not a harmless one."""
    for arg in command.args:
        name, eq, _ = (arg.value or "").partition("=")
        if arg.value is not None and not arg.value.startswith("-") and not eq:
            return None  # the command starts
        if eq and not name.startswith("-") and not SAFE_ENV.fullmatch(name):
            return name
    return None


def _wrapper(command: Command) -> str | None:
    name = command.name or ""
    if not command.transparent:
        return f"`{name}` runs another command"
    if name == "nohup":
        return "`nohup` may write `nohup.out`"
    if name == "env" and (unsafe := _env_variable(command)):
        return f"`env {unsafe}=` may change what the command runs or writes"
    values = [a.value for a in command.args]
    if name == "time" and any(
        v in ("-o", "--output") or (v or "").startswith("--o") for v in values
    ):
        return "`time -o` writes a file"
    return None

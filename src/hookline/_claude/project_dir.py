"""The project folder in a command hook's shell code: passed as a variable, never pasted in.

An exec-form hook (``"args"``) gets ``${CLAUDE_PROJECT_DIR}`` in its command and arguments
replaced by the project folder's path. Where an argument is code a shell runs
(``/bin/sh -c STRING``, ``bash -lc STRING``, ...), a pasted path would become code too: a folder
named ``proj$(touch x)`` runs ``touch x``. So in that string each reference the shell would
read (``${CLAUDE_PROJECT_DIR}`` anywhere, ``$CLAUDE_PROJECT_DIR`` outside single quotes)
becomes a quoted expansion of the ``CLAUDE_PROJECT_DIR`` variable every command hook gets::

    ${CLAUDE_PROJECT_DIR}/x.sh      ->  "${CLAUDE_PROJECT_DIR}"/x.sh
    "${CLAUDE_PROJECT_DIR}/x.sh"    ->  "${CLAUDE_PROJECT_DIR}/x.sh"
    '${CLAUDE_PROJECT_DIR}/x.sh'    ->  ''"${CLAUDE_PROJECT_DIR}"'/x.sh'

The shell reads the path as data, whatever it holds (a quoted ``shlex.quote`` of it would not
do: inside double quotes ``'…'`` does not stop ``$(…)``). Telling the quoting apart only keeps
the path one word; if it is misread (a quote in a here-document, say), the path may be split
at spaces, but it is still never read as code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import PurePosixPath
from typing import Final, Literal

#: Shells whose ``-c`` runs the next argument as code.
SHELLS: Final = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"})
#: A reference to the project folder, as the shell would expand it.
_REFERENCE: Final = re.compile(r"\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])")
#: Shell options that take the next argument as their value.
_VALUE_OPTIONS: Final = frozenset({"--rcfile", "--init-file"})
#: Where a ``#`` starts a comment: at the start of a word.
_WORD_BREAK: Final = frozenset(" \t\n;&|()<>")

Quoting = Literal["unquoted", "double", "single", "ansi"]  # ansi: bash's $'...'

#: What a reference becomes, by how it is quoted where it stands.
_EXPANDED: Final[dict[Quoting, str]] = {
    "unquoted": '"${CLAUDE_PROJECT_DIR}"',
    "double": "${CLAUDE_PROJECT_DIR}",
    "single": "'\"${CLAUDE_PROJECT_DIR}\"'",
    "ansi": "'\"${CLAUDE_PROJECT_DIR}\"$'",
}


def shell_code_index(command: str, args: Sequence[str]) -> int | None:
    """Where in ``args`` the string is that ``command`` runs as shell code, or None.

    ``command`` must be a shell (``/bin/sh``, ``bash``, ...) given ``-c`` in an option cluster
    (``-c``, ``-lc``, ``-ec``, ...); the code is the first argument after the options."""
    if PurePosixPath(command).name not in SHELLS:
        return None
    runs_code, at = False, 0
    while at < len(args):
        arg = args[at]
        if arg == "--":
            at += 1
            break
        if len(arg) < 2 or arg[0] not in "-+":
            break
        if arg.startswith("--"):
            at += 2 if arg in _VALUE_OPTIONS else 1
            continue
        runs_code = runs_code or (arg[0] == "-" and "c" in arg)
        at += 2 if arg[-1] in "oO" else 1  # -o pipefail, -eo pipefail, bash's -O shopt
    return at if runs_code and at < len(args) else None


def references(code: str) -> Iterator[tuple[re.Match[str], Quoting]]:
    """Each reference to the project folder in shell ``code``, and how it is quoted there.
    Comments are skipped; ``$(...)`` and here-documents are read as plain text."""
    quoting: Quoting = "unquoted"
    at = 0
    while at < len(code):
        char = code[at]
        found = _REFERENCE.match(code, at) if char == "$" else None
        if found:
            yield found, quoting
            at = found.end()
        elif char == "\\" and quoting != "single":
            at += 2  # the next character is escaped
        elif quoting == "unquoted" and code.startswith("$'", at):
            quoting, at = "ansi", at + 2
        elif quoting == "unquoted" and char == "#" and (at == 0 or code[at - 1] in _WORD_BREAK):
            end = code.find("\n", at)
            at = len(code) if end < 0 else end
        else:
            quoting = _after(quoting, char)
            at += 1


def _after(quoting: Quoting, char: str) -> Quoting:
    """The quoting after an unescaped ``char``."""
    if quoting == "unquoted":
        return "single" if char == "'" else "double" if char == '"' else quoting
    closing = '"' if quoting == "double" else "'"
    return "unquoted" if char == closing else quoting


def guarded(code: str) -> str:
    """``code`` with each reference the shell would read (``${CLAUDE_PROJECT_DIR}`` anywhere,
    as hooks have it replaced; ``$CLAUDE_PROJECT_DIR`` outside single quotes) made a quoted
    expansion of the ``CLAUDE_PROJECT_DIR`` variable."""
    parts, done = [], 0
    for found, quoting in references(code):
        if quoting in ("single", "ansi") and not found.group().startswith("${"):
            continue  # literal text to the shell, and never replaced
        parts += [code[done : found.start()], _EXPANDED[quoting]]
        done = found.end()
    return "".join(parts) + code[done:]

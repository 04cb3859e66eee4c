"""Where a shell, ``source`` or an interpreter reads its code when no code string gives it.

``code_source(name, args)``: ``"stdin"`` (``bash -s``, ``python3 -``, ``source /dev/stdin``),
``"unknown"`` (a script only run time knows), or None (not such a program, or the code is in
its arguments: ``bash -c``, ``python3 -c``, a script file).
"""

from __future__ import annotations

import re
from typing import Literal

from hookline.permissions.bash._runners import SHELLS
from hookline.permissions.bash._words import Word

__all__ = ["code_source"]

_INTERPRETER = re.compile(
    r"(python|pypy|perl|ruby|node|nodejs|php|lua|luajit|tclsh|wish|Rscript|osascript|deno|bun"
    r"|jshell|irb|awk|gawk|mawk|nawk)[\d.]*"
)
#: Options that give an interpreter its code inline (or name a module), so stdin is data.
_INLINE_CODE = frozenset({"-c", "-e", "-m", "-E", "--eval", "-r", "-p", "--print", "-x"})
_STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def code_source(name: str, args: tuple[Word, ...]) -> Literal["stdin", "unknown"] | None:
    """Where a shell, ``source`` or an interpreter reads its code when no string gives it:
    "stdin", "unknown" (a file only run time knows), or None (not such a program, or the code
    is in its arguments)."""
    if name in ("source", "."):
        target = args[0].value if args else None
        return "stdin" if target in _STDIN_FILES else ("unknown" if target is None else None)
    if name not in SHELLS and not _INTERPRETER.fullmatch(name):
        return None
    values = [a.value for a in args]
    if any(v in _INLINE_CODE for v in values) or (name in SHELLS and _has_flag(values, "c")):
        return None
    positional = next((v for v in values if v is None or not v.startswith("-") or v == "-"), "")
    if positional is None:
        return "unknown"
    if name in SHELLS and _has_flag(values, "s"):
        return "stdin"
    return "stdin" if positional in ("", *_STDIN_FILES) else None


def _has_flag(values: list[str | None], letter: str) -> bool:
    return any(
        v is not None and re.fullmatch(rf"-[a-zA-Z]*{letter}[a-zA-Z]*", v) is not None
        for v in values
    )

"""A small formatter check for an edited file: what is wrong, in words the model can act on.

Standard library only, and it never changes the file: Python files are compiled (not run) to
find syntax errors; every text file is checked for trailing whitespace and a final newline,
Python files also for tab indentation. Swap in ``ruff format --check`` if the project uses it.
"""

from __future__ import annotations

import warnings
from pathlib import Path

#: Files larger than this are not checked.
MAX_BYTES = 1_000_000
#: Line numbers shown per kind of problem.
MAX_LINES = 5


def complaints(path: str) -> str | None:
    """What the check finds wrong with the file at ``path``, as text for the model; None if
    nothing (or the file cannot be read as text)."""
    file = Path(path)
    try:
        if file.stat().st_size > MAX_BYTES:
            return None
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    problems = _problems(text, python=file.suffix == ".py", name=path)
    if not problems:
        return None
    listed = "\n".join(f"- {problem}" for problem in problems)
    return (
        f"coding-guard format check of {path}:\n{listed}\n"
        "The edit was kept; fix these with another Edit."
    )


def _problems(text: str, *, python: bool, name: str) -> list[str]:
    lines = text.split("\n")
    found = []
    if python and (error := _syntax_error(text, name)):
        found.append(error)
    if trailing := [n for n, line in enumerate(lines, 1) if line != line.rstrip()]:
        found.append(f"trailing whitespace on {_lines(trailing)}")
    if python and (tabs := [n for n, line in enumerate(lines, 1) if line.startswith("\t")]):
        found.append(f"tab indentation on {_lines(tabs)} (indent with 4 spaces)")
    if text and not text.endswith("\n"):
        found.append("no newline at the end of the file")
    return found


def _syntax_error(text: str, name: str) -> str | None:
    try:
        with warnings.catch_warnings():  # a SyntaxWarning is not what this check reports
            warnings.simplefilter("ignore")
            compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"line {exc.lineno}: syntax error: {exc.msg}"
    except ValueError as exc:  # null bytes
        return f"cannot be compiled: {exc}"
    return None


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:MAX_LINES]))
    more = f" and {len(numbers) - MAX_LINES} more" if len(numbers) > MAX_LINES else ""
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{more}"

"""``@path`` imports in instruction files: which mentions are imports, and where they lead.

As in Claude Code, a CLAUDE.md (or any instruction file) may pull another file in::

    See @README.md for the overview and @~/notes/habits.txt for my habits.

An import is ``@`` at the start of a line or after white space, then a path up to the next white
space (``\\ `` keeps a space in it; a ``#fragment`` is dropped). A relative path is read from the
importing file's folder, ``~/`` from the home folder; an absolute path as it is. A mention in an
inline code span or a code block (fenced, or indented four spaces) is text, not an import, and
so is an e-mail address. Pure functions: ``hookline._agent.instructions`` reads the files.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

#: ``@path`` at the start of a line or after white space.
_MENTION: Final = re.compile(r"(?:^|(?<=\s))@((?:[^\s\\]|\\ )+)", re.MULTILINE)
#: A fence opening or closing a fenced code block (up to three spaces in).
_FENCE: Final = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: An inline code span: a run of backticks, then anything up to the same run (not across a
#: blank line, where a paragraph ends).
_CODE_SPAN: Final = re.compile(r"(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
#: Not the start of a path: another ``@``, or punctuation a path does not begin with.
_NOT_A_PATH: Final = re.compile(r"^[@#%^&*()\[\]{}<>=+!?,;:'\"|]")


def mentions(text: str) -> list[str]:
    """The paths ``text`` imports, in order, as written (``~`` and relative paths unresolved)."""
    prose = _CODE_SPAN.sub(" ", "\n".join(_outside_code_blocks(text.split("\n"))))
    found = []
    for raw in _MENTION.findall(prose):
        path = raw.replace("\\ ", " ").split("#", 1)[0]
        if path and not _NOT_A_PATH.match(path):
            found.append(path)
    return found


def target(path: str, folder: Path, home: Path) -> Path:
    """Where an import of ``path`` in a file in ``folder`` leads (not resolved: a symbolic link
    is followed when the file is read)."""
    if path == "~" or path.startswith("~/"):
        return home / path[2:]
    return folder / path


def _outside_code_blocks(lines: list[str]) -> list[str]:
    """``lines`` with those of fenced code blocks, and of indented ones (four spaces or a tab
    in, after a blank line), blanked."""
    kept: list[str] = []
    fence: str | None = None  # the fence of the open fenced block
    indented, after_blank = False, True  # in an indented block; after a blank line
    for line in lines:
        blank = not line.strip()
        if fence is not None:
            fence = None if _closes(line, fence) else fence
            line = ""
        elif opened := _FENCE.match(line):
            fence, line = opened.group(1), ""
        elif line.startswith(("    ", "\t")) and not blank and (after_blank or indented):
            indented, line = True, ""
        elif not blank:
            indented = False
        kept.append(line)
        after_blank = blank
    return kept


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a block opened by ``fence``: as long a run of the same
    character, up to three spaces in, nothing after it."""
    closing = _FENCE.match(line)
    run = closing.group(1) if closing else ""
    return run[:1] == fence[0] and len(run) >= len(fence) and not line.strip().lstrip(run[0])

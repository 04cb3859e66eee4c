"""Claude Code's file tools and the input field that holds each one's path: the one table.

Everything that reads a file tool's path takes it from here: the permission rules (a ``Read``
rule covers every reader, an ``Edit`` rule every writer), hookline's private state and the
protected set, the devices check, session approvals, the built-in tools' path normalisation,
the input check that refuses a denied path before PreToolUse, and the instruction files a
touched path loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class FileTool:
    """One file tool: its name, the input field with its path, and what it does there."""

    name: str
    path_field: str
    writes: bool
    #: Whether its own input check refuses a path a deny rule covers before PreToolUse fires
    #: (Claude Code's Read, Edit, Write and NotebookEdit do); other tools meet deny rules after.
    input_checked: bool


FILE_TOOLS: Final = (
    FileTool("Read", "file_path", writes=False, input_checked=True),
    FileTool("Glob", "path", writes=False, input_checked=False),
    FileTool("Grep", "path", writes=False, input_checked=False),
    FileTool("Edit", "file_path", writes=True, input_checked=True),
    FileTool("Write", "file_path", writes=True, input_checked=True),
    FileTool("NotebookEdit", "notebook_path", writes=True, input_checked=True),
)
#: The reading tools and the input field holding their path.
READERS: Final = {t.name: t.path_field for t in FILE_TOOLS if not t.writes}
#: The file-writing tools and the input field holding their path.
WRITERS: Final = {t.name: t.path_field for t in FILE_TOOLS if t.writes}
#: Every file tool and the input field holding its path.
PATH_FIELDS: Final = {**READERS, **WRITERS}
#: The input fields that name a path, in the table's order.
PATH_KEYS: Final = tuple(dict.fromkeys(PATH_FIELDS.values()))
#: For each path rule, the tools it covers and their path fields: ``Read(...)`` covers every
#: reader, ``Edit(...)`` every writer.
RULE_FIELDS: Final = {"Read": READERS, "Edit": WRITERS}
#: Tools whose own input check refuses a path a deny rule covers, before PreToolUse fires.
INPUT_CHECKED: Final = frozenset(t.name for t in FILE_TOOLS if t.input_checked)

"""One tool call as the permission layer is asked about it: one value, made once per call."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class CallContext:
    """What the permission layer is asked about one tool call: the tool, its input, whether
    the tool only reads, and where it runs. The tool pipeline makes one per call, from the
    input as its hooks left it; ``evaluate`` makes one from its keywords."""

    tool_name: str
    tool_input: Mapping[str, Any]
    #: Where relative paths start (the shell's folder, after a ``cd``).
    cwd: str
    read_only: bool = False
    #: Anchors ``./`` rules, and is the workspace when the policy names none (``cwd`` if None).
    project_dir: str | None = None
    #: The home folder ``~`` names (the user's, if None).
    home: str | None = None

    def with_input(self, tool_input: Mapping[str, Any]) -> CallContext:
        """The same call with another input (a hook's rewrite, an approver's edit)."""
        return replace(self, tool_input=tool_input)

"""hookline's built-in tools, named and shaped like Claude Code's."""

from __future__ import annotations

from hookline._tools.base import Tool
from hookline._tools.builtin.bash import Bash
from hookline._tools.builtin.files import Edit, Read, Write
from hookline._tools.builtin.search import Glob, Grep
from hookline._tools.builtin.skill import Skill

__all__ = ["Bash", "Edit", "Glob", "Grep", "Read", "Skill", "Write", "builtin_tools"]


def builtin_tools() -> list[Tool]:
    """A fresh instance of each built-in tool (``Skill`` joins them where the project has
    skills: ``hookline._agent.instructions``)."""
    return [Bash(), Read(), Write(), Edit(), Glob(), Grep()]

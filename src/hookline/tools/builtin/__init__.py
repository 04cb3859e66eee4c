"""hookline's built-in tools, named and shaped like Claude Code's."""

from __future__ import annotations

from hookline.tools.base import Tool
from hookline.tools.builtin.bash import Bash
from hookline.tools.builtin.files import Edit, Read, Write
from hookline.tools.builtin.search import Glob, Grep
from hookline.tools.builtin.skill import Skill

__all__ = ["Bash", "Edit", "Glob", "Grep", "Read", "Skill", "Write", "builtin_tools"]


def builtin_tools() -> list[Tool]:
    """A fresh instance of each built-in tool (``Skill`` joins them where the project has
    skills: ``hookline.agent.instructions``)."""
    return [Bash(), Read(), Write(), Edit(), Glob(), Grep()]

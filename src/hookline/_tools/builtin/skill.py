"""Skill: the model loads one of the project's skills by name, as with Claude Code's tool.

The skills (folders with a ``SKILL.md``) are found and read by ``hookline._agent.instructions``,
which lists their names and descriptions to the model and gives this tool their bodies: the
model reads a skill's full instructions only when it asks for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from hookline._errors import ToolError
from hookline._tools.base import ToolContext
from hookline._tools.builtin._common import BuiltinTool, ToolInput


@dataclass(frozen=True, slots=True)
class SkillEntry:
    """One skill: its name and description (listed to the model) and its instructions."""

    name: str
    description: str
    body: str
    path: str


class SkillInput(ToolInput):
    skill: str = Field(min_length=1, description="The name of the skill, as listed.")


class Skill(BuiltinTool[SkillInput]):
    name = "Skill"
    description = (
        "Load a skill: its full instructions for a kind of task. Give the skill's name, as "
        "listed in the system prompt; follow the instructions it returns."
    )
    input_model = SkillInput
    read_only = True
    suspends = False  # the bodies were read at session start: nothing to wait for
    timeout = None

    def __init__(self, skills: Sequence[SkillEntry]) -> None:
        self.skills = {entry.name: entry for entry in skills}

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        name = self.parse(tool_input).skill
        entry = self.skills.get(name)
        if entry is None:
            known = ", ".join(sorted(self.skills)) or "none"
            raise ToolError(f"Unknown skill: {name}. Available skills: {known}")
        return f"Skill {entry.name} ({entry.path}):\n\n{entry.body}"

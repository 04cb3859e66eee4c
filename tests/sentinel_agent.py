"""An agent whose model calls one tool, ``touch``, which writes a sentinel file: a test of a
gate reads whether the tool ran from whether the file exists, never from a reason's wording."""

from __future__ import annotations

from pathlib import Path

import hookline
from hookline import Agent, ScriptedModel


def touch_agent(project: Path) -> tuple[Agent, Path]:
    """The agent (its model calls ``touch`` once, then says done) and the sentinel's path
    (removed first, so a file there means this run's tool ran)."""
    sentinel = project / "SENTINEL"
    sentinel.unlink(missing_ok=True)

    @hookline.tool
    def touch(note: str) -> str:
        """Write the sentinel file."""
        sentinel.write_text(note)
        return "touched"

    call = {"id": "toolu_1", "name": "touch", "input": {"note": "ran"}}
    model = ScriptedModel([{"tool_calls": [call]}, {"text": "done"}])
    return Agent(model, tools=[touch], cwd=project), sentinel

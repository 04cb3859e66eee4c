"""A session's steps, one line each, as the inbox lists them above a call that waits.

A paused session's steps are its last messages (``hookline._inbox.pending``); a live ask's are
the last hook events ``hookline serve`` judged for its host session (``hookline._serve.recent``).
Both say a tool call in the same words (``call_words``: its name, then its input as compact
JSON, cut) and write every value through ``display.shown`` (escapes, bidi and zero-width
characters written out), so a step is one inert line wherever it is shown.
"""

from __future__ import annotations

from typing import Any, Final

from hookline._support.display import compact, shown

#: How many steps a call that waits shows.
STEPS: Final = 6


def call_words(name: object, tool_input: Any) -> str:
    """A tool call on one line: its name and its input as compact JSON, ``shown``."""
    return f"{shown(name)} {compact(tool_input)}"


def served_step(
    event: str | None,
    tool: str | None,
    tool_input: Any,
    outcome: str | None,
    origin: str | None = None,
) -> str:
    """A hook event the server judged: the event, its call when it names a tool, and what came
    of it with where that came from: ``PreToolUse Bash {"command":"ls"} → allow (rule)``."""
    said = shown(event or "?")
    if tool:
        said += " " + call_words(tool, tool_input if tool_input is not None else {})
    if outcome:
        said += f" → {shown(outcome)}" + (f" ({shown(origin)})" if origin else "")
    return said

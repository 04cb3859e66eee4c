"""A scripted model: each call answers with the next turn of a script; then a final text.

The file format is stable and is what ``hookline run --model scripted:FILE`` reads::

    {"turns": [{"tool_calls": [{"id": "t1", "name": "Bash", "input": {"command": "ls"}}]},
               {"text": "done"}],
     "final_text": "optional: what to answer once the turns run out"}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hookline._agent.messages import Message
from hookline._errors import ConfigError
from hookline._tools.base import ToolCall

DEFAULT_FINAL_TEXT = "(the script has no more turns)"


class ScriptCall(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built when a script is read

    id: str | None = None
    name: str = Field(min_length=1)
    input: dict[str, Any] = Field(default_factory=dict)


class ScriptTurn(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built when a script is read

    text: str = ""
    tool_calls: list[ScriptCall] = Field(default_factory=list)


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built when a script is read

    turns: list[ScriptTurn]
    final_text: str = DEFAULT_FINAL_TEXT


class _Turn(NamedTuple):
    """A turn as a model keeps it once read: its text and its calls (id, name, input)."""

    text: str
    calls: tuple[tuple[str | None, str, dict[str, Any]], ...]


class ScriptedModel:
    """Answers from a script, one turn per call; ``shown(i)`` is what call ``i`` was shown.

    The turn is the number of model answers the conversation already has, so a fresh model
    given a resumed session picks up where the paused one stopped. The script is checked as a
    whole when the model is made, then kept as plain tuples: a thousand sessions at once each
    hold one.
    """

    name = "scripted"

    def __init__(self, script: Script | Sequence[ScriptTurn | dict[str, Any]]) -> None:
        if not isinstance(script, Script):
            script = _parse({"turns": list(script)}, source="script")
        self.turns = tuple(
            _Turn(t.text, tuple((c.id, c.name, c.input) for c in t.tool_calls))
            for t in script.turns
        )
        self.final_text = script.final_text
        self.calls = 0
        #: How many messages each call was shown (the conversation only ever grows).
        self.requests: list[int] = []
        self._conversation: Sequence[Message] = ()
        #: The turn this instance started at: the answers the conversation already holds.
        self._offset: int | None = None

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedModel:
        """Load a script file; a malformed one is a ConfigError naming the file and key."""
        return cls(load_script(path))

    def shown(self, call: int) -> list[Message]:
        """The messages model call ``call`` (0-based) was shown."""
        return list(self._conversation[: self.requests[call]])

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        self.requests.append(len(messages))
        self._conversation = messages
        if self._offset is None:  # a fresh model for a conversation already under way (resume)
            self._offset = sum(1 for m in messages if m.role == "assistant")
        index = self._offset + self.calls
        self.calls += 1
        if index >= len(self.turns):
            return Message.assistant(self.final_text)
        turn = self.turns[index]
        calls = tuple(
            ToolCall(id or f"toolu_{index + 1:02d}_{n}", name, dict(input))
            for n, (id, name, input) in enumerate(turn.calls, start=1)
        )
        return Message.assistant(turn.text, calls)


def load_script(path: str | Path) -> Script:
    """A script file, checked; a malformed one is a ConfigError naming the file and key."""
    file = str(path)
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("no such file", file=file, fix="check the path after scripted:") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read it: {exc}", file=file) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            file=file,
            fix='write {"turns": [{"text": "done"}]}',
        ) from None
    return _parse(data, source=file)


def _parse(data: Any, *, source: str) -> Script:
    try:
        return Script.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
        raise ConfigError(
            f"{err['msg']}"
            + (f" ({len(exc.errors())} problems in all)" if len(exc.errors()) > 1 else ""),
            file=source,
            key=key or "(top level)",
            fix='each turn is {"text": ...} and/or {"tool_calls": [{"name": ..., "input": {...}}]}',
        ) from None

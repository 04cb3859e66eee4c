"""A reply put together as it arrives: text in pieces, tool calls whose input comes as JSON
fragments, each under the position the provider gave it; and readers for the JSON the SDKs hand
over as it came (``obj``, ``objs``, ``string``, ``count``: a field of the wrong type reads as
missing, so a server's odd answer is judged by what it lacks, never by a crash).

A tool input that is not a JSON object (broken JSON, a stream cut off inside it, a list) does not
fail the call: it becomes the pipeline's stand-in input (``hookline._tools.limits.REFUSED_KEY``),
so the call is refused before any hook or tool sees it and the model reads why, as it reads an
unknown tool's refusal.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from hookline._agent.messages import Block, Message, TextBlock, Usage
from hookline._agent.model import TextSink
from hookline._tools.base import ToolCall
from hookline._tools.limits import REFUSED_KEY

#: Where a block sits in the message; blocks are put in order by it.
Key = tuple[int, int]
#: JSON's names for what ``json.loads`` gives.
_JSON_TYPES: Final = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


@dataclass(slots=True)
class PartialCall:
    """A tool call so far: its id and name once given, its input's JSON in fragments."""

    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)

    def finished(self, fallback_id: str) -> ToolCall:
        return ToolCall(self.id or fallback_id, self.name, tool_input("".join(self.parts)))


class Reply:
    """The blocks of one assistant message, in the provider's order, and the text seen so far.

    ``on_text`` gets each text piece as it is added; a text block after an earlier one is
    preceded by a new line, so the pieces joined are ``Message.text``.
    """

    def __init__(self, on_text: TextSink | None) -> None:
        self.on_text = on_text
        self.blocks: dict[Key, list[str] | PartialCall] = {}
        self.usage: Usage | None = None

    def text(self, key: Key, piece: str) -> None:
        if not piece:
            return
        parts = self.blocks.get(key)
        if not isinstance(parts, list):
            started = any(isinstance(b, list) for b in self.blocks.values())
            parts = self.blocks[key] = []
            if started and self.on_text is not None:
                self.on_text("\n")
        parts.append(piece)
        if self.on_text is not None:
            self.on_text(piece)

    def call(self, key: Key) -> PartialCall:
        call = self.blocks.get(key)
        if not isinstance(call, PartialCall):
            call = self.blocks[key] = PartialCall()
        return call

    def message(self) -> Message:
        content: list[Block] = []
        for block in (self.blocks[k] for k in sorted(self.blocks)):
            if isinstance(block, PartialCall):
                content.append(block.finished(fresh_id()))
            elif block:
                content.append(TextBlock("".join(block)))
        return Message("assistant", tuple(content), usage=self.usage)


def fresh_id() -> str:
    """An id for a tool call the server sent without one: unique, since results, the audit
    and a paused session find a call by its id."""
    return f"toolu_hookline_{uuid.uuid4().hex[:24]}"


def tool_input(raw: object) -> dict[str, Any]:
    """A tool call's arguments (JSON text, or an object some servers send as it is) as the
    input object; the refusal stand-in when they are not one."""
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "" or (isinstance(raw, str) and not raw.strip()):
        return {}  # no arguments at all: a tool without parameters
    if not isinstance(raw, str):
        return _refused(f"is {_JSON_TYPES.get(type(raw), 'something else')}, not a JSON object")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _refused(f"is not valid JSON ({exc.msg} at character {exc.pos})")
    except RecursionError:
        return _refused("is nested too deep to read")
    if not isinstance(value, dict):
        return _refused(f"is {_JSON_TYPES[type(value)]}, not a JSON object")
    return value


def _refused(why: str) -> dict[str, Any]:
    return {REFUSED_KEY: f"the tool input {why}; send the input as one JSON object"}


def obj(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a field of the wrong type reads as
    missing."""
    return value if isinstance(value, dict) else {}


def objs(value: object) -> list[dict[str, Any]]:
    """The objects in ``value`` if it is a JSON array, else none."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def string(value: object) -> str:
    """``value`` if it is a string, else an empty one."""
    return value if isinstance(value, str) else ""


def count(value: object) -> int:
    """``value`` if it is a whole number (a token count), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0

"""What PreModelRequest hooks make of one request: the messages it sends instead (redaction)
and the context added to it. Neither touches the transcript: the next request starts again from
the conversation as it is, and its hooks redact it again.

A redaction is ``Decision.rewrite({"messages": [...]})`` in the shape the event shows. Redaction
must never silently fail, so what cannot be applied soundly ends the run before the call
(``Unsendable``): a rewrite that is not valid messages, or two hooks that rewrite differently
(each saw the original, so neither result holds the other's redaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from hookline.agent.messages import Block, Message, TextBlock, ToolResultBlock
from hookline.agent.state import SavedMessage
from hookline.hooks.engine import HookRun
from hookline.tools.base import ToolCall


class Unsendable(Exception):
    """The hooks' rewrites cannot be applied; the message says why, for the stop detail."""


def redacted(messages: Sequence[Message], runs: Sequence[HookRun]) -> Sequence[Message]:
    """``messages`` as the hooks' rewrites say to send them (unchanged when none rewrote)."""
    rewrites = [
        r.answer.updated_input
        for r in runs
        if r.kind != "observer" and r.answer.updated_input is not None
    ]
    if not rewrites:
        return messages
    if any(r != rewrites[0] for r in rewrites[1:]):
        raise Unsendable("PreModelRequest hooks rewrote the messages differently; not sent")
    try:
        saved = _adapter().validate_python(rewrites[0].get("messages"))
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in error["loc"])
        raise Unsendable(
            f"a PreModelRequest hook rewrote the messages invalidly ({where}: {error['msg']}); "
            'answer Decision.rewrite({"messages": [...]}) in the shape the event shows'
        ) from None
    return [_message(m) for m in saved]


def with_context(messages: Sequence[Message], notes: Sequence[str]) -> Sequence[Message]:
    """``messages`` with ``notes`` after the last user message's content (a new user message
    if the conversation ends with the model's)."""
    if not notes:
        return messages
    added = tuple(TextBlock(n) for n in notes)
    if messages and messages[-1].role == "user":
        last = messages[-1]
        return [*messages[:-1], Message("user", last.content + added, last.usage)]
    return [*messages, Message("user", added)]


@cache
def _adapter() -> TypeAdapter[list[SavedMessage]]:
    return TypeAdapter(list[SavedMessage])


def _message(data: SavedMessage) -> Message:
    return Message(data["role"], tuple(_block(b) for b in data["content"]))


def _block(data: Any) -> Block:
    if data["type"] == "text":
        return TextBlock(data["text"])
    if data["type"] == "tool_use":
        return ToolCall(data["id"], data["name"], dict(data["input"]))
    return ToolResultBlock(data["tool_use_id"], data["content"], data["is_error"])

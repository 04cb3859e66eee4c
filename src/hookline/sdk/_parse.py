"""One line of a Claude Code ``stream-json`` stream (a dict) -> the SDK message it stands for.

``system``, ``assistant``, ``user``, ``result`` and ``stream_event`` lines become
``SystemMessage``, ``AssistantMessage``, ``UserMessage``, ``ResultMessage`` and
``StreamEvent``, as ``claude_agent_sdk`` reads them. Any other ``type`` (hookline's own
``event``, ``hook_run`` and ``tool_call`` lines, a newer Claude Code's) is None, so a reader
skips what it does not know. A line of a known type that lacks a key the type needs is a
``MessageParseError`` naming the key; so is a line with no ``type`` at all.

Inside a message, content blocks of a type the reader does not know are left out, again so
that a newer stream still reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from hookline.sdk._errors import MessageParseError
from hookline.sdk._types import (
    AssistantMessage,
    ContentBlock,
    DeferredToolUse,
    HookEventMessage,
    Message,
    MessageOrigin,
    ResultMessage,
    ServerToolResultBlock,
    ServerToolUseBlock,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

Line = dict[str, Any]


def parse_message(data: Mapping[str, Any]) -> Message | None:
    """The SDK message ``data`` is; None for a line of a type the SDK does not read."""
    if not isinstance(data, Mapping):
        raise MessageParseError(f"a message is a JSON object, not {type(data).__name__}")
    line = dict(data)
    kind = line.get("type")
    if not kind:
        raise MessageParseError("the message has no 'type' key", line)
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        return None
    try:
        return reader(line)
    except KeyError as missing:
        raise MessageParseError(f"the {kind} message has no key {missing}", line) from None
    except (TypeError, AttributeError) as wrong:  # a key holds the wrong kind of value
        raise MessageParseError(f"the {kind} message is malformed: {wrong}", line) from None


def _user(line: Line) -> UserMessage:
    content = line["message"]["content"]
    return UserMessage(
        content=_blocks(content, line, _USER_BLOCKS) if isinstance(content, list) else content,
        uuid=line.get("uuid"),
        parent_tool_use_id=line.get("parent_tool_use_id"),
        tool_use_result=line.get("tool_use_result"),
        origin=_origin(line),
    )


def _assistant(line: Line) -> AssistantMessage:
    body = line["message"]
    content = body["content"]
    if not isinstance(content, list):
        raise MessageParseError(
            f"an assistant message's content is a list, not {type(content).__name__}", line
        )
    return AssistantMessage(
        content=_blocks(content, line, _ASSISTANT_BLOCKS),
        model=body["model"],
        parent_tool_use_id=line.get("parent_tool_use_id"),
        error=line.get("error"),
        usage=body.get("usage"),
        message_id=body.get("id"),
        stop_reason=body.get("stop_reason"),
        session_id=line.get("session_id"),
        uuid=line.get("uuid"),
        user_message_uuid=line.get("user_message_uuid"),
        user_message_uuids=line.get("user_message_uuids"),
    )


def _system(line: Line) -> SystemMessage:
    subtype = line["subtype"]
    if subtype in ("hook_started", "hook_response"):
        return HookEventMessage(
            subtype=subtype,
            data=line,
            hook_event_name=line.get("hook_event", ""),
            session_id=line.get("session_id"),
            uuid=line.get("uuid"),
        )
    return SystemMessage(subtype=subtype, data=line)


def _result(line: Line) -> ResultMessage:
    deferred = line.get("deferred_tool_use")
    return ResultMessage(
        subtype=line["subtype"],
        duration_ms=line["duration_ms"],
        duration_api_ms=line["duration_api_ms"],
        is_error=line["is_error"],
        num_turns=line["num_turns"],
        session_id=line["session_id"],
        stop_reason=line.get("stop_reason"),
        total_cost_usd=line.get("total_cost_usd"),
        usage=line.get("usage"),
        result=line.get("result"),
        structured_output=line.get("structured_output"),
        model_usage=line.get("modelUsage"),
        permission_denials=line.get("permission_denials"),
        deferred_tool_use=(
            DeferredToolUse(id=deferred["id"], name=deferred["name"], input=deferred["input"])
            if deferred
            else None
        ),
        errors=line.get("errors"),
        api_error_status=line.get("api_error_status"),
        uuid=line.get("uuid"),
        terminal_reason=line.get("terminal_reason"),
        origin=_origin(line),
        user_message_uuid=line.get("user_message_uuid"),
        user_message_uuids=line.get("user_message_uuids"),
    )


def _stream_event(line: Line) -> StreamEvent:
    return StreamEvent(
        uuid=line["uuid"],
        session_id=line["session_id"],
        event=line["event"],
        parent_tool_use_id=line.get("parent_tool_use_id"),
        user_message_uuid=line.get("user_message_uuid"),
        user_message_uuids=line.get("user_message_uuids"),
    )


_READERS: Final[dict[str, Callable[[Line], Message]]] = {
    "user": _user,
    "assistant": _assistant,
    "system": _system,
    "result": _result,
    "stream_event": _stream_event,
}

# -- content blocks --------------------------------------------------------------------------------

_BLOCKS: Final[dict[str, Callable[[Line], ContentBlock]]] = {
    "text": lambda b: TextBlock(text=b["text"]),
    "thinking": lambda b: ThinkingBlock(thinking=b["thinking"], signature=b["signature"]),
    "tool_use": lambda b: ToolUseBlock(id=b["id"], name=b["name"], input=b["input"]),
    "tool_result": lambda b: ToolResultBlock(
        tool_use_id=b["tool_use_id"], content=b.get("content"), is_error=b.get("is_error")
    ),
    "server_tool_use": lambda b: ServerToolUseBlock(id=b["id"], name=b["name"], input=b["input"]),
    "advisor_tool_result": lambda b: ServerToolResultBlock(
        tool_use_id=b["tool_use_id"], content=b["content"]
    ),
}
#: The block types each role's messages are read for (the SDK reads no thinking from a user).
_USER_BLOCKS: Final = frozenset({"text", "tool_use", "tool_result"})
_ASSISTANT_BLOCKS: Final = frozenset(_BLOCKS)


def _blocks(raw: list[Any], line: Line, kinds: frozenset[str]) -> list[ContentBlock]:
    blocks: list[ContentBlock] = []
    for block in raw:
        if not isinstance(block, dict):
            raise MessageParseError(
                f"a content block is a JSON object, not {type(block).__name__}", line
            )
        if block["type"] in kinds:
            blocks.append(_BLOCKS[block["type"]](block))
    return blocks


def _origin(line: Line) -> MessageOrigin | None:
    """``origin`` as sent, when it is an object with a string ``kind``; otherwise None."""
    origin = line.get("origin")
    if isinstance(origin, dict) and isinstance(origin.get("kind"), str):
        return origin  # type: ignore[return-value]  # passed through: may hold newer keys
    return None

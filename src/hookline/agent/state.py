"""A paused session as data: everything a resume in another process needs, schema-versioned.

A run pauses when a call is deferred (a hook's defer, or an ask nobody can answer now). What
is saved: the session (id, folders, scope), the conversation, the turn in progress (its prompt,
steps, the calls already done) and the batch that paused, call by call: the result of each call
that finished (it never runs again) or nothing for each call still waiting for an answer.
Tool definitions, hooks and the model are not data: a resume rebuilds them.

Versions: 2 (this one) saves, in the CLI's launch, a fingerprint of every settings layer and
hook file the run was built with, so a resume can refuse settings changed under a paused
session. 1 had no fingerprints; it is read the same way, and its settings count as changed
(``hookline sessions resume --reload-settings`` resumes it). Any other version is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hookline.agent.messages import Block, Message, TextBlock, ToolResultBlock
from hookline.agent.result import StopReason
from hookline.errors import ConfigError
from hookline.tools.base import ToolCall, ToolResult

#: The version of this layout, written by every save.
STATE_VERSION = 2
#: The versions a resume reads; it refuses any other: it cannot know what it means.
READABLE_VERSIONS = (1, 2)


@dataclass
class Turn:
    """One prompt's work so far: what the loop carries, and what a pause saves."""

    prompt: str
    steps: int = 0
    stop_blocks: int = 0
    final_text: str = ""
    calls: list[ToolResult] = field(default_factory=list)
    stop_reason: StopReason = "end_turn"
    detail: str | None = None
    #: A paused batch, in the model's order: each call with its result, or None while it waits.
    batch: list[tuple[ToolCall, ToolResult | None]] = field(default_factory=list)

    @property
    def waiting(self) -> list[ToolCall]:
        return [call for call, result in self.batch if result is None]


def dump_state(session: dict[str, Any], messages: list[Message], turn: Turn) -> dict[str, Any]:
    """The JSON-ready state of a paused session."""
    return {
        "version": STATE_VERSION,
        "session": session,
        "messages": [m.to_dict() for m in messages],
        "turn": {
            "prompt": turn.prompt,
            "steps": turn.steps,
            "stop_blocks": turn.stop_blocks,
            "final_text": turn.final_text,
            "detail": turn.detail,
            "calls": [_result_to_dict(r) for r in turn.calls],
            "batch": [
                {"call": _call_to_dict(c), "result": _result_to_dict(r) if r else None}
                for c, r in turn.batch
            ],
        },
    }


def load_state(data: Any, *, where: str) -> tuple[dict[str, Any], list[Message], Turn]:
    """The parts of a saved state; a ConfigError naming ``where`` if it is not one we know."""
    if not isinstance(data, dict):
        raise ConfigError("the saved session state is not an object", file=where)
    version = data.get("version")
    if version not in READABLE_VERSIONS:
        readable = " and ".join(str(v) for v in READABLE_VERSIONS)
        raise ConfigError(
            f"the saved session state has schema version {version!r}; this hookline reads "
            f"versions {readable} only",
            file=where,
            key="version",
            fix="resume it with the hookline version that saved it",
        )
    try:
        turn = data["turn"]
        paused = Turn(
            prompt=turn["prompt"],
            steps=turn["steps"],
            stop_blocks=turn["stop_blocks"],
            final_text=turn["final_text"],
            detail=turn.get("detail"),
            calls=[_result_from_dict(r) for r in turn["calls"]],
            batch=[(_call_from_dict(b["call"]), _maybe_result(b["result"])) for b in turn["batch"]],
        )
        return data["session"], [_message_from_dict(m) for m in data["messages"]], paused
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"the saved session state is damaged ({type(exc).__name__}: {exc})",
            file=where,
            fix="it cannot be resumed; start a new session",
        ) from None


def _call_to_dict(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "input": call.input}


def _call_from_dict(data: dict[str, Any]) -> ToolCall:
    return ToolCall(str(data["id"]), str(data["name"]), dict(data["input"]))


def _result_to_dict(result: ToolResult) -> dict[str, Any]:
    return {
        "call": _call_to_dict(result.call),
        "status": result.status,
        "content": result.content,
        "input": result.input,
        "output": result.output,
        "reason": result.reason,
        "context": list(result.context),
        "stop_reason": result.stop_reason,
        "stopped": result.stopped,
        "duration_ms": result.duration_ms,
    }


def _result_from_dict(data: dict[str, Any]) -> ToolResult:
    return ToolResult(
        call=_call_from_dict(data["call"]),
        status=data["status"],
        content=data["content"],
        input=data["input"],
        output=data["output"],
        reason=data["reason"],
        context=tuple(data["context"]),
        stop_reason=data["stop_reason"],
        stopped=data["stopped"],
        duration_ms=data["duration_ms"],
    )


def _maybe_result(data: dict[str, Any] | None) -> ToolResult | None:
    return None if data is None else _result_from_dict(data)


def _message_from_dict(data: dict[str, Any]) -> Message:
    role = data["role"]
    if role not in ("user", "assistant"):
        raise ValueError(f"unknown role {role!r}")
    return Message(role, tuple(_block_from_dict(b) for b in data["content"]))


def _block_from_dict(data: dict[str, Any]) -> Block:
    kind = data["type"]
    if kind == "text":
        return TextBlock(data["text"])
    if kind == "tool_use":
        return _call_from_dict(data)
    if kind == "tool_result":
        return ToolResultBlock(data["tool_use_id"], data["content"], data["is_error"])
    raise ValueError(f"unknown content block {kind!r}")

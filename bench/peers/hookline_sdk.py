"""hookline's library loop with Claude Agent SDK-shaped callbacks: ``hooks={"PreToolUse":
[HookMatcher(matcher="noop", hooks=[...])], ...}``, each ``async def hook(input_data,
tool_use_id, context)`` answering a dict, as a ``--hooks`` file or an SDK program writes them."""

from __future__ import annotations

from typing import Any

import peerkit
from hookline_lib import agent
from peerkit import SHAPE, TOOL

from hookline import HookMatcher

ALLOW = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
DENY = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}


async def gate(input_data: dict[str, Any], tool_use_id: str | None, context: Any) -> dict[str, Any]:
    return ALLOW if peerkit.allowed(input_data["tool_input"].get("x", 0)) else DENY


async def observer(
    input_data: dict[str, Any], tool_use_id: str | None, context: Any
) -> dict[str, Any]:
    peerkit.observed(input_data["tool_response"])
    return {}


def matchers(hooks: int, *, tool: str = TOOL) -> dict[str, list[HookMatcher]]:
    """The gates and observers as SDK callbacks for ``tool`` (one function object each)."""
    gates, observers = SHAPE[hooks]

    def each(fn: Any, n: int) -> list[Any]:
        return [lambda i, t, c: fn(i, t, c) for _ in range(n)]

    return {
        "PreToolUse": [HookMatcher(matcher=tool, hooks=each(gate, gates))],
        "PostToolUse": [HookMatcher(matcher=tool, hooks=each(observer, observers))],
    }


def sdk_agent(calls: int, hooks: int) -> Any:
    return agent(calls, hooks, make_hooks=matchers)


if __name__ == "__main__":
    peerkit.main(sdk_agent, dist="hookline", hook="HookMatcher callbacks (Agent SDK shape)")

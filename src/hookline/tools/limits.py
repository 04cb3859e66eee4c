"""How big and how deep a tool input may be, checked without recursion.

A model can send any JSON as a tool input. One nested thousands deep would overflow Python's
stack in the first recursive copy, validation or ``json.dumps``; one of many megabytes would be
copied into every hook's payload. ``InputLimits.problem`` walks the input with its own stack
and stops counting bytes at the limit, so no input can crash the run: an input over a limit
becomes an error result the model reads, before any hook sees it.

The loop checks each call as the model's reply arrives (before the reply is recorded) and puts
a small stand-in, holding the reason, in place of an input over the limits; the pipeline checks
every call again, so callers that drive it directly get the same refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from hookline.tools.base import ToolCall

DEFAULT_MAX_BYTES: Final = 1_000_000
DEFAULT_MAX_DEPTH: Final = 64
#: The key of the stand-in input that replaces one over the limits.
REFUSED_KEY: Final = "hookline_refused_input"
_SCALAR_BYTES: Final = {type(None): 4, bool: 5}


@dataclass(frozen=True, slots=True)
class InputLimits:
    """The largest tool input accepted: bytes of its JSON text, and levels of nesting (the
    input object itself is level 1)."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH

    def problem(self, tool_input: Any) -> str | None:
        """Why ``tool_input`` is refused, for the model to read; None when it is within."""
        if isinstance(tool_input, dict) and set(tool_input) == {REFUSED_KEY}:
            return str(tool_input[REFUSED_KEY])
        depth = nesting(tool_input)
        if depth > self.max_depth:
            return f"tool input is nested {depth} deep; the limit is {self.max_depth}"
        size = json_size(tool_input, stop_after=self.max_bytes)
        if size > self.max_bytes:
            return (
                f"tool input is more than {self.max_bytes:,} bytes as JSON; the limit is "
                f"{self.max_bytes:,}"
            )
        return None

    def fit(self, call: ToolCall) -> ToolCall:
        """``call``, or the call with a stand-in input holding why its input was refused."""
        why = self.problem(call.input)
        return call if why is None else ToolCall(call.id, call.name, {REFUSED_KEY: why})


def nesting(value: Any) -> int:
    """How many dicts and lists deep ``value`` goes (0 for a scalar)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list | tuple):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def json_size(value: Any, *, stop_after: int) -> int:
    """About how many bytes ``value`` takes as compact JSON (strings counted as UTF-8, without
    escapes); counting stops once past ``stop_after``."""
    total, stack = 0, [value]
    while stack and total <= stop_after:
        node = stack.pop()
        if isinstance(node, dict):
            total += 1 + len(node)  # braces, colons, commas
            stack.extend(node.values())
            stack.extend(str(key) for key in node)
        elif isinstance(node, list | tuple):
            total += 1 + max(len(node), 1)
            stack.extend(node)
        elif isinstance(node, str):
            total += 2 + (len(node) if len(node) > stop_after else len(node.encode("utf-8")))
        elif type(node) is int:  # str() of a huge int raises: count its digits instead
            total += 2 + node.bit_length() * 30103 // 100000
        else:
            total += _SCALAR_BYTES.get(type(node)) or len(str(node))
    return total

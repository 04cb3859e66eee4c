"""How big and how deep a tool input may be, checked without recursion.

A model can send any JSON as a tool input. One nested thousands deep would overflow Python's
stack in the first recursive copy, validation or ``json.dumps``; one of many megabytes would be
copied into every hook's payload. ``InputLimits.problem`` walks the input with its own stack
and stops counting bytes at the limit, so no input can crash the run: an input over a limit
becomes an error result the model reads, before any hook sees it.

The file text a file tool writes (``Write``'s ``content``, ``Edit``'s ``old_string`` and
``new_string``, ``NotebookEdit``'s ``new_source``) counts against a limit of its own,
``max_content_bytes`` (32 MB): a big file is one long string, which nests nothing, and Claude
Code writes a file of several megabytes as asked. The rest of such an input keeps the 1 MB.

The loop checks each call as the model's reply arrives (before the reply is recorded) and puts
a small stand-in, holding the reason, in place of an input over the limits; the pipeline checks
every call again, so callers that drive it directly get the same refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from hookline._tools.base import ToolCall

DEFAULT_MAX_BYTES: Final = 1_000_000
DEFAULT_MAX_DEPTH: Final = 64
DEFAULT_MAX_CONTENT_BYTES: Final = 32_000_000
#: Per file tool, the top-level string fields that hold file text (``max_content_bytes``).
CONTENT_FIELDS: Final = {
    "Write": frozenset({"content"}),
    "Edit": frozenset({"old_string", "new_string"}),
    "NotebookEdit": frozenset({"new_source"}),
}
#: The key of the stand-in input that replaces one over the limits.
REFUSED_KEY: Final = "hookline_refused_input"
_SCALAR_BYTES: Final = {type(None): 4, bool: 5}


@dataclass(frozen=True, slots=True)
class InputLimits:
    """The largest tool input accepted: bytes of its JSON text, and levels of nesting (the
    input object itself is level 1); a file tool's file text has ``max_content_bytes``."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES

    def problem(self, tool_input: Any, tool_name: str | None = None) -> str | None:
        """Why ``tool_input`` (of ``tool_name``, when known) is refused, for the model to
        read; None when it is within."""
        if isinstance(tool_input, dict) and set(tool_input) == {REFUSED_KEY}:
            return str(tool_input[REFUSED_KEY])
        rest, content = _split_content(tool_input, CONTENT_FIELDS.get(tool_name or ""))
        depth, size = measure(rest, max_bytes=self.max_bytes)
        if depth > self.max_depth:
            return f"tool input is nested {depth} deep; the limit is {self.max_depth}"
        if size > self.max_bytes:
            return (
                f"tool input is more than {self.max_bytes:,} bytes as JSON; the limit is "
                f"{self.max_bytes:,}"
            )
        if content > self.max_content_bytes:
            return (
                f"the file text is more than {self.max_content_bytes:,} bytes; the limit is "
                f"{self.max_content_bytes:,}: write the file in parts (Write, then Edit)"
            )
        return None

    def fit(self, call: ToolCall) -> ToolCall:
        """``call``, or the call with a stand-in input holding why its input was refused."""
        why = self.problem(call.input, call.name)
        return call if why is None else ToolCall(call.id, call.name, {REFUSED_KEY: why})


def _split_content(tool_input: Any, fields: frozenset[str] | None) -> tuple[Any, int]:
    """``tool_input`` without the file text ``fields`` hold, and that text's size in bytes (as
    ``measure`` counts a string); the input itself and 0 when there is none."""
    if not fields or not isinstance(tool_input, dict):  # a hook's answer is a frozen dict
        return tool_input, 0
    texts = {k: v for k, v in tool_input.items() if k in fields and type(v) is str}
    if not texts:
        return tool_input, 0
    rest = {k: v for k, v in tool_input.items() if k not in texts}
    return rest, sum(_scalar_size(text) for text in texts.values())


def measure(value: Any, *, max_bytes: int) -> tuple[int, int]:
    """How deep ``value`` goes (dicts and lists; 0 for a scalar) and about how many bytes it
    takes as compact JSON (strings as UTF-8, without escapes), in one pass with its own stack.
    Counting bytes stops once past ``max_bytes``: the depth is then a lower bound."""
    if type(value) is dict and (flat := _flat_size(value)) is not None:
        return 1, flat  # the common case: a flat object of scalars
    deepest, total, stack = 0, 0, [(value, 1)]
    while stack and total <= max_bytes:  # the depth is counted to its end, for the message
        node, depth = stack.pop()
        if isinstance(node, dict):
            deepest = max(deepest, depth)
            total += 2 * len(node) + 1 + sum(_scalar_size(str(key)) for key in node)
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list | tuple):
            deepest = max(deepest, depth)
            total += 1 + max(len(node), 1)  # brackets and commas
            stack.extend((child, depth + 1) for child in node)
        else:
            total += _scalar_size(node)
    return deepest, total


def _flat_size(value: dict[Any, Any]) -> int | None:
    """The JSON size of an object whose values are all scalars; None if one is not."""
    total = 2 * len(value) + 1 if value else 2  # braces, colons and commas
    for key, item in value.items():
        if isinstance(item, dict | list | tuple):
            return None
        total += _scalar_size(key if type(key) is str else str(key)) + _scalar_size(item)
    return total


def _scalar_size(node: Any) -> int:
    """The JSON size of a string, number, true, false or null (a string's escapes aside)."""
    if type(node) is str:
        return 2 + (len(node) if node.isascii() else len(node.encode("utf-8", "replace")))
    if type(node) is int:  # str() of a huge int raises: count its digits instead
        return 1 + node.bit_length() * 30103 // 100000 + (node < 0)
    return _SCALAR_BYTES.get(type(node)) or len(str(node))

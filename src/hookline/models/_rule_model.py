"""A rule-based offline model: a prompt pattern becomes a tool call, a tool result a summary.

It lets the demo and ``hookline run`` work with no API key: "read FILE" calls Read, "run CMD"
calls Bash (also in Chinese: 读文件 / 执行命令), and after a tool result it says what came back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hookline._agent.messages import Message, TextBlock, ToolResultBlock
from hookline._tools.base import ToolCall

HELP = "I can read a file ('read FILE') or run a command ('run COMMAND')."


@dataclass(frozen=True)
class Rule:
    """When a prompt matches ``pattern``, call ``tool`` with ``make_input(match)``."""

    pattern: re.Pattern[str]
    tool: str
    make_input: Callable[[re.Match[str]], dict[str, Any]]


DEFAULT_RULES: tuple[Rule, ...] = (
    Rule(
        re.compile(r"^\s*(?:read|cat|读文件)\s*(\S+)", re.I), "Read", lambda m: {"file_path": m[1]}
    ),
    Rule(
        re.compile(r"^\s*(?:run|exec|执行命令)\s*(.+?)\s*$", re.I),
        "Bash",
        lambda m: {"command": m[1]},
    ),
)


class RuleModel:
    """A deterministic stand-in for a model, driven by prompt patterns."""

    name = "rules"

    def __init__(self, rules: Sequence[Rule] = DEFAULT_RULES) -> None:
        self.rules = tuple(rules)
        self.calls = 0

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]],
        *,
        system: str | None = None,
    ) -> Message:
        self.calls += 1
        last = messages[-1] if messages else Message.user("")
        results = [b for b in last.content if isinstance(b, ToolResultBlock)]
        if results:
            return Message.assistant(_summary(results, _names(messages)))
        prompt = next((b.text for b in reversed(last.content) if isinstance(b, TextBlock)), "")
        for rule in self.rules:
            match = rule.pattern.search(prompt)
            if match:
                call = ToolCall(f"toolu_rule_{self.calls:03d}", rule.tool, rule.make_input(match))
                return Message.assistant("", (call,))
        return Message.assistant(HELP)


def _names(messages: Sequence[Message]) -> dict[str, str]:
    return {c.id: c.name for m in messages if m.role == "assistant" for c in m.tool_calls}


#: How much of a tool's output the summary quotes: lines, and characters a line.
SUMMARY_LINES, SUMMARY_CHARS = 5, 80


def _summary(results: list[ToolResultBlock], names: dict[str, str]) -> str:
    """One line per result (``Tool Read returned: ...``); an output of several lines follows
    on lines of its own (the first ``SUMMARY_LINES``), as it was, numbered lines and all."""
    lines = []
    for block in results:
        name = names.get(block.tool_use_id, "tool")
        verb = "was refused" if block.is_error else "returned"
        text = block.content.strip("\n").expandtabs(4)
        output = [_cut(line.rstrip()) for line in text.splitlines()]
        if len(output) <= 1:
            lines.append(f"Tool {name} {verb}: {output[0] if output else ''}".rstrip())
            continue
        lines.append(f"Tool {name} {verb}:")
        lines += output[:SUMMARY_LINES]
        if len(output) > SUMMARY_LINES:
            lines.append(f"... {len(output) - SUMMARY_LINES} more lines")
    return "\n".join(lines)


def _cut(line: str) -> str:
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 3] + "..."

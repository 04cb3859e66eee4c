"""Structured output: the Agent SDK's ``output_format={"type": "json_schema", "schema": {...}}``.

As Claude Code does it, the model is given one more tool, ``StructuredOutput``, whose input
schema is the schema asked for, and told to end by calling it. A call whose input does not fit
the schema is an error result the model reads (it can try again); one that fits is kept, and
becomes ``ResultMessage.structured_output``. If the model tries to end its turn without it, a
Stop gate sends it back, saying so, up to ``RETRIES`` times; after that the response ends with
the subtype ``error_max_structured_output_retries``, as the SDK's does.

The tool and the gate are an ordinary tool and an ordinary hook: hooks, rules and the audit see
them like any other.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from hookline._decisions import Decision
from hookline._errors import ConfigError, ToolInputError
from hookline._tools.base import Tool, ToolContext
from hookline._tools.schema import input_check

if TYPE_CHECKING:
    from hookline._agent.loop import Agent
    from hookline._events import HookEvent
    from hookline._tools.schema import Check

NAME: Final = "StructuredOutput"
#: Times the model is sent back to give the structured output before the response fails.
RETRIES: Final = 3
_ASK: Final = (
    f"You must give your final answer by calling the {NAME} tool, once, with input that fits "
    "its schema. Call it now."
)
_SYSTEM: Final = (
    f"When you have finished, give your final answer by calling the {NAME} tool, once, with "
    "input that fits its schema."
)


class StructuredOutput(Tool):
    """The tool the model gives its final answer with; it keeps the last input that fits."""

    name = NAME
    description = (
        "Return your final answer as structured data. Call it once, at the end, with input that "
        "fits the schema exactly."
    )
    suspends = False
    read_only = True  # it changes nothing: no mode asks before it

    def __init__(self, schema: dict[str, Any], check: Check) -> None:
        self.input_schema = schema
        self._check = check
        self.value: dict[str, Any] | None = None
        self.asked = 0

    async def execute(self, tool_input: dict[str, Any], ctx: ToolContext) -> Any:
        if problem := self._check(tool_input):
            raise ToolInputError(f"The output does not fit the schema: {problem}")
        self.value = dict(tool_input)
        return "Structured output recorded."

    def take(self) -> dict[str, Any] | None:
        """The output given since the last ``take`` (None: none), made ready for the next."""
        value, self.value, self.asked = self.value, None, 0
        return value

    def gate(self, event: HookEvent) -> Decision:
        """The Stop gate: no ending without the output, ``RETRIES`` times."""
        if self.value is not None or self.asked >= RETRIES:
            return Decision.allow()
        self.asked += 1
        return Decision.deny(_ASK)


def settle(line: dict[str, Any], agent: Agent) -> dict[str, Any]:
    """A response's result line with its structured output, or failed for the want of it."""
    tool = agent.tools.get(NAME)
    if not isinstance(tool, StructuredOutput):
        return line
    value = tool.take()
    if value is not None:  # the result is its JSON text, as Claude Code gives it
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return {**line, "result": text, "structured_output": value}
    if line["is_error"]:
        return line
    why = f"the model ended {RETRIES + 1} times without giving the structured output"
    failed = {"subtype": "error_max_structured_output_retries", "is_error": True}
    return {**line, **failed, "errors": [why]}


def offer(agent: Agent, output_format: Mapping[str, Any]) -> StructuredOutput:
    """Give ``agent`` the tool and the gate ``output_format`` asks for."""
    schema = output_format.get("schema") if output_format.get("type") == "json_schema" else None
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        raise ConfigError(
            f"output_format {dict(output_format)!r} is not a JSON Schema of an object",
            key="output_format",
            fix='give {"type": "json_schema", "schema": {"type": "object", "properties": ...}}',
        )
    given = dict(schema)
    tool = StructuredOutput(given, input_check(given, "output_format"))
    agent.tools.add(tool)
    agent.registry.add("Stop", tool.gate, name=NAME, source="output_format")
    system = agent.options.system_prompt
    agent.options.system_prompt = f"{system}\n\n{_SYSTEM}" if system else _SYSTEM
    return tool

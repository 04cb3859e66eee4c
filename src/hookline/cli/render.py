"""How a run is shown: text for people (coloured on a terminal), or JSON for programs."""

from __future__ import annotations

import json
from typing import Any

import click

from hookline.agent.messages import Message
from hookline.agent.result import RunResult
from hookline.events import HookEvent
from hookline.hooks.engine import HookRun
from hookline.tools.base import ToolResult

#: Colours by the kind of line.
STYLES: dict[str, dict[str, Any]] = {
    "title": {"fg": "cyan", "bold": True},
    "user": {"fg": "blue"},
    "assistant": {"fg": "green"},
    "model": {"dim": True},
    "hook": {"fg": "magenta"},
    "tool": {},
    "blocked": {"fg": "red"},
    "deny": {"fg": "red", "bold": True},
    "allow": {"fg": "green"},
    "note": {"fg": "yellow"},
    "ledger": {},
    "failure": {"fg": "red"},
}


def say(kind: str, text: str) -> None:
    """Print one line for people, coloured by kind when stdout is a terminal."""
    click.secho(text, **STYLES.get(kind, {}))


def compact(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class TextView:
    """Narrates a run as it happens: model calls, each hook's decision and reason, tool outcomes."""

    def __call__(self, item: object) -> None:
        if isinstance(item, HookRun):
            self._hook_run(item)
        elif isinstance(item, ToolResult):
            self._tool_result(item)
        elif isinstance(item, Message) and item.role == "assistant":
            for call in item.tool_calls:
                say("model", f"model -> {call.name} {compact(call.input)}")

    def _hook_run(self, run: HookRun) -> None:
        if run.failure:
            say("failure", f"  {run.event} hook {run.hook}: {run.failure} ({run.error})")
        for message in run.answer.system_message:
            say("note", f"  {run.event} hook {run.hook} says: {message}")
        if run.decision is None:
            return
        reason = f" - {run.reason}" if run.reason else ""
        kind = "deny" if run.decision in ("deny", "defer", "stop") else "hook"
        say(kind, f"  {run.event} hook {run.hook} [{run.kind}]: {run.decision}{reason}")

    def _tool_result(self, result: ToolResult) -> None:
        if result.status == "executed":
            say("tool", f"tool {result.call.name} ran with {compact(result.input)}")
        else:
            say("blocked", f"tool {result.call.name} {result.status}: {result.reason}")


def print_summary(result: RunResult) -> None:
    say("assistant", result.final_text or "(no text)")
    detail = f" ({result.stop_detail})" if result.stop_detail else ""
    say(
        "note",
        f"-- {result.stop_reason}{detail} · {result.model_calls} model calls · "
        f"{len(result.tool_calls)} tool calls · transcript {result.transcript_path}",
    )


class StreamView:
    """One JSON line per event, hook run, tool result and message, as it happens."""

    def __call__(self, item: object) -> None:
        if isinstance(item, HookEvent):
            line = {"type": "event", "event": item.name, "payload": item.to_payload()}
        elif isinstance(item, HookRun):
            line = {"type": "hook_run", **item.to_dict()}
        elif isinstance(item, ToolResult):
            line = {"type": "tool_call", **item.to_dict()}
        elif isinstance(item, Message):
            line = {"type": "message", **item.to_dict()}
        else:
            return
        emit_json(line)


def emit_json(data: dict[str, Any], *, indent: int | None = None) -> None:
    separators = None if indent else (",", ":")
    click.echo(
        json.dumps(data, ensure_ascii=False, default=str, indent=indent, separators=separators)
    )

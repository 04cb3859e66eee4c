"""How a run is shown: text for people (coloured on a terminal), or JSON for programs.

Every value a model, a tool, a hook or a settings file wrote goes through ``display.shown``
before it is printed, terminal or not; ``say`` and ``echo`` escape whatever would still drive a
terminal in the whole line, and JSON output is ``display.shown_json``. The model's final text
keeps its line breaks, each of its lines behind ``> ``, so it cannot pass for hookline's own lines.
"""

from __future__ import annotations

import json
from typing import Any

import click

from hookline._support.display import shown, shown_json
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


#: What comes before each line of the model's final text in the text view.
QUOTE = "> "


def say(kind: str, text: str, *, err: bool = False) -> None:
    """Print a line for people, coloured by kind when stdout is a terminal. Untrusted parts
    must be ``shown`` already; any control character left in ``text`` is escaped here."""
    click.secho(shown(text, lines=True, collapse=False), err=err, **STYLES.get(kind, {}))


def echo(text: str, *, err: bool = False) -> None:
    """``say`` without colour."""
    click.echo(shown(text, lines=True, collapse=False), err=err)


def warn(message: object) -> None:
    """``hookline: warning: ...`` on stderr, on one line: it may quote any settings value."""
    say("note", f"hookline: warning: {shown(message)}", err=True)


def error(message: object) -> None:
    """``hookline: error: ...`` on stderr, on one line."""
    say("failure", f"hookline: error: {shown(message)}", err=True)


def compact(value: Any, limit: int = 160) -> str:
    """``value`` as compact JSON, cut at ``limit`` characters, ``shown``: one line."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return shown(text if len(text) <= limit else text[: limit - 3] + "...")


def _reason(text: str | None) -> str:
    """A reason or error on one line, without the newline a hook's output ends with."""
    return shown(text.rstrip()) if text else ""


class TextView:
    """Narrates a run as it happens: the model's text as it arrives (from a model that streams,
    through ``text_delta``), model calls, each hook's decision and reason, tool outcomes."""

    def __init__(self) -> None:
        self._pieces: list[str] = []  # the text of the message the model is writing
        self._open = False  # a streamed line is waiting for its end
        self._streamed = ""  # the text of the last message, as it was streamed

    def __call__(self, item: object) -> None:
        if isinstance(item, HookRun):
            self._hook_run(item)
        elif isinstance(item, ToolResult):
            self._tool_result(item)
        elif isinstance(item, Message) and item.role == "assistant":
            self._end_line()
            self._streamed, self._pieces = "".join(self._pieces), []
            for call in item.tool_calls:
                say("model", f"model -> {shown(call.name)} {compact(call.input)}")

    def text_delta(self, piece: str) -> None:
        """Print a piece of the model's text at once, each of its lines behind ``QUOTE``."""
        self._pieces.append(piece)
        for number, part in enumerate(piece.replace("\r\n", "\n").split("\n")):
            if number:
                self._end_line(quote=True)
            if part:
                if not self._open:
                    click.secho(QUOTE, nl=False, **STYLES["assistant"])
                    self._open = True
                click.secho(shown(part), nl=False, **STYLES["assistant"])

    def finish(self) -> str:
        """End a streamed line left open; the last model message's text, if it was streamed."""
        self._end_line()
        return self._streamed

    def _end_line(self, *, quote: bool = False) -> None:
        if quote and not self._open:
            click.secho(QUOTE.rstrip(), nl=False, **STYLES["assistant"])  # an empty line
        if self._open or quote:
            click.echo("")
        self._open = False

    def _hook_run(self, run: HookRun) -> None:
        hook = f"  {run.event} hook {shown(run.hook)}"
        if run.failure:
            say("failure", f"{hook}: {run.failure} ({_reason(run.error)})")
        for message in run.answer.system_message:
            say("note", f"{hook} says: {_reason(message)}")
        if run.decision is None:
            return
        reason = f" - {_reason(run.reason)}" if run.reason else ""
        kind = "deny" if run.decision in ("deny", "defer", "stop") else "hook"
        say(kind, f"{hook} [{run.kind}]: {run.decision}{reason}")

    def _tool_result(self, result: ToolResult) -> None:
        name = shown(result.call.name)
        if result.status == "executed":
            say("tool", f"tool {name} ran with {compact(result.input)}")
        else:
            say("blocked", f"tool {name} {result.status}: {_reason(result.reason)}")


def print_summary(result: RunResult, *, streamed: str = "") -> None:
    """The final text, each of its lines behind ``QUOTE`` (unless it is ``streamed``: shown as
    it arrived already), then one line about the run."""
    if not result.final_text:
        say("assistant", "(no text)")
    elif result.final_text != streamed:
        text = shown(result.final_text.replace("\r\n", "\n"), lines=True)
        say("assistant", "\n".join(QUOTE + line for line in text.split("\n")))
    detail = f" ({_reason(result.stop_detail)})" if result.stop_detail else ""
    say(
        "note",
        f"-- {result.stop_reason}{detail} · {result.model_calls} model calls · "
        f"{len(result.tool_calls)} tool calls · transcript {shown(result.transcript_path)}",
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
    """``data`` as JSON (one line unless ``indent``), printable as it is: ``shown_json``."""
    click.echo(shown_json(data, indent=indent))

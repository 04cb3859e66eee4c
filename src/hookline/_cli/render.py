"""How a run is shown: text for people (coloured on a terminal), or JSON for programs.

Every value a model, a tool, a hook or a settings file wrote goes through ``display.shown``
before it is printed, terminal or not; ``say`` and ``echo`` escape whatever would still drive a
terminal in the whole line, and JSON output is ``display.shown_json``. The model's final text
keeps its line breaks, each of its lines behind ``> ``, so it cannot pass for hookline's own lines;
a tool's output is shown by its first lines, each behind ``OUTPUT``.

Whether there is colour is decided in one place, ``colour()``: ``NO_COLOR`` (any non-empty
value, https://no-color.org) turns it off, ``FORCE_COLOR`` on; otherwise there is colour only on
a terminal.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Final

import click

from hookline._agent.messages import Message
from hookline._agent.observers import Observer
from hookline._agent.result import RunResult
from hookline._cli.own_stdout import cli_stdout
from hookline._cli.spinner import Spinner
from hookline._events import HookEvent, event_class
from hookline._hooks.engine import HookRun
from hookline._support.display import abridged, compact, shown, shown_json
from hookline._tools.base import ToolResult
from hookline._tools.pipeline import ToolStarted
from hookline.audit._redact import LineMasker, Redactor

if TYPE_CHECKING:
    from hookline._agent.session import Session

#: Colours by the kind of line.
STYLES: Final[dict[str, dict[str, Any]]] = {
    "title": {"fg": "cyan", "bold": True},
    "user": {"fg": "blue"},
    "assistant": {"fg": "green"},
    "model": {"dim": True},
    "hook": {"fg": "magenta"},
    "quiet": {"dim": True},  # a hook that ran and decided nothing, a traceback
    "context": {"fg": "cyan"},
    "tool": {},
    "output": {},
    "blocked": {"fg": "red"},
    "deny": {"fg": "red", "bold": True},
    "allow": {"fg": "green"},
    "note": {"fg": "yellow"},
    "ledger": {},
    "failure": {"fg": "red"},
}

#: What comes before each line of the model's final text in the text view.
QUOTE = "> "
#: What comes before each line of a tool's output in the text view.
OUTPUT = "  │ "
#: How much of a hook's added context, and of each line of a tool's output, is shown.
CONTEXT_CHARS, OUTPUT_CHARS = 80, 120
#: How many lines of a tool's output are shown.
OUTPUT_LINES = 3
#: Decisions shown as refusals.
REFUSALS = frozenset({"deny", "defer", "stop"})


def colour() -> bool | None:
    """Whether to colour: False under ``NO_COLOR``, True under ``FORCE_COLOR`` (neither empty
    nor ``0``), None to let click colour a terminal only. NO_COLOR wins over FORCE_COLOR."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR", "0") not in ("", "0"):
        return True
    return None


def say(kind: str, text: str, *, err: bool = False) -> None:
    """Print a line for people, coloured by kind (see ``colour``). Untrusted parts must be
    ``shown`` already; any control character left in ``text`` is escaped here."""
    line, style = shown(text, lines=True, collapse=False), STYLES.get(kind)
    styled = click.style(line, **style) if style else line
    click.echo(styled, file=None if err else cli_stdout(), err=err, color=colour())


def echo(text: str, *, err: bool = False) -> None:
    """``say`` without colour."""
    click.echo(shown(text, lines=True, collapse=False), file=None if err else cli_stdout(), err=err)


def warn(message: object) -> None:
    """``hookline: warning: ...`` on stderr, on one line: it may quote any settings value."""
    say("note", f"hookline: warning: {shown(message)}", err=True)


def error(message: object) -> None:
    """``hookline: error: ...`` on stderr, on one line."""
    say("failure", f"hookline: error: {shown(message)}", err=True)


def _reason(text: str | None) -> str:
    """A reason or error on one line, without the newline a hook's output ends with."""
    return shown(text.rstrip()) if text else ""


def hook_lines(run: HookRun, *, verbose: bool = False, call: str = "") -> list[tuple[str, str]]:
    """The lines for one hook run, each with its kind (``STYLES``): what it decided or how it
    failed, what it says to the user, the context it adds (abridged), and with ``verbose`` the
    traceback of the exception it raised. A hook that only adds context is shown by that.
    ``call``: the mark of the call it ran for, in a batch of several (``[2] ``)."""
    hook = f"  {call}{run.event} hook {shown(run.hook)}"
    tag = f"{hook} [{shown(run.handler)} {run.kind}{' shadow' if run.shadow else ''}]"
    lines = [] if run.decision == "context" and not run.failure else [_head(run, tag)]
    lines += [("note", f"{hook} says: {_reason(m)}") for m in run.answer.system_message]
    for context in run.answer.additional_context:
        lines.append(("context", f"{tag} adds context: {abridged(context, CONTEXT_CHARS)}"))
    if verbose and run.traceback:
        lines += [("quiet", f"    {line}") for line in run.traceback.rstrip().splitlines()]
    return lines


def _head(run: HookRun, tag: str) -> tuple[str, str]:
    if run.failure:
        then = f" -> {run.decision}" if run.decision else ""
        return "failure", f"{tag}: {run.failure} ({_reason(run.error)}){then}"
    if run.decision is None:
        return "quiet", f"{tag}: no decision"
    reason = f" - {_reason(run.reason)}" if run.reason else ""
    if run.shadow:  # it decided nothing
        return "quiet", f"{tag}: would {run.decision}{reason}"
    decision = run.decision
    if decision == "deny" and event_class(run.event).facts.refuses == "output":
        decision = "block (feedback to the model; the tool already ran)"
    return ("deny" if run.decision in REFUSALS else "hook"), f"{tag}: {decision}{reason}"


def output_lines(content: str, *, keep: int = OUTPUT_LINES) -> list[str]:
    """The first ``keep`` lines of a tool's output (each cut at ``OUTPUT_CHARS``), behind
    ``OUTPUT``, then how many more there are."""
    lines = content.expandtabs(4).rstrip("\n").splitlines()
    shown_lines = [OUTPUT + shown(_cut(line.rstrip(), OUTPUT_CHARS)) for line in lines[:keep]]
    if len(lines) > keep:
        shown_lines.append(f"{OUTPUT}… {len(lines) - keep} more lines")
    return shown_lines


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class TextView:
    """Narrates a run as it happens: the model's text as it arrives (from a model that streams,
    through ``text_delta``), model calls, every hook that ran (those that decided nothing
    dimmed), tool outcomes with the first lines of their output, and, given a ``spinner``, how
    long a tool has been running. ``verbose``: the traceback of a hook that raised. Every line
    passes the ``redactor`` first, as the audit's records do: a terminal is often a log kept
    somewhere (the transcript keeps the raw text)."""

    def __init__(
        self,
        *,
        verbose: bool = False,
        spinner: Spinner | None = None,
        redactor: Redactor | None = None,
    ) -> None:
        self.verbose = verbose
        self.spinner = spinner
        self.redactor = redactor if redactor is not None else Redactor()
        self._masker = LineMasker(self.redactor)  # the model's text as it streams
        self._pieces: list[str] = []  # the text of the message the model is writing
        self._open = False  # a streamed line is waiting for its end
        self._streamed = ""  # the text of the last message, as it was streamed
        #: Who is working: "" for the main conversation, ``[subagent TYPE] `` inside one.
        self.speaker = ""
        #: Each call of the model's last batch, marked ``[N] `` when it asked for several.
        self._marks: dict[str, str] = {}

    def observer(self) -> Observer:
        """What to give ``agent.observe``: this view, told which conversation each thing
        happens in, so a subagent's calls are marked as its own."""
        return _Narration(self)

    def __call__(self, item: object) -> None:
        if self.spinner is not None:
            self.spinner.stop()  # whatever comes next, the tool body is done
        if isinstance(item, HookRun):
            mark = self._mark(item.tool_use_id)
            for kind, line in hook_lines(item, verbose=self.verbose, call=mark):
                self._say(kind, line)
        elif isinstance(item, ToolStarted):
            if item.gate.permission == "defer" and item.approver:
                self._say("note", _overrode(item, self._mark(item.call.id)))
            if self.spinner is not None:
                self.spinner.start(shown(item.call.name))
        elif isinstance(item, ToolResult):
            self._tool_result(item)
        elif isinstance(item, Message) and item.role == "assistant":
            self._print_streamed(self._masker.flush())
            self._end_line()
            self._streamed, self._pieces = "".join(self._pieces), []
            calls = item.tool_calls
            self._marks = (
                {c.id: f"[{n}] " for n, c in enumerate(calls, 1)} if len(calls) > 1 else {}
            )
            for call in calls:
                shown_input = compact(self.redactor.redact(call.input))
                self._say(
                    "model", f"model -> {self._mark(call.id)}{shown(call.name)} {shown_input}"
                )

    def _mark(self, tool_use_id: str | None) -> str:
        """``[N] `` for the Nth call of the batch the model just asked for, when it asked for
        several; else nothing."""
        return self._marks.get(tool_use_id or "", "")

    def text_delta(self, piece: str) -> None:
        """Print the model's text as it arrives, a line at a time (masked whole: a secret may
        be cut across pieces), each line behind ``QUOTE``."""
        self._pieces.append(piece)
        self._print_streamed(self._masker.feed(piece))

    def _print_streamed(self, text: str) -> None:
        for number, part in enumerate(text.replace("\r\n", "\n").split("\n")):
            if number:
                self._end_line(quote=True)
            if part:
                if not self._open:
                    self._assistant(QUOTE)
                    self._open = True
                self._assistant(shown(part))

    def finish(self) -> str:
        """End a streamed line left open and the spinner; the last model message's text, if
        it was streamed."""
        if self.spinner is not None:
            self.spinner.close()
        self._print_streamed(self._masker.flush())
        self._end_line()
        return self._streamed

    def _assistant(self, text: str) -> None:
        click.secho(text, file=cli_stdout(), nl=False, color=colour(), **STYLES["assistant"])

    def _end_line(self, *, quote: bool = False) -> None:
        if quote and not self._open:
            self._assistant(QUOTE.rstrip())  # an empty line
        if self._open or quote:
            click.echo("", file=cli_stdout())
        self._open = False

    def _tool_result(self, result: ToolResult) -> None:
        name = self._mark(result.call.id) + shown(result.call.name)
        if result.status != "executed":
            self._say("blocked", f"tool {name} {result.status}: {_reason(result.reason)}")
            return
        self._say("tool", f"tool {name} ran with {compact(self.redactor.redact(result.input))}")
        for line in output_lines(result.content):
            self._say("output", line)

    def _say(self, kind: str, line: str) -> None:
        say(kind, self.speaker + self.redactor.text(line))


def _overrode(started: ToolStarted, mark: str) -> str:
    """The line saying a person's answer on resume overrode a PreToolUse hook's defer."""
    why = f": {_reason(started.gate.reason)}" if started.gate.reason else ""
    return (
        f"tool {mark}{shown(started.call.name)} approved by {shown(started.approver or '')}, "
        f"overriding a PreToolUse hook's defer{why}"
    )


class _Narration(Observer):
    """Feeds a TextView what ``agent.watch`` would (each event, hook run, tool start and result,
    and message), telling it first whose conversation each thing belongs to."""

    def __init__(self, view: TextView) -> None:
        self.view = view

    def _show(self, session: Session, item: object) -> None:
        scope = session.scope
        self.view.speaker = f"[subagent {shown(scope.agent_type or '')}] " if scope.agent_id else ""
        self.view(item)

    def event(self, session: Session, event: HookEvent) -> None:
        self._show(session, event)

    def hook_run(self, session: Session, run: HookRun) -> None:
        self._show(session, run)

    def tool_started(self, session: Session, started: ToolStarted) -> None:
        self._show(session, started)

    def tool_finished(self, session: Session, result: ToolResult) -> None:
        self._show(session, result)

    def message(self, session: Session, message: Message) -> None:
        self._show(session, message)


def print_summary(
    result: RunResult, *, streamed: str = "", redactor: Redactor | None = None
) -> None:
    """The final text, each of its lines behind ``QUOTE`` (unless it is ``streamed``: shown as
    it arrived already) and its secrets masked, then one line about the run."""
    masked = (redactor or Redactor()).text
    if not result.final_text:
        say("assistant", "(no text)")
    elif result.final_text != streamed:
        text = shown(masked(result.final_text).replace("\r\n", "\n"), lines=True)
        say("assistant", "\n".join(QUOTE + line for line in text.split("\n")))
    detail = f" ({_reason(masked(result.stop_detail))})" if result.stop_detail else ""
    say(
        "note",
        f"-- {result.stop_reason}{detail} · {result.model_calls} model calls · "
        f"{len(result.tool_calls)} tool calls · transcript {shown(result.transcript_path)}",
    )


def emit_json(data: dict[str, Any], *, indent: int | None = None) -> None:
    """``data`` as JSON (one line unless ``indent``), printable as it is: ``shown_json``; on
    the real stdout even while hook output goes to stderr (``own_stdout``)."""
    click.echo(shown_json(data, indent=indent), file=cli_stdout())

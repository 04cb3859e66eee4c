"""How ``hookline run`` and ``hookline sessions resume`` print a run, and how they end.

``text`` is for people (every hook, tool and model step, then the final text); with ``-p``
(``claude -p``'s printing) it is the result alone, as a script reads it. ``json`` is one
result object at the end and ``stream-json`` a line per step (``hookline._claude.stream_json``),
both Claude Code's shapes with hookline's fields beside them. Every format is redacted as the
audit is (``hookline.audit._redact``; the shapes stay): stdout is often a log kept somewhere,
and the transcript keeps the raw conversation. In the JSON formats and with ``-p``, whatever
hook code prints goes to stderr (``own_stdout``). When the reader of stdout
goes away, the run stops quietly (``hookline._cli.reader``).

Exit codes: 0 the run ended (with ``-p``, 1 when it ended in error, as ``claude -p``); 2 a
model call failed (``-p``: 1); 4 the run paused; 130 a Ctrl-C stopped it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Final, cast

import click

from hookline._agent.model import StreamingModelClient
from hookline._agent.observers import Observer
from hookline._claude import structured
from hookline._claude.stream_json import ClaudeStream, Timing, result_object, text_delta
from hookline._cli import program_gc
from hookline._cli.own_stdout import cli_stdout, hook_output_to_stderr
from hookline._cli.paused import exit_interrupted, exit_paused
from hookline._cli.reader import EXIT_READER_GONE, Reader, StopWhenGone
from hookline._cli.render import TextView, emit_json, print_summary
from hookline._cli.spinner import Spinner
from hookline._errors import ModelError
from hookline._support.display import shown
from hookline._support.run import run as run_to_end
from hookline.audit._redact import LineMasker, Redactor
from hookline.storage import Store

if TYPE_CHECKING:
    from hookline import Agent, RunResult
    from hookline._agent.messages import Message
    from hookline._agent.session import Session

#: ``claude -p``'s exit code for a run that ended in error (``is_error``).
EXIT_ERROR: Final = 1
#: The next prompt of a streamed input (``--input-format stream-json``); None: no more.
NextPrompt = Callable[[], Awaitable[str | None]]


@dataclass(frozen=True)
class Output:
    """How a run is printed."""

    #: text, json or stream-json.
    format: str = "text"
    #: ``-p``: text is the result alone, and a run that ended in error exits 1.
    print_mode: bool = False
    #: With the traceback of a hook that raised (text for people).
    verbose: bool = False
    #: stream-json: the model's text as ``stream_event`` deltas as it arrives.
    partial: bool = False
    #: stream-json: ``hook_started`` / ``hook_response`` lines.
    hook_events: bool = False

    @property
    def for_people(self) -> bool:
        return self.format == "text" and not self.print_mode


def show(
    agent: Agent,
    output: Output,
    work: Callable[[], Awaitable[RunResult]],
    *,
    next_prompt: NextPrompt | None = None,
) -> None:
    """Run ``work`` on ``agent`` (then each ``next_prompt``, in the same session) and print it
    as ``output`` asks."""
    reader = Reader()
    try:
        divert = not output.for_people
        with hook_output_to_stderr(divert=divert, reader=reader), program_gc.tuned():
            _show(agent, output, work, next_prompt, reader)
    except asyncio.CancelledError:
        if not reader.gone:
            raise
    if reader.gone:
        raise SystemExit(EXIT_READER_GONE)


def _show(
    agent: Agent,
    output: Output,
    work: Callable[[], Awaitable[RunResult]],
    next_prompt: NextPrompt | None,
    reader: Reader,
) -> None:
    view = None
    # every output shows what the audit shows; JSON escapes lone surrogates itself
    redactor = Redactor(agent.options.redact, keep_surrogates=not output.for_people)
    if output.for_people:
        view = TextView(verbose=output.verbose, spinner=Spinner.at_terminal(), redactor=redactor)
        agent.observe(view.observer())
        if isinstance(agent.model, StreamingModelClient) and agent.model.on_text is None:
            agent.model.on_text = view.text_delta  # the model's text as it arrives
    stream = None
    if output.format == "stream-json":
        _stream_text(agent, output, redactor)  # first: its last piece precedes the message
        stream = ClaudeStream(
            agent, partial(_emit_redacted, redactor), hook_events=output.hook_events
        )
        agent.observe(stream)
    timing = Timing(agent) if view is None else None  # json, stream-json: duration_api_ms
    agent.observe(StopWhenGone(reader))  # after the observers that print

    def shaped(result: RunResult) -> dict[str, Any]:
        line = result_object(result, timing=cast(Timing, timing), max_turns=agent.options.max_turns)
        return cast("dict[str, Any]", redactor.redact(structured.settle(line, agent)))

    async def runs() -> tuple[RunResult, dict[str, Any] | None, bool]:
        """The last result, its result line (json, stream-json), and whether it is printed."""
        reader.stop_with(cast("asyncio.Task[Any]", asyncio.current_task()))
        async with agent:
            result = await work()
            if stream is None or next_prompt is None:
                return result, shaped(result) if timing is not None else None, False
            while True:  # each response ends with its result line, as in Claude Code
                line = shaped(result)
                emit_json(line)
                prompt = await next_prompt()
                if prompt is None:
                    return result, line, True
                stream.restart()
                result = await agent.run(prompt)

    try:
        result, line, printed = run_to_end(runs())
    except KeyboardInterrupt:  # Ctrl-C: the session is marked interrupted (agent.turns)
        exit_interrupted(agent)
    finally:
        streamed = view.finish() if view else ""  # the spinner is gone, whatever happened
        if isinstance(agent.options.store, Store):
            agent.options.store.close()  # build_agent opened it
    if not printed:
        _print(result, line, output, streamed=streamed, view=view)
    _end(agent, result, line, output, redactor)


def _emit_redacted(redactor: Redactor, line: dict[str, Any]) -> None:
    emit_json(redactor.redact(line))


def _stream_text(agent: Agent, output: Output, redactor: Redactor) -> None:
    """``--include-partial-messages``: the model's text as ``stream_event`` lines (when its
    client streams), a line at a time, masked (as the text view shows it)."""
    model = agent.model
    if output.partial and isinstance(model, StreamingModelClient):
        lines = _PartialText(agent, LineMasker(redactor))
        model.on_text = lines.piece
        agent.observe(lines)


class _PartialText(Observer):
    """Streamed text as ``stream_event`` lines: each whole line masked, the rest when the
    model's message is done (before its ``assistant`` line)."""

    def __init__(self, agent: Agent, masker: LineMasker) -> None:
        self.agent, self.masker = agent, masker

    def piece(self, text: str) -> None:
        self._emit(self.masker.feed(text))

    def model_called(self, session: Session, reply: Message, model: str) -> None:
        self._emit(self.masker.flush())

    def _emit(self, text: str) -> None:
        if text:
            emit_json(text_delta(self.agent.session.id, text))


def _print(
    result: RunResult,
    line: dict[str, Any] | None,
    output: Output,
    *,
    streamed: str,
    view: TextView | None,
) -> None:
    if view is not None:
        print_summary(result, streamed=streamed, redactor=view.redactor)
    elif output.format == "text" and line is not None:  # -p: the result alone
        print_result(line)
    elif line is not None:
        emit_json(line)  # one line, as claude -p prints it (and C-encoded: it holds every call)


def print_result(line: dict[str, Any]) -> None:
    """What ``claude -p`` prints in text for a result line: the result, or what went wrong.
    As it is into a pipe or a file, for the script that reads it; escaped at a terminal
    (``display.shown``), as every model text hookline shows a person."""
    if line["subtype"] == "error_max_turns":
        text = f"Error: {line['errors'][0]}".replace("maximum number of", "max")
    elif line["is_error"]:
        text = str(line.get("result") or "; ".join(line.get("errors") or ["the run failed"]))
    else:
        text = str(line["result"] or "")
    stream = cli_stdout() or sys.stdout
    click.echo(shown(text, lines=True, collapse=False) if stream.isatty() else text, file=stream)


def _end(
    agent: Agent,
    result: RunResult,
    line: dict[str, Any] | None,
    output: Output,
    redactor: Redactor,
) -> None:
    """The exit code, and the lines that say how to go on with a paused run."""
    if result.stop_reason == "tool_deferred":  # the resume lines, and exit code 4
        exit_paused(result, agent.options.launch, err=not output.for_people, redactor=redactor)
    if output.print_mode and line is not None and line["is_error"]:
        raise SystemExit(EXIT_ERROR)  # claude -p's exit code; what went wrong is printed
    if result.stop_reason in ("model_error", "compaction_failed"):  # one line on stderr, exit 2
        detail = result.stop_detail or "the model call failed"
        raise ModelError(redactor.text(detail))  # the run is on record

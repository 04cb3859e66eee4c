"""Compaction: the conversation replaced by the model's summary of it, the full one archived.

    PreCompact      deny: no compaction; a command's plain stdout and any additional context:
                    more summarising instructions, after the user's own
    summary         one model request: the conversation and the summarising request, no tools
                    (PreModelRequest and PostModelResponse hooks see it as any other request)
    archive         the transcript so far moves to ``<sid>.<n>.pre-compact.jsonl`` beside it
    conversation    one user message holding the summary; the transcript starts again with it
    SessionStart    source "compact"; its context joins the conversation right after the summary
    PostCompact     the summary

``Agent.compact`` asks for it (trigger ``manual``); ``AgentOptions.compact_at_tokens`` makes it
happen before a model request of the main conversation once the conversation's estimated size
(``estimate_tokens``) reaches that budget (trigger ``auto``). A summary that fails (the model
call fails, answers with no text or with tool calls, a PreModelRequest hook refuses it) leaves
the conversation and the transcript exactly as they were, and PostCompact does not fire; an
automatic one then ends the run with ``stop_reason`` "compaction_failed". Nothing here is
saved apart: a pause or a checkpoint saves the conversation as it is, compacted or not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from hookline.agent.messages import Message, Usage
from hookline.agent.model import ModelClient, StreamingModelClient
from hookline.agent.model_calls import RequestStopped, Unsendable, answered, prepared
from hookline.agent.replies import contexts
from hookline.agent.told import ModelCalled
from hookline.agent.transcript import Transcript
from hookline.errors import ModelError
from hookline.events import (
    PostCompact,
    PreCompact,
    SessionStart,
)

if TYPE_CHECKING:
    from hookline.agent.conversation import Seat
    from hookline.agent.options import AgentOptions
    from hookline.agent.session import Session
    from hookline.agent.state import Turn

Trigger = Literal["manual", "auto"]

#: The system prompt of the summary request (the agent's own is about working with tools).
SUMMARY_SYSTEM = (
    "You summarise a conversation between a user and an agent that works with tools, so that "
    "the agent can carry on with the work from your summary alone."
)
#: What the summary request asks; the user's and the hooks' instructions follow it.
SUMMARY_REQUEST = """\
The conversation above is about to be replaced by your summary of it, and the work will go on \
from the summary alone: keep everything needed to carry on, and nothing else.

Cover, in this order:
1. The task: what the user asked for, in their own words where the wording matters.
2. Decisions and findings: what was decided, tried or ruled out, and why.
3. Files and commands: each file read, changed or created (its path, and what changed), and \
the commands that mattered, with their results.
4. Errors met, and how they were fixed.
5. Where the work stands: what is done, what is left, and the next step."""
REMINDER = "REMINDER: do not call any tools. Answer with the summary, as plain text, only."
#: What opens the conversation after a compaction, before the summary.
CONTINUED = (
    "This session continues an earlier conversation that was compacted to save context; "
    "the summary below stands for it."
)
#: Added after an automatic compaction, which happens in the middle of the work.
GO_ON = "Go on with the work where it stopped, without asking the user anything first."


@dataclass(frozen=True)
class Compaction:
    """What one compaction did: ``compacted``, ``blocked`` (by a PreCompact hook) or
    ``failed`` (nothing changed), and why."""

    status: Literal["compacted", "blocked", "failed"]
    trigger: Trigger
    #: Why it was blocked or failed, in one line.
    detail: str | None = None
    summary: str | None = None
    #: Where the transcript up to the compaction went.
    archive: Path | None = None
    #: Tokens the summary request used, when the model reported them.
    usage: Usage | None = None

    @property
    def compacted(self) -> bool:
        return self.status == "compacted"


class SummaryFailed(Exception):
    """The summary request gave no summary; the message says why, for the stop detail."""


def estimate_tokens(messages: Sequence[Message]) -> int:
    """The conversation's size in tokens, roughly: what the provider counted for the last
    reply that reported usage (its whole request, system prompt and tools included, plus the
    reply), and a token per four characters of the JSON of each message after it (of every
    message, when no reply reported usage). Cheap, and never a tokenizer's exact count."""
    counted, after = 0, 0
    for index in range(len(messages) - 1, -1, -1):
        usage = messages[index].usage
        if usage is not None:
            counted = usage.input_tokens + usage.output_tokens
            counted += usage.cache_read_input_tokens + usage.cache_creation_input_tokens
            after = index + 1
            break
    chars = sum(len(json.dumps(m.to_dict(), ensure_ascii=False)) for m in messages[after:])
    return counted + chars // 4


def due(options: AgentOptions, session: Session) -> bool:
    """Whether the conversation is over its budget: only the main conversation's (a subagent's
    is never compacted), and only once the model has answered since it began or was last
    compacted (so a summary over the budget is not summarised again and again)."""
    budget = options.compact_at_tokens
    if budget is None or session.scope.agent_id is not None:
        return False
    messages = session.messages
    if not any(m.role == "assistant" for m in reversed(messages)):
        return False
    return estimate_tokens(messages) >= budget


async def auto(seat: Seat, session: Session, turn: Turn) -> bool:
    """Compact before the next model request if the conversation is over its budget; True when
    the run must end: the summary failed (a PreCompact block lets the run go on uncompacted)."""
    if not due(seat.options, session):
        return False
    done = await compact(seat, session, "auto")
    if done.usage is not None:
        turn.usage = done.usage if turn.usage is None else turn.usage + done.usage
    if done.status != "failed":
        return False
    turn.stop_reason, turn.detail = "compaction_failed", done.detail
    return True


async def compact(
    seat: Seat, session: Session, trigger: Trigger, instructions: str | None = None
) -> Compaction:
    """Summarise ``session``'s conversation and go on from the summary (see the module)."""
    instructions = instructions.strip() if instructions and instructions.strip() else None
    if problem := _unfit(session.messages):
        return Compaction("failed", trigger, problem)
    session.transcript.flush()  # PreCompact hooks read the whole transcript
    event = session.scope.event(PreCompact, trigger=trigger, custom_instructions=instructions)
    asked = (await seat.engine.dispatch(event)).decision
    if asked.permission == "deny":
        reason = (asked.reason or "").strip() or "no reason given"
        detail = f"Compaction blocked by PreCompact hook: {reason}"
        return Compaction("blocked", trigger, detail)
    # a command's plain stdout is here as it printed it (facts.plain_stdout "instructions")
    request = summary_request(instructions, asked.additional_context)
    try:
        reply = await _summarised(seat, session, Message.user(request))
    except SummaryFailed as exc:
        return Compaction("failed", trigger, str(exc))
    summary = reply.text.strip()
    if problem := _unusable(reply, summary):
        return Compaction("failed", trigger, problem, usage=reply.usage)
    try:
        archive = _archived(session)
    except OSError as exc:
        why = f"the transcript could not be archived: {exc.strerror or exc}"
        return Compaction("failed", trigger, why, usage=reply.usage)
    await _restarted(seat, session, trigger, summary)
    return Compaction("compacted", trigger, summary=summary, archive=archive, usage=reply.usage)


def summary_request(instructions: str | None, from_hooks: Sequence[str]) -> str:
    """The request that ends the summary call: ours, then the user's instructions and the
    PreCompact hooks' (raw, as Claude Code adds them), then a reminder."""
    extra = [text for text in (instructions, *from_hooks) if text]
    added = ["Additional instructions:\n" + "\n\n".join(extra)] if extra else []
    return "\n\n".join([SUMMARY_REQUEST, *added, REMINDER])


def _unfit(messages: Sequence[Message]) -> str | None:
    """Why this conversation cannot be compacted now, or None."""
    if not messages:
        return "there is nothing to compact: the conversation is empty"
    if messages[-1].tool_calls:
        return "the conversation waits for tool results (a paused run): resume it first"
    return None


def _unusable(reply: Message, summary: str) -> str | None:
    if reply.tool_calls:
        names = ", ".join(call.name for call in reply.tool_calls)
        return f"the model answered the summary request with tool calls ({names}), not a summary"
    if not summary:
        return "the model answered the summary request with no text"
    return None


async def _summarised(seat: Seat, session: Session, request: Message) -> Message:
    """The model's answer to the conversation followed by ``request``, with no tools; its
    text is not streamed to ``on_text`` (it is no answer of the conversation)."""
    model = seat.model
    shown = await _before_request(seat, session, [*session.messages, request])
    try:
        with _unstreamed(model):
            reply = await model.complete(shown, [], system=SUMMARY_SYSTEM)
    except ModelError as exc:
        raise SummaryFailed(f"the summary request failed: {exc}") from None
    seat.stream.tell(ModelCalled, session, reply, model.name)
    await answered(seat.engine, session.scope, model.name, reply)
    return reply


async def _before_request(
    seat: Seat, session: Session, messages: list[Message]
) -> Sequence[Message]:
    """``messages`` as PreModelRequest hooks redact them and add to them (as for every request:
    a hook that hides secrets from the model hides them from the summary request too)."""
    scope, name = session.scope, seat.model.name
    try:
        return await prepared(seat.engine, scope, name, messages, system=SUMMARY_SYSTEM, tools=[])
    except RequestStopped as exc:
        why = str(exc) or "no reason given"
        raise SummaryFailed(f"a PreModelRequest hook stopped the summary request: {why}") from None
    except Unsendable as exc:
        raise SummaryFailed(str(exc)) from None


@contextmanager
def _unstreamed(model: ModelClient) -> Iterator[None]:
    """No ``on_text`` while inside: nothing is shown as it arrives."""
    if not isinstance(model, StreamingModelClient) or model.on_text is None:
        yield
        return
    sink, model.on_text = model.on_text, None
    try:
        yield
    finally:
        model.on_text = sink


def _archived(session: Session) -> Path:
    """Move the transcript so far to the first free ``<stem>.<n>.pre-compact.jsonl`` beside it
    and start the session's transcript again, empty, at the same path."""
    old = session.transcript
    old.touch()  # written out, and the file exists even if nothing was appended yet
    old.close()
    number = 1
    while (archive := old.path.with_name(f"{old.path.stem}.{number}.pre-compact.jsonl")).exists():
        number += 1
    old.path.rename(archive)
    session.transcript = Transcript(old.path, session_id=session.id, cwd=str(session.cwd))
    return archive


async def _restarted(seat: Seat, session: Session, trigger: Trigger, summary: str) -> None:
    """The conversation is the summary; then SessionStart (source compact), whose context
    follows the summary, and PostCompact."""
    opening = [CONTINUED, summary, *([GO_ON] if trigger == "auto" else [])]
    session.messages = []
    seat.add(session, Message.user("\n\n".join(opening)))
    session.transcript.flush()  # SessionStart and PostCompact hooks read it from the file
    start = session.scope.event(SessionStart, source="compact", model=seat.model.name)
    started = (await seat.engine.dispatch(start)).decision
    if notes := contexts(SessionStart.name, started):
        seat.add(session, Message.user(*notes))
        session.transcript.flush()
    event = session.scope.event(PostCompact, trigger=trigger, compact_summary=summary)
    await seat.engine.dispatch(event)

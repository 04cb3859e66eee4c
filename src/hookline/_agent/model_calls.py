"""What PreModelRequest hooks make of one request: the messages it sends instead (redaction)
and the context added to it. Neither touches the transcript: the next request starts again from
the conversation as it is, and its hooks redact it again.

A redaction is ``Decision.rewrite({"messages": [...]})`` in the shape the event shows. Redaction
must never silently fail, so what cannot be applied soundly ends the run before the call
(``Unsendable``): a rewrite that is not valid messages, or two hooks that rewrite differently
(each saw the original, so neither result holds the other's redaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from hookline._agent.messages import Message, TextBlock
from hookline._agent.replies import contexts
from hookline._agent.saved.state import conversation
from hookline._events import PostModelResponse, PreModelRequest
from hookline._hooks.engine import HookRun

if TYPE_CHECKING:
    from hookline._events import Scope
    from hookline._hooks.engine import HookEngine


class Unsendable(Exception):
    """The hooks' rewrites cannot be applied; the message says why, for the stop detail."""


class RequestStopped(Unsendable):
    """A PreModelRequest hook said ``continue: false``; the message is its stop reason."""


async def prepared(
    engine: HookEngine,
    scope: Scope,
    model: str,
    messages: Sequence[Message],
    *,
    system: str | None,
    tools: Sequence[dict[str, Any]],
) -> Sequence[Message]:
    """What one request to ``model`` offering ``tools`` (their specs) sends: ``messages`` as
    PreModelRequest hooks redact them and add to them. Unsendable when their rewrites cannot be
    applied, RequestStopped when one stops the run. Built only when a hook listens: it copies
    the conversation."""
    if not engine.registry.plan(PreModelRequest.name).specs:
        return messages
    event = scope.event(
        PreModelRequest,
        model=model,
        messages=[m.to_dict() for m in messages],
        system=system,
        tools=[spec["name"] for spec in tools],
    )
    asked = await engine.dispatch(event)
    shown = redacted(messages, asked.live)
    if not asked.decision.continue_:
        raise RequestStopped(asked.decision.stop_reason or "")
    return with_context(shown, contexts(PreModelRequest.name, asked.decision))


async def answered(engine: HookEngine, scope: Scope, model: str, reply: Message) -> None:
    """Fire PostModelResponse for ``reply`` (only when a hook listens); its hooks observe."""
    if engine.registry.plan(PostModelResponse.name).specs:
        usage = reply.usage.to_dict() if reply.usage is not None else None
        event = scope.event(PostModelResponse, model=model, message=reply.to_dict(), usage=usage)
        await engine.dispatch(event)


def redacted(messages: Sequence[Message], runs: Sequence[HookRun]) -> Sequence[Message]:
    """``messages`` as the hooks' rewrites say to send them (unchanged when none rewrote)."""
    rewrites = [
        r.answer.updated_input
        for r in runs
        if r.kind != "observer" and r.answer.updated_input is not None
    ]
    if not rewrites:
        return messages
    if any(r != rewrites[0] for r in rewrites[1:]):
        raise Unsendable("PreModelRequest hooks rewrote the messages differently; not sent")
    try:
        return conversation(rewrites[0].get("messages"))
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in error["loc"])
        raise Unsendable(
            f"a PreModelRequest hook rewrote the messages invalidly ({where}: {error['msg']}); "
            'answer Decision.rewrite({"messages": [...]}) in the shape the event shows'
        ) from None


def with_context(messages: Sequence[Message], notes: Sequence[str]) -> Sequence[Message]:
    """``messages`` with ``notes`` after the last user message's content (a new user message
    if the conversation ends with the model's)."""
    if not notes:
        return messages
    added = tuple(TextBlock(n) for n in notes)
    if messages and messages[-1].role == "user":
        last = messages[-1]
        return [*messages[:-1], Message("user", last.content + added, last.usage)]
    return [*messages, Message("user", added)]

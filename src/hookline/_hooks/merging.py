"""What one dispatch's answers come to: the rewrites a hook sees, and the merged decision.

Transformers run one after another, each on the event as the previous one rewrote it
(``rewritten``); the gates see the last rewrite. ``decide`` merges every answer with
``decisions.merge``, reading rewrites as patches against the event the gates saw, and carries
the transformers' rewrites into the decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hookline._decisions import UNCHANGED, Decision, merge
from hookline._support.frozen import freeze

if TYPE_CHECKING:
    from hookline._events import HookEvent


def decide(answers: list[Decision], event: HookEvent, seen: HookEvent) -> Decision:
    """Merge the answers; rewrites are patches against the event as the gates saw it."""
    merged = merge(
        answers,
        base_input=seen.tool_input if seen.rewrites_input else None,  # type: ignore[attr-defined]
        base_output=seen.tool_response if seen.rewrites_output else UNCHANGED,  # type: ignore[attr-defined]
    )
    return _final(merged, event, seen)


def rewritten(event: HookEvent, answer: Decision) -> HookEvent:
    """The event as a later hook sees it, with the answer's rewrites applied (read-only)."""
    update: dict[str, Any] = {}
    if event.rewrites_input and answer.updated_input is not None:
        update["tool_input"] = freeze(answer.updated_input)
    if event.rewrites_output and answer.updated_output is not UNCHANGED:
        update["tool_response"] = freeze(answer.updated_output)
    return event.model_copy(update=update) if update else event


def _final(decision: Decision, event: HookEvent, seen: HookEvent) -> Decision:
    """Carry the transformers' rewrites into the merged decision; the input's not if it blocks."""
    if seen is event:
        return decision
    new_input, new_output = decision.updated_input, decision.updated_output
    if new_input is None and event.rewrites_input and decision.permission not in ("deny", "defer"):
        new_input = seen.tool_input  # type: ignore[attr-defined]
    if new_output is UNCHANGED and event.rewrites_output:
        new_output = seen.tool_response  # type: ignore[attr-defined]
    return decision.with_rewrites(new_input, new_output)

"""What the loop tells the model between its calls: hook context, tool results, refusals."""

from __future__ import annotations

from typing import TYPE_CHECKING

import hookline._wording as wording
from hookline._agent.messages import Block, Message, TextBlock, ToolResultBlock
from hookline._agent.saved.state import Turn
from hookline._decisions import Decision
from hookline._tools.base import ToolResult

if TYPE_CHECKING:
    from hookline._events import HookEvent
    from hookline._hooks.engine import HookRun


def refused(decision: Decision, turn: Turn) -> bool:
    """Settle a UserPromptSubmit decision that ends the turn before the model sees the prompt.
    ``continue: false`` wins over a block, as in Claude Code: a hook that exits 2 (or answers
    ``decision: block``) with ``{"continue": false, "stopReason": T}`` stops with T."""
    if not decision.continue_:
        turn.stop_reason, turn.detail = "hook_stopped", decision.stop_reason
        turn.final_text = f"Operation stopped by hook: {decision.stop_reason or ''}".rstrip()
        return True
    if decision.permission == "deny":
        reason = decision.reason or "blocked by a UserPromptSubmit hook"
        turn.stop_reason, turn.detail = "prompt_blocked", reason
        turn.final_text = wording.prompt_blocked(reason, turn.prompt)
        return True
    return False


def contexts(event: str, decision: Decision) -> list[str]:
    return [wording.reminder(text) for text in wording.contexts(event, None, decision)]


def late(finished: list[tuple[HookEvent, HookRun]]) -> list[str]:
    """What background (``async``) hooks that finished since the model's last call tell it:
    their additional context and system messages, as Claude Code delivers them a turn later."""
    notes: list[str] = []
    for event, run in finished:
        label = event.match_value()
        notes += wording.contexts(event.name, label, run.answer)
        notes += [wording.context(event.name, label, text) for text in run.answer.system_message]
    return [wording.reminder(note) for note in notes]


def results_message(results: list[ToolResult], after: Decision) -> Message:
    blocks: list[Block] = [ToolResultBlock(r.call.id, r.content, r.is_error) for r in results]
    blocks += [TextBlock(wording.reminder(note)) for r in results for note in r.context]
    blocks += [TextBlock(text) for text in contexts("PostToolBatch", after)]
    return Message("user", tuple(blocks))

"""What the loop tells the model between its calls: hook context, tool results, refusals."""

from __future__ import annotations

from hookline.agent.messages import Block, Message, TextBlock, ToolResultBlock
from hookline.agent.state import Turn
from hookline.claude import wording
from hookline.decisions import Decision
from hookline.tools.base import ToolResult


def refused(decision: Decision, turn: Turn) -> bool:
    """Settle a UserPromptSubmit decision that ends the turn before the model sees the prompt."""
    if decision.permission == "deny":
        reason = decision.reason or "blocked by a UserPromptSubmit hook"
        turn.stop_reason, turn.detail = "prompt_blocked", reason
        turn.final_text = wording.prompt_blocked(reason, turn.prompt)
        return True
    if not decision.continue_:
        turn.stop_reason, turn.detail = "hook_stopped", decision.stop_reason
        turn.final_text = f"Operation stopped by hook: {decision.stop_reason or ''}".rstrip()
        return True
    return False


def contexts(event: str, decision: Decision) -> list[str]:
    return [wording.reminder(text) for text in wording.contexts(event, None, decision)]


def results_message(results: list[ToolResult], after: Decision) -> Message:
    blocks: list[Block] = [ToolResultBlock(r.call.id, r.content, r.is_error) for r in results]
    blocks += [TextBlock(wording.reminder(note)) for r in results for note in r.context]
    blocks += [TextBlock(text) for text in contexts("PostToolBatch", after)]
    return Message("user", tuple(blocks))

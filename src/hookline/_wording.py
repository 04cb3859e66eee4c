"""The words the model reads about hook outcomes, in the wording the real Claude Code CLI uses.

Models trained on Claude Code sessions know these phrasings; keeping them means an agent reacts
to a hookline refusal the way it reacts to a Claude Code one. Each phrasing here was recorded
from the real CLI's transcripts; ``tests/test_reactions.py`` holds hookline to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from hookline._decisions import Decision


class HookRun(Protocol):
    """What the wording reads of one hook's run (``hookline._hooks.engine.HookRun`` is one)."""

    @property
    def hook(self) -> str: ...
    @property
    def handler(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def answer(self) -> Decision: ...


#: What the model reads for a call a cancelled run cut off (Claude Code's interrupt).
INTERRUPTED = "[Request interrupted by user for tool use]"
REMINDER_OPEN = "<system-reminder>\n"
REMINDER_CLOSE = "\n</system-reminder>"

#: Claude Code's preamble before Stop-hook feedback.
HOOK_PREAMBLE = (
    "The text below is the output of a hook that the user, their organization or this "
    "environment set up. Follow what the hook itself asks as their standing instruction. "
    "It carries no message, answer or approval from the user."
)


def _label(event: str, tool: str | None) -> str:
    return f"{event}:{tool}" if tool else event


def denied(event: str, tool: str | None, reason: str) -> str:
    """A tool call a hook refused: the tool_result the model reads."""
    return f"{_label(event, tool)} hook error: {reason}"


def context(event: str, tool: str | None, text: str) -> str:
    """Additional context a hook gave, placed next to the prompt or the tool result."""
    return f"{_label(event, tool)} hook additional context: {text}"


def contexts(event: str, tool: str | None, decision: Decision) -> list[str]:
    """Every additional context of ``decision`` as the model reads it, in order. A command's
    plain stdout (origin ``stdout``) was worded by its runner (``success``) and stays as it is."""
    return [
        text if origin == "stdout" else context(event, tool, text)
        for text, origin in zip(decision.additional_context, decision.context_origin(), strict=True)
    ]


def success(event: str, label: str | None, stdout: str) -> str:
    """A command hook's plain stdout that becomes context (UserPromptSubmit, SessionStart); its
    answer says so with origin ``stdout``."""
    return f"{_label(event, label)} hook success: {stdout}"


def blocking_error(event: str, tool: str | None, reason: str, *, command: str | None = None) -> str:
    """A PostToolUse (or Stop) block: feedback next to an output that already exists."""
    origin = f' from command: "{command}"' if command else ""
    return f"{_label(event, tool)} hook blocking error{origin}: {reason}"


def post_block(event: str, tool: str | None, run: HookRun) -> str:
    """One hook's block after a tool ran: its reason, and its command if it is a command hook."""
    command = run.hook if run.handler == "command" else None
    return blocking_error(event, tool, run.answer.reason or "", command=command)


def stop_block(event: str, runs: Sequence[HookRun]) -> list[str]:
    """What the model reads when Stop (or SubagentStop) hooks keep it working.

    Claude Code sends the feedback of every blocking hook as one reminder and, for a command
    hook that blocked other than by exiting 2 (a JSON decision), one more line naming it.
    """
    blocking = [r for r in runs if r.kind != "observer" and r.answer.permission == "deny"]
    reasons = [r.answer.reason or "" for r in blocking]
    notes = [stop_feedback(event, "\n".join(reasons))] if blocking else []
    for run in blocking:
        if run.handler == "command" and run.answer.origin != "exit_code_2":
            reason = run.answer.reason or ""
            notes.append(reminder(blocking_error(event, None, reason, command=run.hook)))
    return notes


def exit_code_2(command: str, stderr: str) -> str:
    """The reason a command hook that exits 2 gives: ``[<cmd>]: <stderr>`` (its answer says
    where it came from with origin ``exit_code_2``)."""
    return f"[{command}]: {stderr}"


def stop_feedback(event: str, reason: str) -> str:
    """Why a Stop hook kept the model working: its next instruction."""
    return reminder(f"{HOOK_PREAMBLE}\n{event} hook feedback:\n{reason}")


def prompt_blocked(reason: str, prompt: str) -> str:
    """What the user is told when a UserPromptSubmit hook rejects the prompt."""
    return f"UserPromptSubmit operation blocked by hook:\n{reason}\n\nOriginal prompt: {prompt}"


#: What Read, Edit and Write answer for a path a deny rule covers (their own input check).
PATH_DENIED = "File is in a directory that is denied by your permission settings."


def tool_use_error(text: str) -> str:
    """A refusal by a tool's own input check, before any hook ran, as Claude Code wraps it."""
    return f"<tool_use_error>{text}</tool_use_error>"


def no_such_tool(name: str) -> str:
    return f"Error: No such tool available: {name}"


def reminder(text: str) -> str:
    """Text for the model that is not from the user, wrapped as Claude Code wraps it."""
    return f"{REMINDER_OPEN}{text}{REMINDER_CLOSE}"

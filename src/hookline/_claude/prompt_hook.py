"""Claude Code ``prompt`` hooks: a model is asked to judge the event and answers ``{ok, reason}``.

    {"type": "prompt", "prompt": "Refuse anything that deletes data. $ARGUMENTS",
     "model": "anthropic:claude-haiku-4-5", "timeout": 30, "onFailure": "block"}

``$ARGUMENTS`` in the prompt becomes the event's JSON (the same payload a command hook reads on
stdin); a prompt without it gets the JSON appended. The judge answers one JSON object,
``{"ok": true}`` or ``{"ok": false, "reason": "..."}``; the one fenced ```json block of
an answer is read too.
``ok: true`` is no opinion (the permission rules still decide); ``ok: false`` is the event's
block, as Claude Code reads it:

* Stop, SubagentStop, TaskCompleted, TeammateIdle: the reason is the next instruction and the
  run keeps working (unless the judge also says ``"impossible": true``: then the run may stop,
  and the reason is shown to the user).
* PreToolUse, PostToolUse, PostToolBatch, UserPromptSubmit, UserPromptExpansion: a deny with
  the reason, and the turn ends; with ``"continueOnBlock": true`` the reason goes back to the
  model as the tool's error and the turn goes on (PreToolUse, PostToolUse).
* PostToolUseFailure, TaskCreated: a deny with the reason (a tool error), and the turn goes on.
* PermissionRequest, PermissionDenied: no effect.

Other events do not take prompt hooks (a load error, as in Claude Code). An answer that is not
such JSON, a judge that fails, or one that overruns its timeout (30 seconds unless the handler
says) is a hook failure: it fails open unless the handler says ``"onFailure": "block"``.

This layer cannot know models: whoever loads the settings hands in a ``JudgeFactory`` that
turns the handler's ``model`` value (None: the default) into a ``Judge``. Each handler gets its
own, never the agent's model, whose conversation it must not touch. ``agent`` hooks
(``hookline._claude.agent_hook``) are the same ``JudgeHook`` with a model that may read files first.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final

from hookline._decisions import Decision
from hookline._errors import HookFailure, InvalidHookOutput
from hookline._events import event_class
from hookline._hooks.runners import HookRunner

if TYPE_CHECKING:
    from hookline._events import HookEvent

#: Asks a model: ``judge(system, prompt)`` is the text of its answer.
Judge = Callable[[str, str], Awaitable[str]]
#: Makes the judge for a handler's ``model`` value (None: the default model); raises a
#: ConfigError when that model cannot be had.
JudgeFactory = Callable[[str | None], Judge]

#: Seconds a prompt hook gets when it sets no ``timeout`` (Claude Code's default).
PROMPT_TIMEOUT: Final = 30.0
ARGUMENTS: Final = "$ARGUMENTS"

SYSTEM: Final = (
    "You judge one event of an AI agent's run against the rule the user gives you. "
    'Answer with one JSON object and nothing else: {"ok": true} when the rule is met, or '
    '{"ok": false, "reason": "..."} when it is not, the reason saying what is wrong and what '
    "to do instead (the agent reads it)."
)
_FENCED: Final = re.compile(r"```(?:json)?[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)


class JudgeFailed(HookFailure):
    """A prompt or agent hook's model could not be asked, or failed to answer."""

    kind = "judge_error"
    failed = "failed"


class JudgeHook(HookRunner):
    """A hook a model answers with ``{ok, reason}``: the prompt filled with the event, the answer
    read, and what ``ok: false`` means on the event. ``ask`` is how the model is asked: one
    question (``PromptHook``) or an investigation with tools (``hookline._claude.agent_hook``)."""

    in_process = False
    inline = False
    #: What the model is told before the prompt.
    system: ClassVar[str] = SYSTEM
    #: Whether ``"impossible": true`` lets a Stop end (Claude Code: prompt hooks only).
    takes_impossible: ClassVar[bool] = True

    def __init__(self, prompt: str, *, model: str | None, continue_on_block: bool) -> None:
        self.prompt = prompt
        self.model = model
        self.continue_on_block = continue_on_block
        self.key = (self.handler, prompt, model, continue_on_block)

    async def ask(self, question: str, event: HookEvent) -> str:
        """The text of the model's answer to ``question`` about ``event``."""
        raise NotImplementedError

    def describe(self) -> str:
        first = self.prompt.strip().splitlines()[0] if self.prompt.strip() else ""
        return f"{self.handler} {first[:60]!r}" + (f" on {self.model}" if self.model else "")

    async def run(self, event: HookEvent) -> Decision | None:
        asked = fill(self.prompt, event.to_payload())
        try:
            text = await self.ask(asked, event)
        except HookFailure:
            raise
        except Exception as exc:  # whatever the model client raises, the hook failed
            raise JudgeFailed(f"the {self.handler} hook's model failed: {exc}") from None
        ok, reason, impossible = read_answer(text)
        if ok:
            return None
        return self._blocked(event.name, reason, impossible and self.takes_impossible)

    def _blocked(self, event: str, reason: str, impossible: bool) -> Decision | None:
        effect = event_class(event).facts.judged
        if effect in (None, "none"):
            return None
        if effect == "keep":
            return Decision.message(reason) if impossible else Decision.deny(reason)
        if effect == "end" and not self.continue_on_block:
            return Decision("deny", reason, continue_=False, stop_reason=reason)
        return Decision.deny(reason)


class PromptHook(JudgeHook):
    """Asks ``judge`` about each event with ``prompt``, and reads ``{ok, reason}``."""

    handler = "prompt"

    def __init__(
        self,
        prompt: str,
        judge: Judge,
        *,
        model: str | None = None,
        continue_on_block: bool = False,
    ) -> None:
        super().__init__(prompt, model=model, continue_on_block=continue_on_block)
        self.judge = judge

    async def ask(self, question: str, event: HookEvent) -> str:
        return await self.judge(self.system, question)


def fill(prompt: str, payload: dict[str, Any]) -> str:
    """The prompt with ``$ARGUMENTS`` replaced by the event's JSON (appended if absent)."""
    arguments = json.dumps(payload, ensure_ascii=False)
    if ARGUMENTS in prompt:
        return prompt.replace(ARGUMENTS, arguments)
    return f"{prompt}\n\n{arguments}"


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({key for key, _ in pairs}) != len(pairs):
        raise ValueError("a key is given twice")
    return dict(pairs)


def read_answer(text: str) -> tuple[bool, str, bool]:
    """``ok``, the reason and ``impossible`` from the judge's text; InvalidHookOutput if it is
    not ``{"ok": true|false, "reason"?: "..."}``, alone or as the one fenced block in it. A key
    given twice (``{"ok": false, "ok": true}``) is not an answer: JSON readers disagree on it."""
    body = text.strip()
    if len(fenced := _FENCED.findall(body)) == 1:
        body = fenced[0].strip()
    try:
        data = json.loads(body, object_pairs_hook=_unique)
    except (json.JSONDecodeError, ValueError):
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
        shown = text.strip()[:120] or "(no text)"
        raise InvalidHookOutput(f'the judge did not answer {{"ok": true|false}}: {shown}')
    reason = data.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        reason = "the prompt hook's judge said no (it gave no reason)"
    return data["ok"], reason, data.get("impossible") is True

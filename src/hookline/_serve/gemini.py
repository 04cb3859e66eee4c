"""A Gemini CLI hook judged: its payload read as hookline's event (``hookline._hosts.gemini``),
ruled by the judge, the ruling made what Gemini can carry out and answered in its words.

A tool call (``BeforeTool``) fails closed here as on ``/claude-code``: a payload that cannot be
read as one is a deny saying why, and the judge denies what it cannot judge.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from hookline._errors import ConfigError
from hookline._events import PreToolUse
from hookline._hosts import gemini
from hookline._serve.adapted import Adapted
from hookline._serve.judge import failed_closed

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline._serve.judge import Rules, Ruling

HOST: Final = gemini.HOST
NO_ANSWER: Final = gemini.NO_ANSWER


async def rule(judge: Rules, payload: Mapping[str, Any]) -> Adapted | None:
    """The ruling of Gemini's ``payload``; None for an event hookline does not judge. A
    ConfigError when it is not an event and refuses nothing."""
    try:
        event = gemini.event_payload(payload)
    except ConfigError as exc:
        if payload.get("hook_event_name") != gemini.REFUSING:
            raise
        return Adapted(
            answered(failed_closed(PreToolUse.name, payload, str(exc)), payload), payload
        )
    if event is None:
        return None
    return Adapted(answered(await judge.rule(event), payload), event)


def answered(ruling: Ruling, payload: Mapping[str, Any]) -> Ruling:
    """``ruling`` as Gemini carries it out (an ask is a deny) and its answer in Gemini's words."""
    decision = gemini.effective(str(payload.get("hook_event_name")), ruling.decision)
    return replace(ruling, decision=decision, answer=gemini.answer(payload, decision))

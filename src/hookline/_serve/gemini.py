"""A Gemini CLI hook judged: its payload read as hookline's event (``hookline._hosts.gemini``),
ruled by the judge, the ruling made what Gemini can carry out and answered in its words.

A tool call (``BeforeTool``) fails closed here as on ``/claude-code``: a payload that cannot be
read as one is a deny saying why, and the judge denies what it cannot judge.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from hookline._hosts import gemini
from hookline._serve.adapted import Adapted, rule_mapped

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline._serve.judge import Rules, Ruling

HOST: Final = gemini.HOST
NO_ANSWER: Final = gemini.NO_ANSWER


async def rule(judge: Rules, payload: Mapping[str, Any]) -> Adapted | None:
    """The ruling of Gemini's ``payload`` (``adapted.rule_mapped``)."""
    return await rule_mapped(
        judge, payload, gemini.event_payload, frozenset({gemini.REFUSING}), answered
    )


def answered(ruling: Ruling, payload: Mapping[str, Any]) -> Ruling:
    """``ruling`` as Gemini carries it out (an ask is a deny) and its answer in Gemini's words."""
    decision = gemini.effective(str(payload.get("hook_event_name")), ruling.decision)
    return replace(ruling, decision=decision, answer=gemini.answer(payload, decision))

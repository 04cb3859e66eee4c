"""A Cursor hook judged: its payload read as hookline's event (``hookline._hosts.cursor``),
ruled by the judge, the ruling made what Cursor can carry out and answered in its words.

A tool call (a before-event, or ``preToolUse``) fails closed here as on ``/claude-code``: a
payload that cannot be read as one is a deny saying why, and the judge denies what it cannot
judge.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from hookline._hosts import cursor
from hookline._serve.adapted import Adapted, rule_mapped

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline._serve.judge import Rules, Ruling

HOST: Final = cursor.HOST
NO_ANSWER: Final = cursor.NO_ANSWER


async def rule(judge: Rules, payload: Mapping[str, Any]) -> Adapted | None:
    """The ruling of Cursor's ``payload`` (``adapted.rule_mapped``)."""
    return await rule_mapped(
        judge, payload, cursor.event_payload, cursor.PERMISSION_EVENTS, answered
    )


def answered(ruling: Ruling, payload: Mapping[str, Any]) -> Ruling:
    """``ruling`` as Cursor carries it out (an ask is a deny) and its answer in Cursor's words."""
    name = str(payload.get("hook_event_name"))
    decision = cursor.effective(name, ruling.decision)
    return replace(ruling, decision=decision, answer=cursor.answer(name, decision))

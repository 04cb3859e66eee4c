"""A Codex CLI hook judged: its payload read as hookline's event (``hookline._hosts.codex``),
ruled by the judge, the ruling made what Codex can carry out and answered in its words.

An ``apply_patch`` is judged as each file change it makes (``hookline._hosts.codex_patch``),
and the patch gets the strongest of their answers (deny > defer > ask > allow), each reason
naming its file. A change a hook rewrites refuses the patch: a patch cannot carry another
input, and running the unrewritten one would skip the hook. A tool call fails closed here as on
``/claude-code``: a payload that cannot be read is a deny saying why.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final

from hookline._decisions import Decision, merge
from hookline._errors import ConfigError
from hookline._hosts import codex, codex_patch
from hookline._serve.adapted import Adapted
from hookline._serve.judge import Ruling, failed_closed

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hookline._serve.judge import Rules

HOST: Final = codex.HOST
NO_ANSWER: Final = codex.NO_ANSWER
REFUSING: Final = codex.REFUSING


async def rule(judge: Rules, payload: Mapping[str, Any]) -> Adapted | None:
    """The ruling of Codex's ``payload``; None for an event hookline does not judge. A
    ConfigError when it is not an event and refuses nothing."""
    event = codex.event_payload(payload)
    if event is None:
        return None
    if event["hook_event_name"] == REFUSING and event.get("tool_name") == codex.PATCH_TOOL:
        try:
            return Adapted(answered(await _patch(judge, event), event), event)
        except ConfigError as exc:
            return Adapted(answered(failed_closed(REFUSING, event, str(exc)), event), event)
    return Adapted(answered(await judge.rule(event), event), event)


def answered(ruling: Ruling, payload: Mapping[str, Any]) -> Ruling:
    """``ruling`` as Codex carries it out, and its answer in Codex's words."""
    decision = codex.effective(ruling.event, ruling.decision)
    said = codex.answer(ruling.event, payload.get("tool_name"), decision)
    return replace(ruling, decision=decision, answer=said)


async def _patch(judge: Rules, event: Mapping[str, Any]) -> Ruling:
    """An ``apply_patch`` ruled as the calls that make its changes."""
    tool_input = event.get("tool_input")
    patch = tool_input.get("command") if isinstance(tool_input, dict) else None
    cwd = event.get("cwd")
    if not isinstance(cwd, str):
        raise ConfigError("the body has no cwd", fix="send Codex's hook event JSON")
    made = codex_patch.calls(patch, cwd)
    rulings = []
    for number, (tool, call_input) in enumerate(made, start=1):
        call_id = f"{event.get('tool_use_id')}#{number}"
        one = {**event, "tool_name": tool, "tool_input": call_input, "tool_use_id": call_id}
        ruled = await judge.rule(one)
        if ruled.failure is not None:
            return replace(ruled, tool=codex.PATCH_TOOL, tool_use_id=_text(event, "tool_use_id"))
        rulings.append((tool, call_input, ruled))
    decision = _merged([(_target(tool, args), ruled.decision) for tool, args, ruled in rulings])
    deciding = next(
        (r for _, _, r in rulings if r.decision.permission == decision.permission), None
    )
    return Ruling(
        REFUSING,
        decision,
        {},
        origin=None if deciding is None else deciding.origin,
        session_id=_text(event, "session_id"),
        cwd=cwd,
        tool=codex.PATCH_TOOL,
        tool_use_id=_text(event, "tool_use_id"),
        project=rulings[0][2].project if rulings else None,
    )


def _merged(decisions: list[tuple[str, Decision]]) -> Decision:
    """The patch's answer from its changes' (``target``, decision): the strongest, each
    reason naming its file; a rewrite anywhere refuses it."""
    rewritten = [target for target, decision in decisions if decision.updated_input is not None]
    if rewritten:
        why = (
            f"a PreToolUse hook rewrote the change of {', '.join(rewritten)}, and a patch "
            "cannot carry a rewritten input: make the change as the hook would have it"
        )
        return Decision("deny", why, origin="hook")
    named = [
        replace(decision, reason=f"{target}: {decision.reason}" if decision.reason else None)
        for target, decision in decisions
    ]
    return merge(named)


def _target(tool: str, tool_input: Mapping[str, Any]) -> str:
    return str(tool_input.get("file_path") or tool_input.get("command") or tool)


def _text(payload: Mapping[str, Any], key: str) -> str | None:
    value = payload.get(key)
    return value if isinstance(value, str) else None

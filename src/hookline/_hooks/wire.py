"""The Claude Code hook protocol the other way round: a host's payload read into an event, and a
``Decision`` written as the JSON answer the host reads.

``hookline._hooks.protocol`` reads a hook's answer into a ``Decision``; this module is its
mirror, for when hookline is the hook (``hookline serve``). ``event_from_payload`` keeps the
fields hookline's event has and says which it left out (Claude Code sends more than hookline
models: ``effort``, ``permission_suggestions``, ...); ``answer_for`` writes each event's
decision in the pattern Claude Code reads for it (``hookSpecificOutput.permissionDecision`` for
PreToolUse, ``hookSpecificOutput.decision`` for PermissionRequest, a top-level ``decision:
"block"`` for the events that block that way), so that ``decision_from_output`` reads back what
was written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from pydantic import ValidationError

from hookline._decisions import UNCHANGED
from hookline._errors import ConfigError
from hookline._events import PermissionRequest, PreToolUse, event_class

if TYPE_CHECKING:
    from collections.abc import Callable

    from pydantic_core import ErrorDetails

    from hookline._decisions import Decision
    from hookline._events import HookEvent

    #: What words a fix from the validation errors of a payload.
    Fixer: TypeAlias = Callable[[list[ErrorDetails]], str]

_SEND: Final = "send the hook's event JSON"


def event_from_payload(
    payload: Mapping[str, Any], *, fix: Fixer | None = None
) -> tuple[HookEvent, tuple[str, ...]]:
    """The event a host's ``payload`` describes, and the fields of it hookline's event has not
    (left out). A ConfigError naming the problem when it is not one hookline runs; ``fix``
    words its fix from pydantic's errors (default: send the event's JSON)."""
    name = payload.get("hook_event_name")
    if not isinstance(name, str):
        raise ConfigError("the body has no hook_event_name", fix=_SEND)
    cls = event_class(name, key="hook_event_name")
    known = cls.model_fields
    ignored = tuple(sorted(key for key in payload if key not in known))
    try:
        event = cls.model_validate({k: v for k, v in payload.items() if k in known})
    except ValidationError as exc:
        errors = exc.errors()
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
        said = fix(errors) if fix is not None else _SEND
        raise ConfigError(f"not a {name} event: {problems}", key="event", fix=said) from None
    return event, ignored


def answer_for(event_name: str, decision: Decision) -> dict[str, Any]:
    """``decision`` as the JSON answer Claude Code reads from a hook of ``event_name`` (one
    hookline runs): ``{}`` when it says nothing. What each event can say is its facts'
    (``EventFacts``): a deny blocks with a top-level ``decision`` where exit code 2 blocks."""
    facts = event_class(event_name).facts
    answer: dict[str, Any] = {}
    specific: dict[str, Any] = {}
    if event_name == PreToolUse.name:
        specific = _pre_tool_use(decision)
    elif event_name == PermissionRequest.name:
        specific = _permission_request(decision)
    elif facts.exit_2 == "blocks" and decision.permission == "deny":
        answer |= {"decision": "block", "reason": decision.reason or "blocked by hookline"}
    if facts.refuses == "output" and decision.updated_output is not UNCHANGED:
        specific["updatedToolOutput"] = decision.updated_output
    if "context" in facts.answers and decision.additional_context:
        specific["additionalContext"] = "\n\n".join(decision.additional_context)
    if specific:
        answer["hookSpecificOutput"] = {"hookEventName": event_name, **specific}
    if decision.system_message:
        answer["systemMessage"] = "\n".join(decision.system_message)
    if not decision.continue_:
        answer["continue"] = False
        if decision.stop_reason:
            answer["stopReason"] = decision.stop_reason
    return answer


def _pre_tool_use(decision: Decision) -> dict[str, Any]:
    specific: dict[str, Any] = {}
    if decision.permission is not None:
        specific["permissionDecision"] = decision.permission
    if decision.reason and decision.permission is not None:
        specific["permissionDecisionReason"] = decision.reason
    if decision.updated_input is not None:
        specific["updatedInput"] = decision.updated_input
    return specific


def _permission_request(decision: Decision) -> dict[str, Any]:
    """Only allow and deny are answers here; anything else leaves the host's prompt to ask."""
    if decision.permission == "allow":
        verdict: dict[str, Any] = {"behavior": "allow"}
        if decision.updated_input is not None:
            verdict["updatedInput"] = decision.updated_input
        return {"decision": verdict}
    if decision.permission == "deny":
        message = decision.reason or "denied by hookline"
        return {"decision": {"behavior": "deny", "message": message}}
    return {}

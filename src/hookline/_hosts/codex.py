"""Codex CLI's hooks as hookline's events, and hookline's decisions as the answers Codex reads.

Codex runs command hooks only (``hooks.json`` or ``[hooks]`` in ``config.toml``): the event's
JSON on stdin, with Claude Code's event names and fields (``session_id``, ``cwd``,
``tool_name``, ``tool_input``, ``tool_use_id``, ``permission_mode``, and its own ``turn_id``
and ``model``). Exit code 2 with a reason on stderr blocks; any other failure, and an answer
Codex cannot read, fails open (the tool runs). ``hookline install codex``
(``hookline._hosts.codex_settings``) installs a ``curl`` line that posts the event to
``hookline serve`` (``POST /codex``) and exits 2 with a reason when the server cannot answer.

Codex reads an answer strictly: an object with a field it does not know, or a decision it does
not support, is a failed hook, and the tool runs. So each answer here holds only what Codex
reads for its event, and what Codex cannot carry out is turned into what it can:

- ``PreToolUse`` can deny, and allow only with a rewritten input (a bare allow is an error to
  Codex: the allow is left out, and Codex's own approval policy goes on). It cannot ask, so
  hookline's ask (and a hook's defer) is a deny saying how to let the call through; it cannot
  stop the run, so a stop is a deny too.
- ``PermissionRequest`` (Codex is about to ask its user) can allow or deny; an ask leaves
  Codex's prompt to ask, and so does an allow that rewrites the input (Codex cannot take one).
- ``PostToolUse`` can block with a reason, add context and replace the output.
- ``apply_patch`` is judged as the file changes it makes (``hookline._hosts.codex_patch``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from hookline._decisions import UNCHANGED, Decision
from hookline._errors import ConfigError
from hookline._events import (
    PermissionRequest,
    PostCompact,
    PostToolUse,
    PreCompact,
    PreToolUse,
    SessionStart,
    Stop,
    UserPromptSubmit,
    event_class,
)

#: The server's route for Codex's hooks, and the host named on their records.
CODEX_PATH: Final = "/codex"
HOST: Final = "codex"
#: The answer that decides nothing: Codex's own approval policy goes on.
NO_ANSWER: Final[Mapping[str, Any]] = {}
#: Codex's hook events (its ``HookEventsToml``), which carry hookline's events' names, in the
#: order its configuration lists them.
CODEX_EVENTS: Final = tuple(
    cls.name
    for cls in (PreToolUse, PermissionRequest, PostToolUse, PreCompact, PostCompact,
                SessionStart, UserPromptSubmit, Stop)
)  # fmt: skip
#: Those hookline judges: not compaction, whose payloads are Codex's own (answered with nothing).
EVENTS: Final = frozenset(CODEX_EVENTS) - {PreCompact.name, PostCompact.name}
#: The event whose failure must refuse (a tool call): anything that goes wrong is a deny.
REFUSING: Final = PreToolUse.name
#: The events before a tool runs, where Codex takes no ``continue: false``.
_BEFORE_A_TOOL: Final = frozenset({PreToolUse.name, PermissionRequest.name})
#: Codex's tool that edits files.
PATCH_TOOL: Final = "apply_patch"
#: Where the way out of a refusal is told.
_HOW_TO_ALLOW: Final = (
    "Codex cannot ask from a hook, so it is refused. To let it through, allow it with a "
    "permission rule of hookline serve's settings, or run hookline break-glass (for a bounded "
    "time, Codex's own approval policy decides)"
)


def event_payload(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The hookline event Codex's ``payload`` describes (Codex's words are Claude Code's, but
    a session with no transcript file sends ``transcript_path: null``, read as ""); None for
    an event hookline does not judge. A ConfigError when it is not an event."""
    name = payload.get("hook_event_name")
    if not isinstance(name, str):
        raise ConfigError("the body has no hook_event_name", fix="send the hook's event JSON")
    if name not in EVENTS:
        return None
    event = dict(payload)
    if event.get("transcript_path", "") is None:
        event["transcript_path"] = ""
    return event


def effective(event_name: str, decision: Decision) -> Decision:
    """``decision`` as Codex can carry it out for ``event_name`` (``answer`` words it)."""
    if event_name == REFUSING:
        return _pre_tool_use(decision)
    if event_name == PermissionRequest.name:
        if not decision.continue_:
            return Decision("deny", decision.stop_reason or "hookline stops the run")
        if decision.permission == "allow" and decision.updated_input is not None:
            return replace(decision, permission=None, updated_input=None)  # a person decides
    return decision


def _pre_tool_use(decision: Decision) -> Decision:
    if not decision.continue_:
        why = decision.stop_reason or decision.reason or "hookline stops the run"
        return replace(decision, permission="deny", reason=why, continue_=True, stop_reason=None)
    if decision.permission in ("ask", "defer"):
        why = f"hookline would ask a person about this call ({decision.reason or 'no reason'})"
        return replace(decision, permission="deny", reason=f"{why}. {_HOW_TO_ALLOW}.")
    return decision


def answer(event_name: str, tool_name: object, decision: Decision) -> dict[str, Any]:
    """``decision`` (``effective`` already) as the JSON Codex reads from a hook of
    ``event_name`` about ``tool_name``: only fields Codex reads for that event. Codex's events
    answer as Claude Code's do (``EventFacts``: which block with a ``decision``, which take
    context), less what Codex refuses: a stop before a tool, context on Stop."""
    facts = event_class(event_name).facts
    said: dict[str, Any] = {}
    specific: dict[str, Any] = {}
    if event_name == REFUSING:
        specific = _pre_tool_use_fields(decision)
    elif event_name == PermissionRequest.name:
        specific = _permission_fields(decision)
    elif facts.exit_2 == "blocks" and decision.permission == "deny":
        said |= {"decision": "block", "reason": decision.reason or "blocked by hookline"}
    if event_name == PostToolUse.name and decision.updated_output is not UNCHANGED:
        mcp = isinstance(tool_name, str) and tool_name.startswith("mcp__")
        specific["updatedMCPToolOutput" if mcp else "updatedToolOutput"] = decision.updated_output
    # Codex's Stop has no hookSpecificOutput (Claude Code's takes context there)
    if "context" in facts.answers and decision.additional_context and event_name != Stop.name:
        specific["additionalContext"] = "\n\n".join(decision.additional_context)
    if specific:
        said["hookSpecificOutput"] = {"hookEventName": event_name, **specific}
    if decision.system_message:
        said["systemMessage"] = "\n".join(decision.system_message)
    if not decision.continue_ and event_name not in _BEFORE_A_TOOL:
        said["continue"] = False
        if decision.stop_reason:
            said["stopReason"] = decision.stop_reason
    return said


def _pre_tool_use_fields(decision: Decision) -> dict[str, Any]:
    if decision.permission == "deny":
        reason = (decision.reason or "").strip() or "refused by hookline"
        return {"permissionDecision": "deny", "permissionDecisionReason": reason}
    if decision.updated_input is not None:
        return {"permissionDecision": "allow", "updatedInput": decision.updated_input}
    return {}


def _permission_fields(decision: Decision) -> dict[str, Any]:
    if decision.permission == "deny":
        message = (decision.reason or "").strip() or "refused by hookline"
        return {"decision": {"behavior": "deny", "message": message}}
    if decision.permission == "allow":
        return {"decision": {"behavior": "allow"}}
    return {}

"""Cursor's agent hooks as hookline's events, and hookline's decisions as the answers Cursor
reads.

Cursor runs command hooks only (``hooks.json``: ``{"version": 1, "hooks": {event: [{"command":
...}]}}``), each given the event's JSON on stdin: ``hook_event_name`` (camelCase), the
``conversation_id`` and ``generation_id``, the ``workspace_roots``, and the event's own fields.
Exit code 2 denies; a hook marked ``failClosed`` blocks when it fails. ``hookline install
cursor`` (``hookline._hosts.cursor_settings``) installs a ``curl`` line posting the event to
``hookline serve`` (``POST /cursor``). This module is the mapping both ways, pure data:

- ``beforeShellExecution`` (``command``, ``cwd``) is judged as a PreToolUse of ``Bash``,
  ``beforeReadFile`` (``file_path``) of ``Read``, ``beforeMCPExecution`` (``tool_name``,
  ``tool_input``, JSON text or an object) of the MCP tool under its own name, and
  ``preToolUse`` of its ``tool_name`` (``Shell`` is Bash; any other is judged under its own
  name, by the hooks and the rules only; a tool of the same name as hookline's checks its
  input, and refuses one it does not know). Their answer is ``permission``, with the reason
  for the user (``user_message``) and the model (``agent_message``).
- ``beforeSubmitPrompt`` is judged as UserPromptSubmit (``continue: false`` refuses it), and
  ``stop`` as Stop: a block is a ``followup_message``, the reason sent as the next prompt
  (Cursor caps the follow-ups it takes).
- The after-events (``afterShellExecution``, ``afterFileEdit``, ``afterMCPExecution``,
  ``postToolUse``) are judged as PostToolUse for the record and its hooks; Cursor reads no
  decision from them. Cursor's other events are answered with nothing.

Cursor's ``ask`` has not held across its versions (read as deny in some, as allow in others),
so hookline's ask (and a hook's defer) is a deny saying how to let the call through.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from hookline._decisions import Decision
from hookline._errors import ConfigError

#: The server's route for Cursor's hooks, and the host named on their records.
CURSOR_PATH: Final = "/cursor"
HOST: Final = "cursor"
#: The answer that decides nothing: Cursor's own flow goes on.
NO_ANSWER: Final[Mapping[str, Any]] = {}
#: Cursor's events that ask before a tool runs: answered with a ``permission``.
PERMISSION_EVENTS: Final = frozenset(
    {"beforeShellExecution", "beforeReadFile", "beforeMCPExecution", "preToolUse"}
)
#: Cursor's events after a tool ran, judged as PostToolUse.
AFTER_EVENTS: Final = frozenset(
    {"afterShellExecution", "afterFileEdit", "afterMCPExecution", "postToolUse"}
)
#: Cursor's events hookline judges, and the event each is judged as.
EVENTS: Final = {
    **dict.fromkeys(PERMISSION_EVENTS, "PreToolUse"),
    **dict.fromkeys(AFTER_EVENTS, "PostToolUse"),
    "beforeSubmitPrompt": "UserPromptSubmit",
    "stop": "Stop",
}
#: Where the way out of a refusal is told.
_HOW_TO_ALLOW: Final = (
    "Cursor's ask does not hold, so it is refused. To let it through, allow it with a "
    "permission rule of hookline serve's settings, or run hookline break-glass (for a bounded "
    "time, Cursor's own settings decide)"
)


def event_payload(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The hookline event (as the JSON ``Judge.rule`` takes) that Cursor's ``payload``
    describes; None for an event hookline does not judge. A ConfigError when it is not one."""
    name = payload.get("hook_event_name")
    if not isinstance(name, str):
        raise ConfigError("the body has no hook_event_name", fix="send the hook's event JSON")
    judged_as = EVENTS.get(name)
    if judged_as is None:
        return None
    event: dict[str, Any] = {
        "session_id": _text(payload, "conversation_id"),
        "transcript_path": payload.get("transcript_path") or "",
        "cwd": _cwd(payload),
        "hook_event_name": judged_as,
    }
    if name == "beforeSubmitPrompt":
        return {**event, "prompt": payload.get("prompt")}
    if name == "stop":
        return {**event, "stop_hook_active": _int(payload.get("loop_count")) > 0}
    tool_name, tool_input = _tool(name, payload)
    event |= {"tool_name": tool_name, "tool_input": tool_input}
    event["tool_use_id"] = payload.get("tool_use_id") or call_id(payload, tool_name, tool_input)
    if judged_as == "PostToolUse":
        event["tool_response"] = _response(payload)
    return event


def _tool(name: str, payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The hookline tool and input of a tool event of Cursor's."""
    if name in ("beforeShellExecution", "afterShellExecution"):
        return "Bash", {"command": _required(payload, "command")}
    if name == "beforeReadFile":
        return "Read", {"file_path": _required(payload, "file_path")}
    if name == "afterFileEdit":
        return "Edit", {"file_path": _required(payload, "file_path"), "edits": payload.get("edits")}
    tool_name = _required(payload, "tool_name")
    tool_input = _object(payload.get("tool_input"))
    if tool_name == "Shell" and isinstance(tool_input.get("command"), str):
        return "Bash", {"command": tool_input["command"]}
    return tool_name, tool_input


def _response(payload: Mapping[str, Any]) -> object:
    for key in ("tool_output", "output", "result_json"):
        if key in payload:
            return payload[key]
    return None


def call_id(payload: Mapping[str, Any], tool_name: str, tool_input: Mapping[str, Any]) -> str:
    """The id a call is judged under where Cursor sends none: the same before and after it
    runs, so their records pair up."""
    said = json.dumps(
        [payload.get("generation_id"), tool_name, tool_input], sort_keys=True, default=str
    )
    return "cursor-" + hashlib.sha256(said.encode()).hexdigest()[:24]


def effective(event_name: str, decision: Decision) -> Decision:
    """``decision`` as Cursor can carry it out for its ``event_name``: an ask or a defer of a
    tool call is a deny saying how to let it through."""
    if event_name not in PERMISSION_EVENTS or decision.permission not in ("ask", "defer"):
        return decision
    why = f"hookline would ask a person about this call ({decision.reason or 'no reason given'})"
    return replace(decision, permission="deny", reason=f"{why}. {_HOW_TO_ALLOW}.")


def answer(event_name: str, decision: Decision) -> dict[str, Any]:
    """``decision`` (``effective`` already) as the JSON Cursor reads from a hook of
    ``event_name``."""
    refused = decision.permission == "deny"
    reason = decision.reason or "refused by hookline"
    if event_name in PERMISSION_EVENTS:
        said: dict[str, Any] = {}
        if refused:
            said = {"permission": "deny", **_messages(reason)}
        elif decision.permission == "allow":
            said = {"permission": "allow"}
        if event_name == "preToolUse" and decision.updated_input is not None and not refused:
            said["updated_input"] = decision.updated_input
        return said
    if event_name == "beforeSubmitPrompt":
        if refused or not decision.continue_:
            return {"continue": False, **_messages(decision.stop_reason or reason, agent=False)}
        return {"continue": True}
    if event_name == "stop" and refused:
        return {"followup_message": reason}
    return {}


def _messages(reason: str, *, agent: bool = True) -> dict[str, str]:
    """``reason`` for the user and (``agent``) the model, in both spellings Cursor's docs have
    used (``userMessage`` in its first hooks, ``user_message`` since)."""
    said = {"user_message": reason, "userMessage": reason}
    if agent:
        said |= {"agent_message": reason, "agentMessage": reason}
    return said


def _cwd(payload: Mapping[str, Any]) -> str:
    """The folder the event happens in: its ``cwd``, else the first workspace root."""
    cwd = payload.get("cwd")
    if isinstance(cwd, str) and cwd:
        return cwd
    roots = payload.get("workspace_roots")
    if isinstance(roots, list) and roots and isinstance(roots[0], str):
        return roots[0]
    raise ConfigError("the body has no cwd and no workspace_roots", fix="send Cursor's event JSON")


def _required(payload: Mapping[str, Any], key: str) -> str:
    value = payload.get(key)
    if not isinstance(value, str) or not value:
        raise ConfigError(f"the body has no {key}", fix="send Cursor's hook event JSON")
    return value


def _object(value: object) -> dict[str, Any]:
    """A tool input: an object, or JSON text of one (as beforeMCPExecution sends it)."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except json.JSONDecodeError:
            raise ConfigError(
                "its tool_input is not JSON", fix="send Cursor's event JSON"
            ) from None
    if not isinstance(value, dict):
        raise ConfigError("its tool_input is not an object", fix="send Cursor's event JSON")
    return value


def _text(payload: Mapping[str, Any], key: str) -> str:
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0

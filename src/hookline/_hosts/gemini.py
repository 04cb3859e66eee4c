"""Gemini CLI's hooks as hookline's events, and hookline's decisions as the answers Gemini reads.

Gemini CLI runs command hooks only: the event's JSON on stdin, an answer's JSON on stdout with
exit code 0; exit code 2 blocks with stderr as the reason; any other exit code is a warning and
the CLI goes on (fails open). ``hookline install gemini`` (``hookline._hosts.gemini_settings``)
installs a ``curl`` line that posts the event to ``hookline serve`` (``POST /gemini``) and
exits 2 when the server cannot answer. This module is the mapping both ways, pure data:

- ``BeforeTool`` is judged as ``PreToolUse``, ``AfterTool`` as ``PostToolUse``,
  ``BeforeAgent`` as ``UserPromptSubmit``, ``AfterAgent`` as ``Stop`` (its answer that blocks
  keeps Gemini working, the reason its next prompt), ``SessionStart``, ``SessionEnd``,
  ``PreCompress`` as ``PreCompact`` and ``Notification`` as themselves (Gemini's
  ``ToolPermission`` notice is Claude Code's ``permission_prompt``); its model events
  (``BeforeModel``, ``AfterModel``, ``BeforeToolSelection``), which hookline's hooks have no
  event for, are answered with nothing;
- Gemini's own tools are read as hookline's (``TOOLS``: ``run_shell_command`` is ``Bash``,
  ``read_file`` is ``Read``, ...), their arguments renamed; a tool not in the table is judged
  under its own name, by the hooks and the rules only;
- a ruling is answered in Gemini's words (``decision: "deny"`` with a ``reason``). Gemini has
  no ask that holds (a hook's ``ask`` lets the tool run), so hookline's ask (and a hook's
  defer) is a deny saying how to let the call through; Gemini cannot replace a tool's
  output, so a rewritten output is given to the model as the reason of a deny; and it cannot
  skip a compaction, so a ``PreCompact`` block is not answered (a ``systemMessage`` is).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from hookline._decisions import UNCHANGED, Decision
from hookline._errors import ConfigError
from hookline._events import (
    Notification,
    PostToolUse,
    PreCompact,
    PreToolUse,
    SessionEnd,
    SessionStart,
    Stop,
    UserPromptSubmit,
)

#: The server's route for Gemini CLI's hooks, and the host named on their records.
GEMINI_PATH: Final = "/gemini"
HOST: Final = "gemini"
#: The answer that decides nothing: Gemini's own flow (its confirmation) goes on. What a
#: broken glass answers (``hookline._serve.break_glass``): a hook's ask would let the tool run.
NO_ANSWER: Final[Mapping[str, Any]] = {}
#: Gemini's events hookline judges, and the event each is judged as.
EVENTS: Final = {
    "BeforeTool": PreToolUse.name,
    "AfterTool": PostToolUse.name,
    "BeforeAgent": UserPromptSubmit.name,
    "AfterAgent": Stop.name,
    "SessionStart": SessionStart.name,
    "SessionEnd": SessionEnd.name,
    "PreCompress": PreCompact.name,
    "Notification": Notification.name,
}
#: Gemini's words for what its events carry, where hookline's differ (None: as Gemini says).
_SAID: Final[Mapping[str, Mapping[str, str]]] = {
    "reason": {"exit": "other"},  # SessionEnd: hookline's (Claude Code's) has no exit
    "notification_type": {"ToolPermission": "permission_prompt"},
}
#: Each event's own fields: Gemini's name -> hookline's.
_FIELDS: Final[Mapping[str, Mapping[str, str]]] = {
    "BeforeAgent": {"prompt": "prompt"},
    "AfterAgent": {
        "stop_hook_active": "stop_hook_active",
        "prompt_response": "last_assistant_message",
    },
    "SessionStart": {"source": "source"},
    "SessionEnd": {"reason": "reason"},
    "PreCompress": {"trigger": "trigger"},
    "Notification": {"message": "message", "notification_type": "notification_type"},
}
#: The event whose failure must refuse (a tool call): anything that goes wrong is a deny.
REFUSING: Final = "BeforeTool"
#: Where the way out of a refusal is told.
_HOW_TO_ALLOW: Final = (
    "Gemini CLI cannot ask from a hook, so it is refused. To let it through, allow it with a "
    "permission rule of hookline serve's settings, or run hookline break-glass (for a bounded "
    "time, Gemini CLI's own confirmation decides)"
)


@dataclass(frozen=True, slots=True)
class ToolShape:
    """How one of Gemini's tools is read as hookline's: its name and its arguments."""

    #: hookline's tool of the same kind.
    tool: str
    #: Gemini's argument name -> hookline's (an argument named in neither is kept as it is,
    #: and a hookline tool that does not know it refuses the call).
    renames: Mapping[str, str]
    #: Gemini's arguments that change how much is shown, not what is touched: not judged.
    shown_only: frozenset[str] = frozenset()


_PATH: Final = {"file_path": "file_path", "absolute_path": "file_path"}
_DIR: Final = {"dir_path": "path", "path": "path"}
#: Gemini's built-in tools (``packages/core/src/tools/definitions/base-declarations.ts``) by
#: the name a hook is told, and legacy names Gemini still accepts.
_BUILT_IN: Final[Mapping[str, ToolShape]] = {
    "run_shell_command": ToolShape(
        "Bash",
        {"command": "command", "description": "description", "is_background": "run_in_background"},
    ),
    "read_file": ToolShape("Read", _PATH, frozenset({"start_line", "end_line", "offset", "limit"})),
    "write_file": ToolShape("Write", {**_PATH, "content": "content"}),
    "replace": ToolShape(
        "Edit",
        {
            **_PATH,
            "old_string": "old_string",
            "new_string": "new_string",
            "allow_multiple": "replace_all",
        },
        frozenset({"instruction", "expected_replacements"}),
    ),
    "glob": ToolShape(
        "Glob",
        {"pattern": "pattern", **_DIR},
        frozenset({"case_sensitive", "respect_git_ignore", "respect_gemini_ignore"}),
    ),
    "grep_search": ToolShape(
        "Grep",
        {"pattern": "pattern", **_DIR, "include_pattern": "glob", "include": "glob"},
        frozenset(
            {
                "exclude_pattern",
                "names_only",
                "max_matches_per_file",
                "total_max_matches",
                "fixed_strings",
                "context",
                "after",
                "before",
                "no_ignore",
                "case_sensitive",
            }
        ),
    ),
}
TOOLS: Final = {**_BUILT_IN, "search_file_content": _BUILT_IN["grep_search"]}


def event_payload(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The hookline event (as the JSON ``Judge.rule`` takes) that Gemini's ``payload``
    describes; None for an event hookline does not judge. A ConfigError when it is not one."""
    name = payload.get("hook_event_name")
    if not isinstance(name, str):
        raise ConfigError("the body has no hook_event_name", fix="send the hook's event JSON")
    judged_as = EVENTS.get(name)
    if judged_as is None:
        return None
    common = {key: payload.get(key) for key in ("session_id", "transcript_path", "cwd")}
    event = {**common, "hook_event_name": judged_as}
    if name in _FIELDS:
        return event | {
            ours: _SAID.get(theirs, {}).get(value, value) if isinstance(value, str) else value
            for theirs, ours in _FIELDS[name].items()
            if (value := payload.get(theirs)) is not None
        }
    tool_name, tool_input = _tool_of(payload)
    cwd = payload.get("cwd")
    shape = TOOLS.get(tool_name)
    event |= {
        "tool_name": tool_name if shape is None else shape.tool,
        "tool_input": tool_input if shape is None else _judged(tool_name, tool_input, cwd),
        "tool_use_id": call_id(payload.get("session_id"), tool_name, tool_input),
    }
    if name == "AfterTool":
        event["tool_response"] = payload.get("tool_response")
    return event


def call_id(session_id: object, tool_name: str, tool_input: Mapping[str, Any]) -> str:
    """The id a call is judged under (Gemini sends none): the same for its BeforeTool and
    AfterTool, so their records pair up."""
    said = json.dumps([session_id, tool_name, tool_input], sort_keys=True, default=str)
    return "gemini-" + hashlib.sha256(said.encode()).hexdigest()[:24]


def _tool_of(payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    tool_name, tool_input = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(tool_name, str) or not tool_name:
        raise ConfigError("the body has no tool_name", fix="send Gemini CLI's hook event JSON")
    if not isinstance(tool_input, dict):
        raise ConfigError("its tool_input is not an object", fix="send the hook's event JSON")
    return tool_name, tool_input


def _judged(tool_name: str, tool_input: Mapping[str, Any], cwd: object) -> dict[str, Any]:
    """Gemini's arguments in hookline's names: what the call touches, nothing left out."""
    shape = TOOLS[tool_name]
    args = dict(tool_input)
    if tool_name == "run_shell_command" and "dir_path" in args:
        args["command"] = _in_folder(args.pop("dir_path"), args.get("command"), cwd)
    if args.get("fixed_strings") is True and isinstance(args.get("pattern"), str):
        args["pattern"] = re.escape(args["pattern"])
    judged: dict[str, Any] = {}
    for key, value in args.items():
        if key in shape.shown_only:
            continue
        ours = shape.renames.get(key, key)
        if ours in judged:  # file_path and absolute_path both: which one runs is not known
            raise ConfigError(f"{tool_name} has two arguments for its {ours}")
        judged[ours] = value
    return judged


def _in_folder(folder: object, command: object, cwd: object) -> object:
    """A command Gemini runs in ``folder`` as the Bash line that does: ``cd`` there first (an
    absolute folder), so its paths are judged where they are."""
    if not isinstance(folder, str) or not isinstance(command, str) or not isinstance(cwd, str):
        raise ConfigError("run_shell_command's dir_path and command must be text")
    return f"cd -- {shlex.quote(os.path.join(cwd, folder))} && {command}"


def effective(event_name: str, decision: Decision) -> Decision:
    """``decision`` as Gemini can carry it out for its ``event_name``: an ask or a defer of a
    tool call is a deny saying how to let it through (Gemini would run the tool); a block of
    a compaction, which Gemini cannot skip, is no answer."""
    if event_name == "PreCompress":
        return replace(decision, permission=None, reason=None)
    if event_name != REFUSING or decision.permission not in ("ask", "defer"):
        return decision
    why = f"hookline would ask a person about this call ({decision.reason or 'no reason given'})"
    return replace(decision, permission="deny", reason=f"{why}. {_HOW_TO_ALLOW}.")


def answer(payload: Mapping[str, Any], decision: Decision) -> dict[str, Any]:
    """``decision`` (``effective`` already) as the JSON Gemini reads from the hook it sent
    ``payload`` to."""
    event_name = payload.get("hook_event_name")
    said: dict[str, Any] = {}
    specific: dict[str, Any] = {}
    if decision.permission == "deny":
        said |= {"decision": "deny", "reason": decision.reason or "refused by hookline"}
    elif decision.permission == "allow":
        said["decision"] = "allow"
    if event_name == "AfterTool" and decision.updated_output is not UNCHANGED:
        said |= {"decision": "deny", "reason": _text(decision.updated_output)}
    if event_name == REFUSING and decision.updated_input is not None:
        specific["tool_input"] = _rewritten(payload, decision.updated_input)
    if decision.additional_context and event_name != REFUSING:
        specific["additionalContext"] = "\n\n".join(decision.additional_context)
    if specific:
        said["hookSpecificOutput"] = specific
    if decision.system_message:
        said["systemMessage"] = "\n".join(decision.system_message)
    if not decision.continue_:
        said["continue"] = False
        if decision.stop_reason:
            said["stopReason"] = decision.stop_reason
    return said


def _rewritten(payload: Mapping[str, Any], updated: Mapping[str, Any]) -> dict[str, Any]:
    """hookline's rewritten input in the names of Gemini's tool (Gemini merges what a hook
    sends over the model's arguments; a ``cd`` for its ``dir_path`` stays in the command, to
    an absolute folder, so it changes nothing)."""
    shape = TOOLS.get(str(payload.get("tool_name")))
    if shape is None:
        return dict(updated)
    sent = payload.get("tool_input") or {}
    names: dict[str, str] = {}
    for theirs, ours in shape.renames.items():
        if theirs in sent or ours not in names:
            names[ours] = theirs
    return {names.get(key, key): value for key, value in updated.items()}


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)

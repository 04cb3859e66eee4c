"""The event ``hookline hooks test`` runs: from flags, or JSON on stdin, made whole.

The flags give tool and prompt fields (``flag_fields``); stdin gives a whole event
(``stdin_event``); ``build_event`` fills the common fields a run would have, and the required
ones neither gave (``FILLERS``), and says which flag is missing when the event is not valid.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hookline._cli.render import warn
from hookline._errors import ConfigError, ToolInputError
from hookline._events import event_class
from hookline._hooks.wire import event_from_payload
from hookline._tools.base import ToolContext, Workspace
from hookline._tools.builtin import builtin_tools

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

    from hookline._events import HookEvent

#: ``hookline hooks test``: values for required fields that neither flags nor stdin gave.
FILLERS: Final[Mapping[str, Any]] = {
    "session_id": "hooks-test",
    "tool_input": {},
    "tool_use_id": "toolu_hooks_test",
    "prompt": "",
    "turn": 1,
    "steps": 0,
    "stop_reason": "end_turn",
    "error": "",
    "decision": "deny",
    "reason": "",
}

#: The flag that gives each event field (for the fix when one is missing).
FLAGS: Final = {
    "tool_name": "--tool NAME",
    "tool_input": "--input JSON",
    "tool_response": "--response JSON",
    "prompt": "--prompt TEXT",
}


def build_event(
    payload: dict[str, Any], *, name: str | None, cwd: str, transcript: str
) -> HookEvent:
    """The event ``payload`` describes (its ``hook_event_name``, or ``name``), with the common
    fields it lacks filled in; a ConfigError when it is not one."""
    name = name or payload.get("hook_event_name") or _implied_event(payload)
    cls = event_class(str(name), key="--event")
    fields = {"transcript_path": transcript, "cwd": cwd, **payload, "hook_event_name": cls.name}
    if cls.has_mode:
        fields.setdefault("permission_mode", "default")
    known = cls.model_fields
    for key, value in FILLERS.items():
        if key in known and known[key].is_required():
            fields.setdefault(key, value)
    event, ignored = event_from_payload(fields, fix=_fix)
    if ignored:
        warn(f"{cls.name} has no field {', '.join(ignored)}: ignored")
    return event


def _fix(errors: list[ErrorDetails]) -> str:
    """The flags that give the fields an event lacks, else: correct the JSON."""
    flags = [FLAGS[e["loc"][0]] for e in errors if e["loc"] and e["loc"][0] in FLAGS]
    return f"give {' and '.join(flags)}" if flags else "correct the event JSON"


def flag_fields(**flags: str | None) -> dict[str, Any]:
    """The event fields the flags give (``--input`` read as a JSON object, ``--response`` as
    any JSON value)."""
    fields: dict[str, Any] = {key: value for key, value in flags.items() if value is not None}
    if "tool_input" in fields:
        fields["tool_input"] = _json_object(fields["tool_input"], "--input")
    if "tool_response" in fields:
        fields["tool_response"] = _json_value(fields["tool_response"], "--response")
    return fields


def as_in_a_run(payload: dict[str, Any], cwd: str) -> dict[str, Any]:
    """``payload`` with a built-in tool's input prepared as a run prepares it before the hooks
    see it (a relative path made absolute against ``cwd``). Input the tool would refuse
    before any hook runs is kept as given, with a warning saying so."""
    tool = next((t for t in builtin_tools() if t.name == payload.get("tool_name")), None)
    given = payload.get("tool_input")
    if tool is None or not isinstance(given, dict):
        return payload
    ctx = ToolContext(cwd=Path(cwd), workspace=Workspace.of(cwd))
    try:
        prepared = tool.prepare(dict(given), ctx)
    except ToolInputError as exc:
        warn(f"a run would refuse this {tool.name} input before any hook runs: {exc}")
        return payload
    return {**payload, "tool_input": prepared}


def _implied_event(payload: Mapping[str, Any]) -> str:
    if "tool_response" in payload:
        return "PostToolUse"
    if "tool_name" in payload:
        return "PreToolUse"
    if "prompt" in payload:
        return "UserPromptSubmit"
    raise ConfigError(
        "no event to test",
        key="--event",
        fix="give --event NAME, --tool NAME or --prompt TEXT, or an event as JSON on stdin",
    )


def stdin_is_piped() -> bool:
    """Whether stdin is a pipe or a file (not a terminal, nor /dev/null)."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):  # no real stdin (closed, or a test's)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def stdin_event(*, empty_ok: bool = False) -> dict[str, Any]:
    """The event JSON on stdin; ``empty_ok``: nothing there is no fields (stdin was only
    piped, not asked for)."""
    text = sys.stdin.read()
    return {} if empty_ok and not text.strip() else _json_object(text, "stdin")


def _json_value(text: str, key: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
            key=key,
            fix="""give a JSON object, as '{"command": "ls"}'""",
        ) from None


def _json_object(text: str, key: str) -> dict[str, Any]:
    value = _json_value(text, key)
    if not isinstance(value, dict):
        raise ConfigError(
            f"must be a JSON object, not {type(value).__name__}", key=key, fix="{...}"
        )
    return value

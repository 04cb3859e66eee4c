"""Codex's and Gemini CLI's session files, read back as the hook events their calls were.

**Codex** keeps each session as a rollout, ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``:
one JSON object a line, ``{"type": ..., "payload": ...}``. The first is ``session_meta`` (the
session's ``id`` and ``cwd``); ``turn_context`` says the ``cwd`` from there on. A prompt is an
``event_msg`` whose item is a ``UserMessage`` (``user_message`` in older rollouts); a tool call a
``response_item`` of type ``function_call`` (``arguments``: JSON text) or ``custom_tool_call``
(``input``: text, ``apply_patch``'s patch), answered by a ``function_call_output`` (or
``custom_tool_call_output``) with the same ``call_id``. Codex's shell tools (``exec_command``,
``shell``, ``local_shell``) reach hooks as ``Bash`` with the command line, as Codex's own
hooks see them. A call ran when its output says how its process exited.

**Gemini CLI** keeps each session as ``~/.gemini/tmp/<project>/chats/session-*.jsonl``: a first
line with the ``sessionId``, then messages (``type`` user or gemini), a message written again
when it grows (its ``toolCalls``, each with ``name``, ``args`` and ``status``: success, error,
cancelled), and ``{"$set": ...}`` lines. The project's folder is in ``.project_root`` beside
``chats``. Gemini's tools are read as hookline's as ``hookline serve`` reads Gemini's hooks
(``run_shell_command`` is ``Bash``; ``hookline._hosts.gemini``). A call a person cancelled was
refused.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from hookline._errors import ConfigError
from hookline._hosts import gemini
from hookline._replay.recorded import Outcome, Recorded

#: Codex's tools that run a command line: what its hooks call ``Bash``.
_CODEX_SHELLS: Final = frozenset({"exec_command", "shell", "local_shell", "container.exec"})
_CODEX_CALLS: Final = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_CODEX_OUTPUTS: Final = frozenset({"function_call_output", "custom_tool_call_output"})
_RAN: Final = ("Process exited with code", "Exit code:")
_GEMINI_STATUS: Final[Mapping[str, Outcome]] = {
    "success": "allowed",
    "cancelled": "denied",
    "error": "error",
}


#: A session file's JSON objects, each with its line number.
Entries = list[tuple[int, dict[str, Any]]]


def is_codex(first: Mapping[str, Any]) -> bool:
    return first.get("type") == "session_meta"


def is_gemini(first: Mapping[str, Any]) -> bool:
    return "sessionId" in first and "projectHash" in first


def codex(path: Path, entries: Entries) -> list[Recorded]:
    """The prompts and tool calls of a Codex rollout, in order."""
    outputs = {
        str(p.get("call_id")): _ran(p.get("output"))
        for _, e in entries
        if isinstance(p := e.get("payload"), dict) and p.get("type") in _CODEX_OUTPUTS
    }
    session, cwd, found = path.stem, "", []
    for line, entry in entries:
        payload = entry.get("payload")
        if not isinstance(payload, dict):
            continue
        kind, where = entry.get("type"), f"{path}:{line}"
        if kind == "session_meta":
            session = str(payload.get("id") or payload.get("session_id") or session)
        if kind in ("session_meta", "turn_context") and isinstance(payload.get("cwd"), str):
            cwd = payload["cwd"]
        prompt = _codex_prompt(entry)
        if prompt is not None:
            found.append(Recorded.prompted(where, session, cwd, prompt))
        if kind == "response_item" and payload.get("type") in _CODEX_CALLS:
            call_id = str(payload.get("call_id") or payload.get("id") or "")
            name, tool_input = _codex_tool(payload)
            found.append(
                Recorded(where, session, cwd, "PreToolUse", tool_name=name, tool_input=tool_input,
                         tool_use_id=call_id, outcome=outputs.get(call_id, "unknown"))
            )  # fmt: skip
    return found


def _codex_prompt(entry: Mapping[str, Any]) -> str | None:
    payload = entry["payload"]
    if entry.get("type") != "event_msg":
        return None
    if payload.get("type") == "user_message" and isinstance(payload.get("message"), str):
        return str(payload["message"])
    item = payload.get("item")
    said = payload.get("type") == "item_completed" and isinstance(item, dict)
    if said and item.get("type") == "UserMessage":
        return _gemini_text(item.get("content"))
    return None


def _codex_tool(payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A Codex call as its hooks see it: a shell tool is Bash with its command line."""
    name = str(payload.get("name") or payload.get("type"))
    raw = payload.get("arguments", payload.get("input", payload.get("action")))
    args = raw
    if isinstance(raw, str):
        try:
            args = json.loads(raw)
        except ValueError:
            args = {"input": raw}  # apply_patch's patch, as it was given
    args = args if isinstance(args, dict) else {"input": args}
    if name in _CODEX_SHELLS or payload.get("type") == "local_shell_call":
        command = args.get("cmd", args.get("command"))
        if isinstance(command, list):
            command = _command_line([str(word) for word in command])
        return "Bash", {"command": str(command or "")}
    return name, args


def _command_line(argv: list[str]) -> str:
    """An argv as the line it runs: ``bash -lc LINE`` is LINE."""
    if len(argv) == 3 and argv[0].rsplit("/", 1)[-1] in ("bash", "sh") and argv[1] in ("-lc", "-c"):
        return argv[2]
    return shlex.join(argv)


def _ran(output: object) -> Outcome:
    if isinstance(output, dict):
        output = output.get("output") or output.get("content")
    text = output if isinstance(output, str) else json.dumps(output)
    return "allowed" if any(said in text for said in _RAN) else "error"


def gemini_chat(path: Path, entries: Entries) -> list[Recorded]:
    """The prompts and tool calls of a Gemini CLI chat, in order, each call once (with what
    its last writing says)."""
    session = str(entries[0][1].get("sessionId") or path.stem) if entries else path.stem
    cwd = _gemini_root(path)
    prompts: dict[str, tuple[int, str]] = {}
    calls: dict[str, tuple[int, dict[str, Any]]] = {}
    for line, message in _gemini_messages(entries):
        if message.get("type") == "user":
            text = _gemini_text(message.get("content"))
            if text and not text.startswith("<session_context>"):
                prompts.setdefault(str(message.get("id")), (line, text))
        for call in message.get("toolCalls") or []:
            if isinstance(call, dict):
                calls[str(call.get("id"))] = (calls.get(str(call.get("id")), (line, {}))[0], call)
    found = [
        Recorded.prompted(f"{path}:{line}", session, cwd, text) for line, text in prompts.values()
    ]
    for line, call in calls.values():
        found.append(_gemini_call(f"{path}:{line}", session, cwd, call))
    return sorted(found, key=lambda r: int(r.source.rsplit(":", 1)[1]))


def _gemini_messages(entries: Entries) -> Iterator[tuple[int, dict[str, Any]]]:
    for line, entry in entries:
        written = entry.get("$set")
        if isinstance(written, dict):
            for message in written.get("messages") or []:
                if isinstance(message, dict):
                    yield line, message
        elif "type" in entry:
            yield line, entry


def _gemini_text(content: object) -> str:
    """The text of a message's content: a string, or parts holding ``text`` (Codex's
    ``UserMessage`` content is the same shape)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    texts = [p.get("text") for p in parts if isinstance(p, dict)]
    return "\n".join(text for text in texts if isinstance(text, str))


def _gemini_call(where: str, session: str, cwd: str, call: Mapping[str, Any]) -> Recorded:
    """One Gemini call, its tool and input as hookline judges Gemini's hook for it."""
    payload = {"hook_event_name": "BeforeTool", "session_id": session, "cwd": cwd,
               "transcript_path": where.rsplit(":", 1)[0],
               "tool_name": call.get("name"), "tool_input": call.get("args")}  # fmt: skip
    try:
        event = gemini.event_payload(payload) or {}
    except ConfigError:
        event = {}
    tool_input = event.get("tool_input", call.get("args"))
    return Recorded(
        where,
        session,
        cwd,
        "PreToolUse",
        tool_name=str(event.get("tool_name") or call.get("name") or ""),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        tool_use_id=str(call.get("id") or ""),
        outcome=_GEMINI_STATUS.get(str(call.get("status")), "unknown"),
    )


def _gemini_root(chat: Path) -> str:
    """The project folder a Gemini chat was in: ``.project_root`` beside its ``chats``."""
    try:
        return (chat.parent.parent / ".project_root").read_text().strip()
    except OSError:
        return ""

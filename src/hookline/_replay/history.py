"""Recorded sessions, read back as the hook events they were: what ``hookline replay`` runs.

A session transcript in Claude Code's shape (Claude Code's own,
``~/.claude/projects/<project>/<session>.jsonl``, and hookline's, which writes the same shape in
``.hookline/state/transcripts/``) holds, line by line, ``user`` and ``assistant`` entries, each
with the session's ``cwd`` and ``sessionId``. A prompt is a ``user`` entry whose content is a
string: a UserPromptSubmit. A ``tool_use`` block of an ``assistant`` entry is a tool call: a
PreToolUse with its raw input. What happened to the call is the ``tool_result`` block that
answers it (``tool_use_id``): ``is_error`` false means it ran; a Claude Code hook's deny starts
``PreToolUse:<Tool> hook error``; any other error is a refusal or a failure the transcript does
not tell apart. hookline's own sessions say exactly, in the audit beside the transcripts:
each call's permission (allow, deny, defer) and status.

Lines that are not JSON objects, entries of other types and blocks of other kinds are skipped:
a transcript is a record of what was said, not a contract.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

import orjson

from hookline._errors import ConfigError
from hookline._replay import audited, hosts
from hookline._replay.recorded import Outcome, Recorded
from hookline.audit._writer import JSONL_NAME

_HOOK_DENY: Final = "PreToolUse:"


def sessions(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Each session file named, or found in a folder named: a project's (or a server's) state,
    its hookline transcripts and its audit; any other folder's ``.jsonl`` files, below it."""
    for given in paths:
        path = Path(given).expanduser()
        if path.is_file():
            yield path
            continue
        if not path.is_dir():
            raise ConfigError(
                f"{path}: no such file or folder",
                key="SESSIONS",
                fix="name transcript files (.jsonl) or folders that hold them",
            )
        state = path / ".hookline" / "state"
        if not (state / "transcripts").is_dir() and not (state / JSONL_NAME).is_file():
            yield from sorted(path.rglob("*.jsonl"))
            continue
        yield from sorted((state / "transcripts").glob("*.jsonl"))
        if (state / JSONL_NAME).is_file():  # the calls with no transcript: served ones, above all
            yield state / JSONL_NAME


def recorded(paths: Iterable[str | Path]) -> list[Recorded]:
    """Every event the sessions at ``paths`` record, each call once: where a transcript and
    the audit both have it, the transcript's (its input is raw; the audit's is redacted)."""
    files = list(sessions(paths))
    found: list[Recorded] = []
    seen: set[tuple[str, str | None]] = set()
    for path in sorted(files, key=lambda p: p.name == JSONL_NAME):  # transcripts first
        for event in read(path):
            key = (event.session_id, event.tool_use_id)
            if event.redacted and key in seen:
                continue
            if event.tool_use_id:
                seen.add(key)
            found.append(event)
    return found


def read(path: Path) -> list[Recorded]:
    """The hook events one session file records, in order, with what happened to each call:
    Claude Code's shape (Claude Code's and hookline's), Codex's rollouts, Gemini CLI's chats."""
    entries = _entries(path)
    first = entries[0][1] if entries else {}
    if hosts.is_codex(first):
        return hosts.codex(path, entries)
    if hosts.is_gemini(first):
        return hosts.gemini_chat(path, entries)
    if audited.is_audit(first):
        return audited.events(path, entries)
    return _claude(path, entries)


def _claude(path: Path, entries: hosts.Entries) -> list[Recorded]:
    """The prompts and tool calls of a transcript in Claude Code's shape, in one pass: each
    call's outcome is its ``tool_result``'s (which comes after it), or the audit's beside a
    hookline transcript."""
    results: dict[str, Outcome] = {}
    found: list[Recorded | tuple[str, str, str, dict[str, Any]]] = []
    name = str(path)
    for line, entry in entries:
        kind, content = entry.get("type"), (entry.get("message") or {}).get("content")
        if kind == "user":
            if isinstance(content, list):
                _answered(content, results)
            elif isinstance(content, str) and not entry.get("isMeta"):
                cwd, session = _where(entry, path)
                found.append(Recorded.prompted(f"{name}:{line}", session, cwd, content))
        elif kind == "assistant" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    found.append((f"{name}:{line}", *_where(entry, path), block))
    outcomes = _audited(path)
    return [
        each if isinstance(each, Recorded) else _call(*each, results, outcomes) for each in found
    ]


def _call(
    source: str,
    cwd: str,
    session: str,
    block: Mapping[str, Any],
    results: Mapping[str, Outcome],
    outcomes: Mapping[tuple[str, str], Outcome],
) -> Recorded:
    """A ``tool_use`` block as the PreToolUse it was, with what became of it."""
    call_id = str(block.get("id") or "")
    tool_input = block.get("input")
    return Recorded(
        source,
        session,
        cwd,
        "PreToolUse",
        tool_name=str(block.get("name") or ""),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        tool_use_id=call_id,
        outcome=outcomes.get((session, call_id)) or results.get(call_id, "unknown"),
    )


def _where(entry: Mapping[str, Any], path: Path) -> tuple[str, str]:
    """The folder and the session an entry of a Claude Code transcript was written in."""
    return str(entry.get("cwd") or ""), str(entry.get("sessionId") or path.stem)


def _entries(path: Path) -> hosts.Entries:
    """Each line's JSON object, with its number. Lines end at newlines only: a transcript
    written by JavaScript keeps U+2028 raw inside its strings, where ``splitlines`` would cut."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot be read: {exc.strerror}", key="SESSIONS", fix="name a readable file"
        ) from None
    found = []
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line or line.isspace():
            continue
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            entry = _parsed(line)
        if isinstance(entry, dict):
            found.append((number, entry))
    return found


def _parsed(line: bytes) -> Any:
    """A line orjson refuses, by the standard library (an integer beyond 64 bits; bytes that are
    not UTF-8, each replaced by U+FFFD); None for a line that is not JSON."""
    try:
        return json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):  # a line nested past any reader's depth
        return None


def _answered(content: list[Any], results: dict[str, Outcome]) -> None:
    """Note each call a user entry's ``tool_result`` blocks answer, with its outcome."""
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            results[str(block.get("tool_use_id"))] = _outcome(block)


def _outcome(block: Mapping[str, Any]) -> Outcome:
    if not block.get("is_error"):
        return "allowed"
    text = block.get("content")
    if isinstance(text, list):  # content blocks: the text of the first
        text = next((b.get("text") for b in text if isinstance(b, dict)), "")
    if isinstance(text, str) and text.startswith(_HOOK_DENY) and " hook error" in text[:80]:
        return "denied"
    return "error"


def _audited(transcript: Path) -> dict[tuple[str, str], Outcome]:
    """What hookline's audit beside a hookline transcript says of each call, by session and
    call; nothing for any other transcript."""
    folder = transcript.parent
    audit = folder.parent / JSONL_NAME
    if folder.name != "transcripts" or not audit.is_file():
        return {}
    calls = audited.events(audit, _entries(audit))
    return {(call.session_id, call.tool_use_id or ""): call.outcome for call in calls}

"""hookline's audit log read back as history: the calls its runs made and the events
``hookline serve`` judged for the hosts it guards.

A run's call is its ``tool`` record (or, for a call a crash cut short, its ``tool_started``); a
served call is a ``served`` PreToolUse record (from whichever host sent it, with the ``cwd`` it
gave; the host's PermissionRequest for the same call is not a call of its own). Each says what
was decided: its ``permission`` column (allow, deny, defer, ask). The audit keeps inputs
redacted and clipped (``hookline.audit._records``), so an event read from it is marked
``redacted``: a decision on it may differ from one on the raw input, which a transcript has
(``history`` prefers it where there is one).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from hookline._replay.recorded import Outcome, Recorded

_PERMITTED: Final[Mapping[str, Outcome]] = {
    "allow": "allowed",
    "deny": "denied",
    "defer": "deferred",
    "ask": "asked",
}


def is_audit(first: Mapping[str, Any]) -> bool:
    """Whether a file's first object is an audit record (a chain's fields)."""
    return "seq" in first and "hash" in first and "prev_hash" in first


def events(path: Path, entries: list[tuple[int, dict[str, Any]]]) -> list[Recorded]:
    """The calls an audit file records, each once, in order."""
    found: dict[tuple[str, str], Recorded] = {}
    for line, record in entries:
        made = _call(f"{path}:{line}", record)
        if made is None:
            continue
        run = record.get("kind") != "served"  # a run's call has two records; the last says more
        key = (made.session_id, made.tool_use_id or "" if run else f"line {line}")
        if record.get("kind") != "tool_started" or key not in found:
            found[key] = made
    return list(found.values())


def _call(where: str, record: Mapping[str, Any]) -> Recorded | None:
    kind, data = record.get("kind"), record.get("data")
    if not isinstance(data, dict):
        return None
    served = kind == "served" and record.get("event") == "PreToolUse"
    if not served and kind not in ("tool", "tool_started"):
        return None
    tool_input = data.get("input")
    return Recorded(
        where,
        str(record.get("session_id") or ""),
        str(data.get("cwd") or ""),
        "PreToolUse",
        tool_name=str(record.get("tool") or ""),
        tool_input=tool_input if isinstance(tool_input, dict) else {},
        tool_use_id=str(record.get("tool_use_id") or ""),
        outcome=_PERMITTED.get(str(record.get("permission")), "unknown"),
        redacted=True,
    )

"""The agent's own audit trail: one JSON line per call of an ``orders`` tool in audit.jsonl.

A Claude Code command hook for PostToolUse and PostToolUseFailure (``.claude/settings.json``)
and for hookline's ToolBlocked (``.hookline/settings.json``: a call a hook or rule refused,
which Claude Code has no event for). Each line says who (the session's user), the session,
the tool, its input, the tool_use_id and what came of the call. Standard library only.
"""

from __future__ import annotations

import getpass
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

OUTCOMES = {"PostToolUse": "ran", "PostToolUseFailure": "failed", "ToolBlocked": "refused"}


def record(event: dict[str, Any]) -> dict[str, Any]:
    """The audit line for one event."""
    name = event.get("hook_event_name", "")
    return {
        "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "user": event.get("user") or getpass.getuser(),
        "session_id": event.get("session_id"),
        "tool": event.get("tool_name"),
        "input": event.get("tool_input"),
        "tool_use_id": event.get("tool_use_id"),
        "outcome": OUTCOMES.get(name, name),
        "detail": event.get("reason") or event.get("error"),
    }


def main() -> None:
    line = json.dumps(record(json.load(sys.stdin)), ensure_ascii=False) + "\n"
    folder = Path(os.environ.get("CLAUDE_PROJECT_DIR") or ".")
    with open(folder / "audit.jsonl", "a", encoding="utf-8") as log:
        log.write(line)  # one write of one line: concurrent hooks do not interleave


if __name__ == "__main__":
    main()

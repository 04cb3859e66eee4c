"""The coding guard's command hooks, as Claude Code runs them: ``run.py bash|files|format``.

Reads the event (JSON) on stdin and answers in the hook protocol: a refusal as
``permissionDecision: "deny"`` with a reason the model reads, a new path as ``updatedInput``
(no decision, so the call still goes through the usual permission checks), a note as
``additionalContext``, or nothing. The workspace is ``$CLAUDE_PROJECT_DIR``.

A guard that cannot judge refuses: if it fails (an event it cannot read, a Python without
hookline for the Bash guard) it exits 2, which blocks the call, with the reason on stderr. The
format check exits 1 instead, which blocks nothing.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

Answer = dict[str, Any] | None
HERE = os.path.dirname(os.path.realpath(__file__))
#: The folder the guard is installed in.
GUARD = os.path.dirname(HERE)
#: The rule modules beside this file (imported from here even under ``python -I`` or -P).
RULES = ("bash_guard", "file_guard", "format_check")


def guard_bash(event: dict[str, Any], workspace: str) -> Answer:
    import bash_guard  # needs hookline: its Bash analysis reads the line

    command = event["tool_input"]["command"]
    home = os.path.expanduser("~")
    reason = bash_guard.refuse(command, cwd=event["cwd"], workspace=workspace, home=home)
    return _deny(reason) if reason else None


def guard_files(event: dict[str, Any], workspace: str) -> Answer:
    import file_guard

    tool_name, tool_input = event["tool_name"], event["tool_input"]
    if reason := file_guard.refuse(tool_name, tool_input, workspace=workspace, guard_dir=GUARD):
        return _deny(reason)
    path = tool_input.get("file_path")
    if tool_name in file_guard.WRITERS and isinstance(path, str):
        real = file_guard.real_path(path, workspace=workspace)
        if real != path:
            new = {**tool_input, "file_path": real}
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": new}}
    return None


def check_format(event: dict[str, Any], workspace: str) -> Answer:
    import format_check

    path = event["tool_input"].get("file_path")
    text = format_check.complaints(path) if isinstance(path, str) else None
    if text is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}


def _deny(reason: str) -> Answer:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


#: Each guard, and the exit code that says it failed (2 blocks the call, 1 does not).
GUARDS: dict[str, tuple[Callable[[dict[str, Any], str], Answer], int]] = {
    "bash": (guard_bash, 2),
    "files": (guard_files, 2),
    "format": (check_format, 1),
}


def main(argv: list[str]) -> int:
    name = argv[1] if len(argv) > 1 else ""
    if name not in GUARDS:
        print(f"coding-guard: run.py {' | '.join(GUARDS)}, not {name!r}", file=sys.stderr)
        return 2
    guard, failed = GUARDS[name]
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    try:
        event = json.load(sys.stdin)
        workspace = os.path.realpath(os.environ.get("CLAUDE_PROJECT_DIR") or event["cwd"])
        answer = guard(event, workspace)
    except ImportError as exc:
        needs = "" if exc.name in RULES else ": it needs hookline (pip install hookline)"
        print(
            f"coding-guard: the {name} guard cannot load ({exc}), so it refuses the call{needs}.",
            file=sys.stderr,
        )
        return failed
    except Exception as exc:
        print(
            f"coding-guard: the {name} guard failed ({type(exc).__name__}: {exc}), so it "
            "refuses the call.",
            file=sys.stderr,
        )
        return failed
    if answer is not None:
        sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

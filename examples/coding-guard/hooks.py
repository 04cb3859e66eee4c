"""The coding guard as hookline Python hooks: ``hookline run --hooks .../coding-guard/hooks.py``.

The same rules as the Claude Code command hooks (``hooks/``: ``bash_guard``, ``file_guard``,
``format_check``), run in-process through hookline's own API: a check costs the parse of the
line (about a millisecond), not a process start and an import of hookline. The path rewrite is
a transformer: it runs before the gates, which judge the real path it leads to. The PreToolUse
hooks fail closed: if one raises, the call is refused.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hookline import Decision, HookRegistry, PostToolUse, PreToolUse

GUARD = str(Path(__file__).resolve().parent)
RULES = str(Path(GUARD, "hooks"))
if RULES not in sys.path:  # the rules live beside the command hooks that also run them
    sys.path.insert(0, RULES)

import bash_guard  # noqa: E402
import file_guard  # noqa: E402
import format_check  # noqa: E402


def to_real_path(event: PreToolUse) -> Decision | None:
    """Edit and Write get the real, absolute path their file_path leads to."""
    path = event.tool_input.get("file_path")
    if not isinstance(path, str):
        return None
    real = file_guard.real_path(path, workspace=os.path.realpath(event.cwd))
    return Decision.rewrite({**event.tool_input, "file_path": real}) if real != path else None


def guard_files(event: PreToolUse) -> Decision | None:
    """No secret read or written, no edit outside the workspace or of the guard itself."""
    tool_input, cwd = event.tool_input, event.cwd
    reason = file_guard.refuse(event.tool_name, tool_input, workspace=cwd, guard_dir=GUARD)
    return Decision.deny(reason) if reason else None


def guard_bash(event: PreToolUse) -> Decision | None:
    """No delete outside the workspace, no force push to a protected branch, no secret read."""
    command = event.tool_input.get("command")
    if not isinstance(command, str):
        return Decision.deny("coding-guard: Bash gives no command.")
    home = os.path.expanduser("~")
    reason = bash_guard.refuse(command, cwd=event.cwd, workspace=event.cwd, home=home)
    return Decision.deny(reason) if reason else None


def check_format(event: PostToolUse) -> Decision | None:
    """What the formatter check finds in the edited file, told to the model; nothing blocks."""
    path = event.tool_input.get("file_path")
    text = format_check.complaints(path) if isinstance(path, str) else None
    return Decision.context(text) if text else None


def register(registry: HookRegistry) -> None:
    """Plug the guard into a registry (``hookline run --hooks`` calls this)."""
    writes = "Edit|Write"
    registry.add("PreToolUse", to_real_path, matcher=writes, kind="transformer",
                 failure="closed", name="coding-guard: real path")  # fmt: skip
    registry.add("PreToolUse", guard_files, matcher="Read|Edit|Write|Grep",
                 name="coding-guard: files")  # fmt: skip
    registry.add("PreToolUse", guard_bash, matcher="Bash", name="coding-guard: bash")
    registry.add("PostToolUse", check_format, matcher=writes, name="coding-guard: format")

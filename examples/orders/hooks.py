"""The refund rule as an in-process hookline hook: ``hookline run --hooks hooks.py``.

``.claude/settings.json`` runs ``hooks/require_approval.py`` as a Claude Code command hook (a
process per call, the event on stdin, the answer on stdout). This file runs the very same rule
(``refuse``) in-process through hookline's API, in microseconds; a gate on PreToolUse fails
closed, so if it raises, the refund is refused. Keep one of the two: with both, both refuse.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hookline import Decision, HookRegistry, PreToolUse

RULES = str(Path(__file__).resolve().parent / "hooks")
if RULES not in sys.path:  # the rule lives beside the command hook that also runs it
    sys.path.insert(0, RULES)

from require_approval import refuse  # noqa: E402


def require_approval(event: PreToolUse) -> Decision | None:
    """No refund without an approval_id; the reason tells the model to look it up first."""
    reason = refuse(dict(event.tool_input))
    return Decision.deny(reason) if reason else None


def register(registry: HookRegistry) -> None:
    """Plug the rule into a registry (``hookline run --hooks`` calls this)."""
    registry.add(
        "PreToolUse",
        require_approval,
        matcher="mcp__orders__update_order_status",
        name="orders: refund needs approval",
    )

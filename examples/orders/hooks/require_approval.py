"""No refund without an approval: a Claude Code command hook on PreToolUse.

Reads the event on stdin; for ``update_order_status`` setting an order to refunded (已退款)
with no ``approval_id`` it answers a deny whose reason tells the model what to do next: look
the approval up, then try again with its id. Anything else gets no answer (no opinion).
Standard library only, so any ``python3`` runs it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: The refunded status, as the server names it and as the shop's staff read it.
REFUNDED = frozenset({"refunded", "已退款"})


def refuse(tool_input: dict[str, Any]) -> str | None:
    """Why this call may not run, for the model; None when it may."""
    status = str(tool_input.get("status", "")).strip().lower()
    if status not in REFUNDED or tool_input.get("approval_id"):
        return None
    order = tool_input.get("order_id") or "the order"
    return (
        f"A refund needs an approval: {order} was not changed. Look the approval up first with "
        f"mcp__orders__find_refund_approval (order_id {order}); if it is approved, call "
        "update_order_status again with its approval_id. If none is approved, do not refund: "
        "tell the user a manager has to approve it."
    )


def main() -> None:
    event = json.load(sys.stdin)
    reason = refuse(event.get("tool_input") or {})
    if reason:
        answer = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
        print(json.dumps(answer, ensure_ascii=False))


if __name__ == "__main__":
    main()

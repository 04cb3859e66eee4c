"""``can_use_tool``: the Agent SDK's permission callback, as a hookline approver.

The SDK asks it where Claude Code would show a permission prompt: a call no rule, mode or hook
allowed or denied, after the PermissionRequest hooks left it open. hookline's approver sits at
that same step (``hookline._tools.approvals``), so the callback becomes one:

* ``PermissionResultAllow()`` runs the call; with ``updated_input``, the input it runs with
  (judged again by the rules first, as any edited input is);
* ``PermissionResultDeny(message)`` refuses it, the message going to the model; with
  ``interrupt=True`` the run stops there instead, as ``ClaudeSDKClient.interrupt()`` stops it
  (the call is marked interrupted and the response ends with an error result);
* a callback that raises, or returns anything else, refuses the call and says why, to the
  model and in the log: a permission check that fails never lets a call through.

``updated_permissions`` (rules to remember, a mode to switch to) apply to the running session
(``hookline.sdk._updates``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any, Final

from hookline._tools.approvals import Approval, ApprovalRequest, Approver, Unavailable
from hookline.sdk._types import PermissionResultAllow, PermissionResultDeny, ToolPermissionContext

logger = logging.getLogger(__name__)

#: Who answered, in ``Approval.approver`` and the audit.
APPROVER: Final = "can_use_tool"


class CanUseTool(Approver):
    """Answers approval requests with the SDK's ``can_use_tool(name, input, context)``;
    ``interrupt`` is called when an answer asks to stop the run."""

    def __init__(
        self, callback: Callable[..., Any], interrupt: Callable[[], None] | None = None
    ) -> None:
        self.callback, self.interrupt = callback, interrupt
        #: Applies an allow's ``updated_permissions`` (set once the agent exists).
        self.remember: Callable[[list[Any]], None] | None = None

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        context = ToolPermissionContext(
            tool_use_id=request.tool_use_id, decision_reason=request.reason
        )
        try:
            answer = self.callback(request.tool_name, dict(request.tool_input), context)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # the callback's own failure: refuse, and say why
            logger.warning("can_use_tool raised for %s", request.tool_name, exc_info=True)
            return _refuse(f"can_use_tool raised {type(exc).__name__}: {exc}")
        if isinstance(answer, PermissionResultAllow):
            edited = answer.updated_input
            if edited is not None and not isinstance(edited, dict):
                return _refuse(f"its updated_input is a {type(edited).__name__}, not a dict")
            if answer.updated_permissions and self.remember is not None:
                self.remember(list(answer.updated_permissions))
            return Approval.allow(updated_input=edited, approver=APPROVER)
        if isinstance(answer, PermissionResultDeny):
            if answer.interrupt and self.interrupt is not None:
                self.interrupt()
                # The interrupt cancels the run's task; let it land here, before another call
                # or model request runs (a model that never waits would never see it).
                await asyncio.sleep(0)
            return Approval.deny(answer.message or "denied by can_use_tool", approver=APPROVER)
        return _refuse(
            f"can_use_tool returned {type(answer).__name__}, not PermissionResultAllow or "
            "PermissionResultDeny"
        )


def _refuse(why: str) -> Approval:
    return Approval.deny(
        f"Permission check failed, so the call was refused: {why}", approver=APPROVER
    )

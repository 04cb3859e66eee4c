"""One tool call on its way through the permission step: one value, made once per call.

The pipeline makes a ``PendingCall`` once the tool has prepared the input, and gives it the
PreToolUse hooks' decision (``gated``) when they have answered; the permit reads all it decides
from it. The permission layer is asked about it as one ``CallContext`` (``asked``), an approver
as one ``ApprovalRequest`` (``request``): each is built from it in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hookline._decisions import NO_DECISION, Decision
from hookline._events import Scope
from hookline._tools.approvals import Approval, ApprovalRequest
from hookline._tools.base import Tool, ToolCall, ToolContext

if TYPE_CHECKING:  # the permission layer is imported where there is one (or a hook asks)
    from hookline.permissions._call import CallContext
    from hookline.permissions._session import SessionGrant


@dataclass(frozen=True, slots=True)
class PendingCall:
    """A prepared call, what its hooks decided, where it runs, and who has answered for it."""

    call: ToolCall
    tool: Tool
    #: The input as the tool prepared it, before any hook.
    prepared: dict[str, Any]
    scope: Scope
    ctx: ToolContext
    #: The merged PreToolUse decision (none until the hooks have answered).
    gate: Decision = NO_DECISION
    #: A person's answer for this call, given on resume.
    answer: Approval | None = None
    #: Who edited the input, when an edit is judged again: their approval answers an ask.
    edited_by: str | None = None

    @property
    def input(self) -> dict[str, Any]:
        """The input to judge: the hooks' rewrite of it, else the prepared one."""
        rewritten = self.gate.updated_input
        return self.prepared if rewritten is None else rewritten

    def gated(self, gate: Decision) -> PendingCall:
        """The same call, once its PreToolUse hooks have answered ``gate`` (made directly, not
        by ``dataclasses.replace``, which costs twice as much on every tool call)."""
        return PendingCall(
            self.call, self.tool, self.prepared, self.scope, self.ctx, gate, self.answer,
            self.edited_by,
        )  # fmt: skip

    def asked(self) -> CallContext:
        """The call as the permission layer is asked about it."""
        from hookline.permissions._call import CallContext

        tool, cwd, project = self.tool, str(self.ctx.cwd), str(self.ctx.project_dir)
        return CallContext(tool.name, self.input, cwd, tool.read_only, project_dir=project)

    def request(
        self, reason: str, source: str, grant: SessionGrant | None = None
    ) -> ApprovalRequest:
        """The call as an approver is asked about it: the input to judge, and the one the tool
        prepared when a hook rewrote it."""
        tool_input, scope = self.input, self.scope
        return ApprovalRequest(
            session_id=scope.session_id,
            tool_use_id=self.call.id,
            tool_name=self.tool.name,
            tool_input=tool_input,
            original_input=self.prepared if tool_input is not self.prepared else None,
            reason=reason,
            source=source,
            user=scope.user,
            tenant=scope.tenant,
            session_grant=grant,
            cwd=scope.cwd,
        )

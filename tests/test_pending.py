"""One call on its way through the permission step: the permission layer and an approver are
asked about the input as the hooks left it, and the approver also sees the one the tool
prepared, only when a hook rewrote it."""

from __future__ import annotations

from pathlib import Path

from hookline._decisions import NO_DECISION, Decision
from hookline._events import Scope
from hookline._tools.base import Tool, ToolCall, ToolContext, Workspace
from hookline._tools.builtin import Read, Write
from hookline._tools.pending import PendingCall
from hookline.permissions import CallContext

PREPARED = {"file_path": "a.txt", "content": "x"}


def pending(tmp_path: Path, tool: Tool, gate: Decision = NO_DECISION) -> PendingCall:
    scope = Scope("s1", "t.jsonl", str(tmp_path), user="ann", tenant="acme")
    ctx = ToolContext(cwd=tmp_path, workspace=Workspace.of(tmp_path))
    made = PendingCall(ToolCall("c1", tool.name, PREPARED), tool, PREPARED, scope, ctx)
    return made.gated(gate)


def test_before_the_hooks_answer_the_prepared_input_is_asked_about(tmp_path: Path) -> None:
    asked = pending(tmp_path, Read()).asked()
    assert asked == CallContext("Read", PREPARED, str(tmp_path), True, str(tmp_path))
    request = pending(tmp_path, Write()).request("needs approval", "tier:mutating")
    assert (request.tool_input, request.original_input) == (PREPARED, None)
    assert (request.tool_use_id, request.user, request.tenant) == ("c1", "ann", "acme")


def test_a_hooks_rewrite_is_asked_about_and_the_approver_sees_what_it_replaced(
    tmp_path: Path,
) -> None:
    rewrite = {"file_path": "b.txt", "content": "y"}
    call = pending(tmp_path, Write(), Decision.rewrite(rewrite))
    assert call.input == rewrite and call.prepared == PREPARED
    assert call.asked().tool_input == rewrite
    request = call.request("a PreToolUse hook changed it", "PreToolUse")
    assert (request.tool_input, request.original_input) == (rewrite, PREPARED)

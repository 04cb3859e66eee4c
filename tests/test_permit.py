"""The permission step inside the pipeline: hooks first, then rules, mode and tiers, then asking;
and every result saying which permission settled the call and where it came from."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, Decision, ScriptedModel, ToolBlocked
from hookline._claude.command import CommandHook
from hookline._tools.approvals import Approval, ApprovalRequest, Approver, Unavailable
from hookline.permissions import PermissionPolicy
from hookline.permissions._rules import PermissionRule


def policy(*, allow=(), ask=(), deny=(), mode="default") -> PermissionPolicy:  # type: ignore[no-untyped-def]
    def rules(texts):  # type: ignore[no-untyped-def]
        return tuple((PermissionRule.parse(t), "test settings") for t in texts)

    return PermissionPolicy(allow=rules(allow), ask=rules(ask), deny=rules(deny), mode=mode)


class Scripted(Approver):
    """An approver that answers from a list and keeps the requests it saw."""

    def __init__(self, *answers: Approval | Unavailable) -> None:
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    async def approve(self, request: ApprovalRequest) -> Approval | Unavailable:
        self.requests.append(request)
        return self.answers.pop(0)


def test_a_hook_allow_never_overrides_a_deny_rule(tmp_path: Path) -> None:
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=policy(deny=["Bash(touch *)"]))
    agent.registry.add("PreToolUse", lambda e: Decision.allow("looks fine to me"))
    result = asyncio.run(agent.call_tool("Bash", {"command": "touch made.txt"}))
    assert result.status == "blocked" and "Bash(touch *)" in result.reason
    assert not (tmp_path / "made.txt").exists()


def test_a_hook_deny_holds_even_in_bypass_mode(tmp_path: Path) -> None:
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=policy(mode="bypassPermissions"))
    agent.registry.add("PreToolUse", lambda e: Decision.deny("not today"))
    result = asyncio.run(agent.call_tool("Bash", {"command": "touch made.txt"}))
    assert result.status == "blocked" and not (tmp_path / "made.txt").exists()


def test_dangerous_commands_are_denied_whatever_the_mode(tmp_path: Path) -> None:
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=policy(mode="bypassPermissions"))
    result = asyncio.run(agent.call_tool("Bash", {"command": "rm -rf ~"}))
    assert result.status == "blocked" and "dangerous tier, rm-root" in (result.reason or "")


def test_default_tiers_read_runs_write_asks_and_nobody_answering_refuses(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello")
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=PermissionPolicy())
    read = asyncio.run(agent.call_tool("Read", {"file_path": "a.txt"}))
    write = asyncio.run(agent.call_tool("Write", {"file_path": "b.txt", "content": "x"}))
    assert read.status == "executed"
    assert write.status == "blocked" and "nobody gave it" in write.content
    assert not (tmp_path / "b.txt").exists()


def test_an_approver_sees_the_rewrite_and_may_approve_an_edit(tmp_path: Path) -> None:
    approver = Scripted(Approval.edit({"file_path": "c.txt", "content": "edited"}, approver="ann"),
                        Approval.allow(approver="ann"))  # fmt: skip
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=PermissionPolicy(),
                  approver=approver)  # fmt: skip
    agent.registry.add("PreToolUse", lambda e: Decision.rewrite({**e.tool_input, "content": "y"}),
                       kind="transformer")  # fmt: skip
    result = asyncio.run(agent.call_tool("Write", {"file_path": "b.txt", "content": "x"}))
    first, final = approver.requests
    assert first.original_input["content"] == "x" and first.tool_input["content"] == "y"
    assert "needs approval" in (first.reason or "")
    # The edit is judged again and rewritten too: ann is shown what will run, and approves that.
    assert final.original_input["content"] == "edited" and final.tool_input["content"] == "y"
    assert (result.status, result.approver) == ("executed", "ann")
    assert not (tmp_path / "b.txt").exists()
    assert (tmp_path / "c.txt").read_text() == "y"


def test_an_approved_edit_is_still_checked_against_the_deny_rules(tmp_path: Path) -> None:
    approver = Scripted(Approval.edit({"command": "touch evil.txt"}, approver="ann"))
    agent = Agent(ScriptedModel([]), cwd=tmp_path, approver=approver,
                  permissions=policy(deny=["Bash(touch evil*)"]))  # fmt: skip
    result = asyncio.run(agent.call_tool("Bash", {"command": "mkdir fine"}))
    assert result.status == "blocked" and not (tmp_path / "evil.txt").exists()


def test_plan_mode_refuses_changes_and_allows_reads(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello")
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=policy(mode="plan"))
    assert asyncio.run(agent.call_tool("Read", {"file_path": "a.txt"})).status == "executed"
    write = asyncio.run(agent.call_tool("Write", {"file_path": "a.txt", "content": "x"}))
    assert write.status == "blocked" and (tmp_path / "a.txt").read_text() == "hello"


def test_allow_rules_let_a_command_run_without_asking(tmp_path: Path) -> None:
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=policy(allow=["Bash(touch *)"]))
    result = asyncio.run(agent.call_tool("Bash", {"command": "touch ok.txt"}))
    assert result.status == "executed" and (tmp_path / "ok.txt").exists()


def test_every_approval_lands_in_the_audit_log(tmp_path: Path) -> None:
    approver = Scripted(Approval.deny("not in prod", approver="ann"))
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=PermissionPolicy(),
                  approver=approver, audit=True, user="bob")  # fmt: skip

    async def once():  # type: ignore[no-untyped-def]
        async with agent:
            return await agent.call_tool("Write", {"file_path": "b.txt", "content": "x"})

    assert asyncio.run(once()).status == "blocked"
    log = (tmp_path / ".hookline/state/audit.jsonl").read_text()
    rows = [json.loads(line) for line in log.splitlines()]
    (approval,) = [r for r in rows if r["kind"] == "approval"]
    assert (approval["decision"], approval["data"]["answered_by"]) == ("deny", "ann")
    assert (approval["data"]["message"], approval["data"]["user"]) == ("not in prod", "bob")


# -- what settled each call, and where it came from --------------------------------------------


def deny_json(event: Any) -> dict[str, Any]:
    """A deny in the protocol's JSON, as an Agent SDK callback answers."""
    said = {"hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "not in JSON"}  # fmt: skip
    return {"hookSpecificOutput": said}


def exits_2(agent: Agent, tmp_path: Path) -> None:
    script = "echo 'not by exit code' >&2; exit 2"
    agent.registry.add("PreToolUse", CommandHook(script, project_dir=str(tmp_path)))


def raises(event: Any) -> None:
    raise RuntimeError("the hook broke")


Setup = Callable[[Agent, Path], Any]
#: (permission settings, hooks to add, tool, input) -> (status, permission, origin)
SETTLED: list[Any] = [
    pytest.param(policy(deny=["Bash(touch *)"]), None, "Bash", "touch made.txt",
                 ("blocked", "deny", "rule"), id="a deny rule"),
    pytest.param(None, lambda a, _: a.registry.add("PreToolUse", lambda e: Decision.deny("no")),
                 "Bash", "touch made.txt", ("blocked", "deny", "hook"), id="a Python hook's deny"),
    pytest.param(None, lambda a, _: a.registry.add("PreToolUse", deny_json), "Bash",
                 "touch made.txt", ("blocked", "deny", "json"), id="a JSON deny"),
    pytest.param(None, exits_2, "Bash", "touch made.txt", ("blocked", "deny", "exit_code_2"),
                 id="a command hook exiting 2"),
    pytest.param(None, lambda a, _: a.registry.add("PreToolUse", raises), "Bash",
                 "touch made.txt", ("blocked", "deny", "hook_failure"),
                 id="a fail-closed hook that raised"),
    pytest.param(policy(mode="bypassPermissions"), None, "Bash", "rm -rf ~ && touch made.txt",
                 ("blocked", "deny", "tier"), id="the dangerous tier"),
    pytest.param(policy(mode="plan"), None, "Bash", "touch made.txt",
                 ("blocked", "deny", "mode"), id="plan mode"),
    pytest.param(PermissionPolicy(), None, "Bash", "touch made.txt",
                 ("blocked", "deny", "unanswered"), id="an ask nobody answers"),
    pytest.param(None, lambda a, _: a.registry.add("PreToolUse", lambda e: Decision.defer("later")),
                 "Bash", "touch made.txt", ("deferred", "defer", "hook"), id="a hook's defer"),
    pytest.param(policy(allow=["Bash(touch *)"]), None, "Bash", "touch made.txt",
                 ("executed", "allow", "rule"), id="an allow rule"),
    pytest.param(policy(mode="bypassPermissions"), None, "Bash", "touch made.txt",
                 ("executed", "allow", "mode"), id="bypass mode"),
    pytest.param(PermissionPolicy(), None, "Bash", "ls", ("executed", "allow", "tier"),
                 id="the read-only tier"),
    pytest.param(None, None, "Bash", "touch made.txt", ("executed", "allow", None),
                 id="no permission layer and no hook: nothing decided"),
]  # fmt: skip


@pytest.mark.parametrize(("permissions", "setup", "tool", "command", "settled"), SETTLED)
def test_a_result_says_its_status_its_permission_and_where_that_came_from(
    tmp_path: Path,
    permissions: PermissionPolicy | None,
    setup: Setup | None,
    tool: str,
    command: str,
    settled: tuple[str, str, str | None],
) -> None:
    agent = Agent(ScriptedModel([]), cwd=tmp_path, permissions=permissions)
    blocked: list[ToolBlocked] = []
    agent.registry.add("ToolBlocked", blocked.append, kind="observer")
    if setup is not None:
        setup(agent, tmp_path)
    result = asyncio.run(agent.call_tool(tool, {"command": command}))
    assert (result.status, result.permission, result.origin) == settled
    ran = settled[0] == "executed"
    assert (tmp_path / "made.txt").exists() == (ran and "touch" in command)
    assert [e.decision for e in blocked] == ([] if ran else [result.permission])

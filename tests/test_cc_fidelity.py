"""The last differences from Claude Code, closed: Bash keeps its folder between calls (and hook
payloads follow it, while command hooks stay in the project folder), a blocked prompt says why,
a deny rule on a file tool's path refuses before PreToolUse, a PostToolUse
``permissionDecision`` is ignored, and the Stop-block cap ends with Claude Code's empty text."""

from __future__ import annotations

import asyncio
import json
import shlex
from pathlib import Path
from typing import Any

import pytest

import hookline._wording as wording
from cc_scenarios import PROMPT, bash, calls, group, run_scenario, say, texts, tool_results
from hookline import Agent, Decision, ScriptedModel
from hookline._agent.messages import ToolResultBlock
from hookline._agent.session import Session
from hookline._decisions import NO_DECISION
from hookline._hooks.protocol import decision_from_output
from hookline._tools.approvals import Approval
from hookline._tools.base import ToolResult
from hookline._tools.builtin import Bash, Read, Write
from hookline._tools.shell import RESET_NOTE
from hookline.permissions import PermissionPolicy, PermissionRule
from hookline.permissions._sandbox.config import SandboxConfig
from hookline.testing import RecordingHook
from reaction_hooks.hook import REASON, STDERR, STOP_REASON

PATH_DENIED = f"<tool_use_error>{wording.PATH_DENIED}</tool_use_error>"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder with a ``sub/deeper`` folder, inside a folder that is not a root."""
    root = tmp_path / "project"
    (root / "sub" / "deeper").mkdir(parents=True)
    return root.resolve()


def script(*commands: str) -> list[dict[str, Any]]:
    """One Bash call per model turn (ids toolu_1, toolu_2, ...), then a final text."""
    turns = [calls(bash(cmd, call_id=f"toolu_{n}")) for n, cmd in enumerate(commands, 1)]
    return [*turns, say("done")]


def run(project: Path, turns: list[dict[str, Any]], **options: Any) -> tuple[Agent, Any]:
    tools = options.pop("tools", [Bash(), Read(), Write()])
    agent = Agent(ScriptedModel(turns), tools=tools, cwd=project, **options)
    return agent, agent.run_sync("go")


def stdout(result: ToolResult) -> str:
    assert result.status == "executed", result.content
    return str(result.output["stdout"])


def write(path: str, *, call_id: str) -> dict[str, Any]:
    return {"id": call_id, "name": "Write", "input": {"file_path": path, "content": "x"}}


def denying(*rules: str) -> PermissionPolicy:
    return PermissionPolicy(deny=tuple((PermissionRule.parse(r), "test") for r in rules))


# -- item 9: Bash keeps its working directory ---------------------------------------------------


def test_a_cd_carries_over_to_the_next_bash_call(project: Path) -> None:
    _, result = run(project, script("cd sub", "pwd"))
    assert stdout(result.tool_calls[1]) == str(project / "sub")


def test_a_cd_holds_whatever_the_command_printed_or_returned(project: Path) -> None:
    """A failing command still moved the shell; its output (even a fake path) changes nothing."""
    noisy = f"cd sub && echo {project}/elsewhere && printf 'no newline' && false"
    _, result = run(project, script(noisy, "pwd"))
    assert result.tool_calls[0].status == "failed"
    assert stdout(result.tool_calls[1]) == str(project / "sub")


def test_a_command_that_exits_the_shell_keeps_the_folder_it_started_in(project: Path) -> None:
    _, result = run(project, script("cd sub", "cd deeper; exit 3", "pwd"))
    assert result.tool_calls[1].content.startswith("Exit code 3")
    assert stdout(result.tool_calls[2]) == str(project / "sub")


def test_leaving_the_workspace_resets_the_shell_to_the_project_with_a_note(project: Path) -> None:
    agent, result = run(project, script("cd sub", "cd .. && cd .. && pwd", "pwd"))
    note = RESET_NOTE.format(project_dir=project)
    left = result.tool_calls[1]
    assert left.output["stdout"] == str(project.parent)  # it did run there
    assert left.output["stderr"] == note
    shown = tool_results(agent.model.shown(2)[-1])  # the model read it with the result
    assert shown[0].content.endswith(f"{project.parent}\n{note}")
    assert stdout(result.tool_calls[2]) == str(project)


def test_a_folder_removed_under_the_shell_fails_the_call_and_resets(project: Path) -> None:
    _, result = run(project, script("cd sub/deeper", "rmdir ../deeper", "touch made.txt", "pwd"))
    gone = result.tool_calls[2]
    assert gone.status == "failed"
    assert gone.content.endswith(RESET_NOTE.format(project_dir=project))
    assert not (project / "made.txt").exists()
    assert stdout(result.tool_calls[3]) == str(project)


@pytest.mark.skipif(SandboxConfig().unavailable() is not None, reason="bwrap cannot start here")
def test_a_cd_carries_over_inside_the_os_sandbox_too(project: Path) -> None:
    """The folder is reported through the sandbox's temp folder, its only writable place
    outside the roots; a write outside still fails."""
    outside = project.parent / "outside.txt"
    turns = script("cd sub", f"touch {outside}", "pwd")
    _, result = run(project, turns, tools=[Bash()], sandbox=SandboxConfig(enabled=True))
    assert result.tool_calls[1].status == "failed"
    assert not outside.exists()
    assert stdout(result.tool_calls[2]) == str(project / "sub")


def test_hook_payloads_carry_the_shells_folder_but_command_hooks_run_in_the_project(
    project: Path,
) -> None:
    """A command hook found by relative path still runs after the agent's ``cd`` (in Claude
    Code it would not: its hooks run in the session's current folder)."""
    (project / "log_pwd.sh").write_text('pwd -P >> "$CLAUDE_PROJECT_DIR/hook_pwd.txt"\n')
    here = {"type": "command", "command": "sh ./log_pwd.sh"}
    outcome = run_scenario(
        project.parent, {"PreToolUse": [group(here, matcher="Bash")]}, script("cd sub", "pwd")
    )
    root = outcome.project
    sub = str(root / "sub")
    assert (root / "hook_pwd.txt").read_text().splitlines() == [str(root), str(root)]
    assert [p["cwd"] for p in outcome.observed("PostToolUse")] == [sub, sub]
    assert [p["cwd"] for p in outcome.observed("Stop")] == [sub]
    assert outcome.observed("UserPromptSubmit")[0]["cwd"] == str(root)


def test_a_python_hook_sees_the_new_cwd_at_the_next_call(project: Path) -> None:
    hook = RecordingHook()
    agent = Agent(ScriptedModel(script("cd sub", "pwd")), tools=[Bash()], cwd=project)
    agent.registry.add("PreToolUse", hook)
    agent.run_sync("go")
    assert [e.cwd for e in hook.events] == [str(project), str(project / "sub")]


def test_a_deny_rule_on_a_relative_path_holds_after_a_cd(project: Path) -> None:
    """The rule on ``./guarded.txt`` still covers the project's file after ``cd sub``: a
    Write of it by a path relative to ``sub`` is refused and the file is never made."""
    turns = [
        calls(bash("cd sub")),
        calls(write("../guarded.txt", call_id="w")),
        calls(write("mine.txt", call_id="w2")),
        say("done"),
    ]
    policy = denying("Edit(./guarded.txt)", "Edit(./sub/mine.txt)")
    _, result = run(project, turns, permissions=policy, permission_mode="acceptEdits")
    assert [c.status for c in result.tool_calls] == ["executed", "blocked", "blocked"]
    assert [c.content for c in result.tool_calls[1:]] == [PATH_DENIED, PATH_DENIED]
    assert not (project / "guarded.txt").exists()
    assert not (project / "sub" / "mine.txt").exists()  # relative paths follow the shell


def test_bash_permissions_read_the_shells_folder(project: Path) -> None:
    """After ``cd .git/hooks``, ``touch x`` writes into the protected ``.git/hooks``: it asks
    (refused, no one to ask), where from the project folder acceptEdits would have run it."""
    (project / ".git" / "hooks").mkdir(parents=True)
    policy = PermissionPolicy(mode="acceptEdits")
    turns = script("cd .git/hooks", "touch sentinel", "touch ok.txt")
    _, result = run(project, turns, permissions=policy)
    assert [c.status for c in result.tool_calls] == ["executed", "blocked", "blocked"]
    assert ".git" in (result.tool_calls[1].reason or "")
    assert not (project / ".git" / "hooks" / "sentinel").exists()


def test_the_shells_folder_survives_a_pause_and_resume(project: Path) -> None:
    def gate(event: Any) -> Decision | None:
        waits = event.tool_input.get("command") == "pwd"
        return Decision.defer("wait") if waits else None

    turns = script("cd sub", "pwd")
    agent = Agent(ScriptedModel(turns), tools=[Bash()], cwd=project)
    agent.registry.add("PreToolUse", gate)
    paused = agent.run_sync("go")
    assert paused.stop_reason == "tool_deferred"
    again = Agent(ScriptedModel(turns[2:]), tools=[Bash()], cwd=project)

    async def resume() -> Any:
        async with again:
            return await again.resume(paused.session_id, Approval.allow(approver="cli"))

    result = asyncio.run(resume())
    assert stdout(result.tool_calls[0]) == str(project / "sub")


def test_a_saved_folder_outside_the_roots_is_not_taken_back(project: Path) -> None:
    session = Session.create(Agent(ScriptedModel([]), tools=[], cwd=project).options)
    saved = {**session.snapshot(), "shell_cwd": str(project.parent)}
    restored = Session.restore(saved, [])
    assert (restored.shell.cwd, restored.scope.cwd) == (project, str(project))


# -- item 10: a blocked prompt says why ---------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "text"),
    [
        pytest.param(
            "block",
            f"UserPromptSubmit operation blocked by hook:\n{REASON}\n\nOriginal prompt: {PROMPT}",
            id="decision-block",
        ),
        pytest.param("exit2", "exit2", id="exit-2"),
        pytest.param("continue_false", f"Operation stopped by hook: {STOP_REASON}", id="continue"),
    ],
)
def test_a_blocked_prompt_ends_with_claude_codes_text_and_a_transcript(
    tmp_path: Path, mode: str, text: str
) -> None:
    outcome = run_scenario(tmp_path, {"UserPromptSubmit": [group(mode)]})
    if mode == "exit2":  # the reason is "[<cmd>]: <stderr>"
        head = "UserPromptSubmit operation blocked by hook:\n["
        tail = f"]: {STDERR}\n\nOriginal prompt: {PROMPT}"
        assert outcome.result.final_text.startswith(head)
        assert outcome.result.final_text.endswith(tail)
    else:
        assert outcome.result.final_text == text
    assert outcome.model.calls == 0
    assert not outcome.ran
    assert Path(outcome.result.transcript_path).is_file()


# -- item 11: small fidelity items --------------------------------------------------------------


def test_a_read_of_a_denied_path_is_refused_before_pre_tool_use(project: Path) -> None:
    (project / ".env").write_text("KEY=1\n")
    hook = RecordingHook()
    turns = [calls({"id": "r", "name": "Read", "input": {"file_path": ".env"}}), say("done")]
    policy = denying("Read(./.env)")
    agent = Agent(ScriptedModel(turns), tools=[Read()], cwd=project, permissions=policy)
    agent.registry.add("PreToolUse", hook)
    result = agent.run_sync("go")
    refused = result.tool_calls[0]
    assert hook.events == []
    assert (refused.status, refused.permission, refused.origin) == ("blocked", "deny", "rule")
    assert refused.content == PATH_DENIED
    assert "KEY=1" not in agent.model.shown(1)[-1].text


def test_a_bash_deny_rule_still_applies_after_pre_tool_use(project: Path) -> None:
    hook = RecordingHook()
    agent = Agent(
        ScriptedModel(script("touch made.txt")),
        tools=[Bash()],
        cwd=project,
        permissions=denying("Bash(touch *)"),
    )
    agent.registry.add("PreToolUse", hook)
    result = agent.run_sync("go")
    assert [e.tool_name for e in hook.events] == ["Bash"]
    assert result.tool_calls[0].status == "blocked"
    assert not (project / "made.txt").exists()


def test_a_post_tool_use_permission_decision_is_ignored(project: Path) -> None:
    answer = {"hookEventName": "PostToolUse", "permissionDecision": "deny"}
    answer["permissionDecisionReason"] = "no"
    assert decision_from_output("PostToolUse", {"hookSpecificOutput": answer}) == NO_DECISION
    odd = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "maybe"}}
    assert decision_from_output("PostToolUse", odd) == NO_DECISION  # not even checked
    printed = shlex.quote(json.dumps({"hookSpecificOutput": answer}))
    hook = {"type": "command", "command": f"echo {printed}"}
    outcome = run_scenario(project.parent, {"PostToolUse": [group(hook, matcher="Bash")]})
    assert outcome.ran
    added = outcome.added_for(1)  # the plain result, no blocking error beside it
    assert tool_results(added) == [ToolResultBlock("toolu_1", "hello", False)]
    assert texts(added) == []


def test_the_stop_block_cap_ends_with_no_text(project: Path) -> None:
    agent = Agent(ScriptedModel([say("done?")] * 5), tools=[], cwd=project, stop_hook_block_cap=2)
    agent.registry.add("Stop", lambda e: Decision.block("keep going"))
    result = agent.run_sync("work")
    assert (result.stop_reason, result.final_text) == ("stop_hook_cap", "")
    assert agent.model.calls == 3


# -- attacks on the folder report ---------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "__hookline_cwd_file={victim}; echo hi",  # the report once went to a path in a variable
        "echo hi; __hookline_fd={victim}",  # the descriptor's number is read-only
        "unset __hookline_fd; echo hi",
        "declare __hookline_fd={victim}; echo hi",
        "echo hi; exec 7>&-",  # closing descriptors is harmless: nothing is reported
    ],
)
def test_a_command_cannot_turn_the_folder_report_into_a_write(project: Path, command: str) -> None:
    """The report of where the shell is goes to an inherited pipe, never to a path a command
    could name: a file outside the workspace keeps its content, under a read-only command the
    tier allows without asking."""
    victim = project.parent / "victim"
    victim.write_text("ORIGINAL")
    agent = Agent(ScriptedModel([]), cwd=project, permissions=PermissionPolicy())
    asyncio.run(agent.call_tool("Bash", {"command": command.format(victim=victim)}))
    assert victim.read_text() == "ORIGINAL"
    assert agent.session.shell is not None and agent.session.shell.cwd == project


@pytest.mark.parametrize(
    "spoof",
    [
        "pwd() {{ echo {outside}; }}",  # a pwd of its own, called by the report
        "echo {outside} >&$__hookline_fd",  # writing a folder to the pipe itself
        "cd sub; echo {outside} >&$__hookline_fd",
        "cd link",  # a symbolic link inside the workspace that leads out of it
    ],
)
def test_a_spoofed_or_linked_folder_outside_the_roots_resets_the_shell(
    project: Path, spoof: str
) -> None:
    """Whatever the report says, a folder outside the workspace is never taken: the next call
    runs in the project folder, so its file lands there and not outside (the sentinel)."""
    outside = project.parent / "outside"
    outside.mkdir()
    (project / "link").symlink_to(outside)
    _, result = run(project, script(spoof.format(outside=outside), "touch made"))
    assert RESET_NOTE.format(project_dir=project) in result.tool_calls[0].content
    assert not (outside / "made").exists() and (project / "made").exists()


@pytest.mark.parametrize(
    "spelling",
    [".env", "./.env", "sub/../.env", "sub/deeper/../../.env", "{project}/.env", "link.txt",
     "{project}//.env", "sub/../sub/../.env"],
)  # fmt: skip
def test_every_spelling_of_a_denied_path_is_refused_and_never_read(
    project: Path, spelling: str
) -> None:
    """Relative, dotted, absolute, doubled-slash and symlinked spellings of a path a deny rule
    covers: refused by the rule (before or after PreToolUse), the content never shown."""
    (project / ".env").write_text("KEY=SENTINEL\n")
    (project / "link.txt").symlink_to(project / ".env")
    path = spelling.format(project=project)
    turns = [calls({"id": "r", "name": "Read", "input": {"file_path": path}}), say("done")]
    agent = Agent(
        ScriptedModel(turns), tools=[Read()], cwd=project, permissions=denying("Read(./.env)")
    )
    result = agent.run_sync("go")
    refused = result.tool_calls[0]
    assert (refused.status, refused.permission) == ("blocked", "deny")
    assert "SENTINEL" not in refused.content
    assert "SENTINEL" not in agent.model.shown(1)[-1].text

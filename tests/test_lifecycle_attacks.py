"""Spellings that try to get past the rules this lifecycle work touched, each judged by a
sentinel the forbidden work would leave.

- a deny rule on a subagent type (``Agent(general-purpose)``): the type left out (the tool
  defaults to it), or spelled another way;
- a subagent's own calls meeting the agent's deny rules through shell wrappers;
- a model rewriting the settings files under a running session to switch its gates off;
- an agent hook's investigator reaching hookline's private state or outside the project.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookline import Agent, HookRegistry, PermissionPolicy, ScriptedModel, tool
from hookline._project import load_project
from hookline._tools.builtin import builtin_tools
from hookline.permissions._rules import PermissionRule
from test_agent_hooks import (
    YES,
    tool_results,
)
from test_agent_hooks import run as run_with_agent_hook
from test_agent_hooks import settings as agent_hook_settings


def bash(command: str, call_id: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "Bash", "input": {"command": command}}]}


def delegate(tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"id": "toolu_agent", "name": "Agent", "input": tool_input}]}


def policy(*deny: str) -> PermissionPolicy:
    rules = tuple((PermissionRule.parse(r), "test") for r in deny)
    return PermissionPolicy(mode="bypassPermissions", deny=rules)


# -- a deny rule on a subagent type --------------------------------------------------------------


@pytest.mark.parametrize(
    "subagent_type",
    [None, "General-Purpose", "general-purpose ", " general-purpose", "general-purpose\u200b"],
    ids=["left-out", "capitals", "trailing-space", "leading-space", "zero-width"],
)
def test_a_denied_subagent_type_cannot_be_reached_by_another_spelling(
    tmp_path: Path, subagent_type: str | None
) -> None:
    """The sentinel is a subagent starting at all (a SubagentStart hook leaves it)."""
    sentinel = tmp_path / "sub.started"
    tool_input: dict[str, Any] = {"description": "Sub", "prompt": "touch the file"}
    if subagent_type is not None:
        tool_input["subagent_type"] = subagent_type
    model = ScriptedModel([delegate(tool_input), {"text": "sub done"}, {"text": "parent done"}])
    registry = HookRegistry()
    registry.add("SubagentStart", lambda event: sentinel.touch(), kind="observer")
    agent = Agent(model, hooks=registry, cwd=tmp_path, permissions=policy("Agent(general-purpose)"))
    result = agent.run_sync("go")
    assert not sentinel.exists()
    (call,) = result.tool_calls
    assert call.status in ("blocked", "failed") and call.is_error


# -- a subagent's calls meet the agent's rules, whatever the wrapper ----------------------------


@pytest.mark.parametrize(
    "command",
    [
        "touch {s}",
        "sh -c 'touch {s}'",
        'bash -c "touch {s}"',
        "env touch {s}",
        "/usr/bin/touch {s}",
        "t''ouch {s}",
        "echo ok; touch {s}",
        "$(echo touch) {s}",
        "eval 'touch {s}'",
    ],
)
def test_a_subagent_cannot_wrap_its_way_past_a_deny_rule(tmp_path: Path, command: str) -> None:
    sentinel = tmp_path / "sub.ran"
    model = ScriptedModel(
        [delegate({"description": "Sub", "prompt": "go", "subagent_type": "general-purpose"}),
         bash(command.format(s=sentinel), "toolu_sub"), {"text": "sub done"},
         {"text": "parent done"}]
    )  # fmt: skip
    agent = Agent(model, cwd=tmp_path, permissions=policy("Bash(touch:*)"))
    result = agent.run_sync("go")
    assert not sentinel.exists(), command
    assert result.stop_reason == "end_turn"


# -- settings rewritten under a running session ---------------------------------------------------


REFUSE_TOUCH = "grep -q touch && { echo no touching >&2; exit 2; } || exit 0"
DENY_TOUCH = {
    "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": REFUSE_TOUCH}
    ]}]},
    "permissions": {"deny": ["Bash(rm:*)"]},
}  # fmt: skip
LOOSENED = [
    (".claude/settings.json", {}),
    (".claude/settings.local.json", {"disableAllHooks": True}),
    (".claude/settings.local.json",
     {"permissions": {"allow": ["Bash(*)"], "defaultMode": "bypassPermissions"}}),
    (".hookline/settings.json", {"disableAllHooks": True}),
]  # fmt: skip


@pytest.mark.parametrize(("path", "written"), LOOSENED, ids=[f"{p}:{list(w)}" for p, w in LOOSENED])
def test_settings_rewritten_mid_run_never_loosen_its_gates(
    tmp_path: Path, path: str, written: dict[str, Any]
) -> None:
    """A tool rewrites the settings (the model's own Write into .claude asks first; any other
    writer does not): the gates the run started with still hold."""
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(DENY_TOUCH))
    target, sentinel, kept = tmp_path / path, tmp_path / "touched", tmp_path / "keep"
    kept.write_text("x")

    @tool
    def loosen() -> str:
        """Rewrite a settings file."""
        target.parent.mkdir(exist_ok=True)
        target.write_text(json.dumps(written))
        return "rewritten"

    model = ScriptedModel(
        [{"tool_calls": [{"id": "toolu_l", "name": "loosen", "input": {}}]},
         bash(f"touch {sentinel}", "toolu_t"), bash(f"rm {kept}", "toolu_rm"), {"text": "done"}]
    )  # fmt: skip
    project = load_project(tmp_path, mode="bypassPermissions")
    agent = Agent(model, tools=[*builtin_tools(), loosen], **project.agent_options())
    result = agent.run_sync("loosen the rules")
    assert json.loads(target.read_text()) == written  # the file did change under the run
    assert [c.status for c in result.tool_calls] == ["executed", "blocked", "blocked"]
    assert not sentinel.exists() and kept.exists()


# -- an agent hook's investigator ---------------------------------------------------------------


def test_the_investigator_never_reads_hooklines_private_state(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".hookline").mkdir(parents=True)
    (project / ".hookline" / "secret.txt").write_text("HOOKLINE-PRIVATE")
    (project / "state-link").symlink_to(project / ".hookline")
    agent_hook_settings(project)
    reads = [
        {"name": "Read", "input": {"file_path": ".hookline/secret.txt"}},
        {"name": "Read", "input": {"file_path": "./docs/../.hookline/secret.txt"}},
        {"name": "Read", "input": {"file_path": "state-link/secret.txt"}},
        {"name": "Grep", "input": {"pattern": "LINE-PRIV", "output_mode": "content"}},
        {"name": "Glob", "input": {"pattern": "**/secret.txt"}},
        {"name": "Grep", "input": {"pattern": "PRIVATE", "path": "state-link"}},
    ]
    investigator = ScriptedModel([*({"tool_calls": [r]} for r in reads), {"text": YES}])
    touch = [bash(f"touch {project / 'sentinel'}", "toolu_t"), {"text": "done"}]
    run_with_agent_hook(project, investigator, touch)
    assert investigator.calls == len(reads) + 1
    assert "HOOKLINE-PRIVATE" not in tool_results(investigator, len(reads))

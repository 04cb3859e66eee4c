"""Events carry their own facts: one table, pinned here, and no event-name sets anywhere else.

Each event class says what it is (``EventFacts`` plus its payload ClassVars); the registry, the
engine, command hooks, settings, the lint and ``hookline hooks table`` ask it. A change to any
fact of any event is a visible diff of ``TABLE``; a new event is one class and one row here.
Notification is the proof: added as one class, loaded from settings, fired when a person is
asked to approve a call.
"""

from __future__ import annotations

import ast
import asyncio
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

import hookline
from hookline import Agent, Notification, ScriptedModel
from hookline._claude.command import CommandHook
from hookline._events import EVENTS, NOT_YET_SUPPORTED, EventFacts, HookEvent, Scope
from hookline._hooks.engine import HookEngine
from hookline._hooks.registry import HookRegistry
from hookline._tools.approvals import Approval, ApprovalRequest, Approver
from hookline.permissions import PermissionPolicy

SRC = Path(hookline.__file__).parent

#: The class-level facts kept beside ``EventFacts`` (they shape the payload and rewrites).
CLASS_FACTS = ("match_field", "has_mode", "rewrites_input", "rewrites_output")
COLUMNS = (
    *("fails_closed", "refuses", "exit_2", "plain_stdout", "env_file"),
    *("timeout", "timeout_cap", "judged"),
    *CLASS_FACTS,
)
N, F, T = None, False, True
NT = "notification_type"
C, R = "context", "instructions"  # plain_stdout: worded context, raw instructions
# fmt: off
TABLE: dict[str, tuple[Any, ...]] = {
    # (fails_closed, refuses, exit_2, plain_stdout, env_file, timeout, timeout_cap,
    #  judged, match_field, has_mode, rewrites_input, rewrites_output): COLUMNS
    "SessionStart":      (F, N,        "error",   C, T, N,    N,    N,      "source",      F, F, F),
    "SessionEnd":        (F, N,        "error",   N, F, 1.5,  60.0, N,      "reason",      F, F, F),
    "UserPromptSubmit":  (T, "prompt", "blocks",  C, F, 30.0, N,    "end",  N,             T, F, F),
    "TurnStart":         (F, N,        "error",   N, F, N,    N,    N,      N,             T, F, F),
    "TurnEnd":           (F, N,        "error",   N, F, N,    N,    N,      N,             T, F, F),
    "PreToolUse":        (T, "call",   "blocks",  N, F, N,    N,    "end",  "tool_name",   T, T, F),
    "PermissionRequest": (F, "call",   "ignored", N, F, N,    N,    "none", "tool_name",   T, T, F),
    "PostToolUse":       (F, "output", "blocks",  N, F, N,    N,    "end",  "tool_name",   T, F, T),
    "PostToolUseFailure":(F, N,        "blocks",  N, F, N,    N,    "deny", "tool_name",   T, F, F),
    "PostToolBatch":     (F, N,        "blocks",  N, F, N,    N,    "end",  N,             T, F, F),
    "ToolBlocked":       (F, N,        "error",   N, F, N,    N,    N,      "tool_name",   T, F, F),
    "PreModelRequest":   (F, N,        "error",   N, F, N,    N,    N,      N,             T, F, F),
    "PostModelResponse": (F, N,        "error",   N, F, N,    N,    N,      N,             T, F, F),
    "Stop":              (F, N,        "blocks",  N, F, N,    N,    "keep", N,             T, F, F),
    "Notification":      (F, N,        "error",   N, F, N,    N,    N,      NT,            F, F, F),
    "InstructionsLoaded":(F, N,        "error",   N, F, N,    N,    N,      "load_reason", F, F, F),
    "SubagentStart":     (F, N,        "error",   N, F, N,    N,    N,      "agent_type",  F, F, F),
    "SubagentStop":      (F, N,        "blocks",  N, F, N,    N,    "keep", "agent_type",  T, F, F),
    "PreCompact":        (F, "compaction", "blocks", R, F, N, N,    N,      "trigger",     F, F, F),
    "PostCompact":       (F, N,        "error",   N, F, N,    N,    N,      "trigger",     F, F, F),
    "CwdChanged":        (F, N,        "error",   N, T, N,    N,    N,      N,             F, F, F),
    "FileChanged":       (F, N,        "error",   N, T, N,    N,    N,      "file_name",   F, F, F),
    "ConfigChange":      (F, N,        "blocks",  N, F, N,    N,    N,      "source",      F, F, F),
    "PreModelSwitch":    (T, "switch", "blocks",  N, F, N,    N,    N,      "to_model",    F, F, F),
    "PostModelSwitch":   (F, N,        "error",   N, F, N,    N,    N,      "to_model",    F, F, F),
}
#: What a gate may answer (``hookline hooks table``); an event left out answers nothing.
ANSWERS: dict[str, tuple[str, ...]] = {
    "SessionStart": ("context",),
    "UserPromptSubmit": ("block", "context", "stop"),
    "PreToolUse": ("allow", "deny", "ask", "defer", "rewrite", "context", "stop"),
    "PermissionRequest": ("allow", "deny", "rewrite", "stop"),
    "PostToolUse": ("block (feedback)", "replace output", "context", "stop"),
    "PostToolUseFailure": ("context", "stop"),
    "PostToolBatch": ("block (ends the run)", "context", "stop"),
    "PreModelRequest": ("rewrite (messages)", "context", "stop"),
    "Stop": ("block (keep working)", "context", "stop"),
    "SubagentStart": ("context",),
    "SubagentStop": ("block (keep working)", "context", "stop"),
    "PreCompact": ("block (no compaction)", "instructions"),
    "ConfigChange": ("block (ends the run)",),
    "PreModelSwitch": ("allow", "deny", "ask"),
    "PostModelSwitch": ("context",),
}
#: What ``hookline install claude-code`` does with it: installed by default, or on request
#: (``--events``); an event left out cannot be installed (command hooks only, or hookline's own).
SERVED: dict[str, str] = {
    **dict.fromkeys(
        ("UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
         "PostToolUseFailure", "Stop", "SubagentStop"),
        "default",
    ),
    **dict.fromkeys(
        ("SessionEnd", "PostToolBatch", "Notification", "InstructionsLoaded", "SubagentStart",
         "PreCompact", "PostCompact", "CwdChanged", "FileChanged", "ConfigChange"),
        "optional",
    ),
}
# fmt: on


def row(cls: type[HookEvent]) -> tuple[Any, ...]:
    facts = {f.name: getattr(cls.facts, f.name) for f in fields(EventFacts)}
    return tuple(facts[c] if c in facts else getattr(cls, c) for c in COLUMNS)


def test_the_table_names_every_fact_an_event_has() -> None:
    assert {f.name for f in fields(EventFacts)} == {*COLUMNS, "answers", "served"} - set(
        CLASS_FACTS
    )


def test_every_event_has_exactly_the_facts_of_its_row() -> None:
    assert {name: row(cls) for name, cls in EVENTS.items()} == TABLE
    assert {name: cls.facts.answers for name, cls in EVENTS.items()} == {
        name: ANSWERS.get(name, ()) for name in EVENTS
    }
    assert {name: cls.facts.served for name, cls in EVENTS.items()} == {
        name: SERVED.get(name) for name in EVENTS
    }


# -- no other module keeps its own list of events ------------------------------------------------

EVENT_NAMES = frozenset(EVENTS) | NOT_YET_SUPPORTED


def event_name_collections(source: str) -> list[int]:
    """Lines of set, tuple, list or dict literals made only of event names (two or more)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        items: list[ast.expr | None] = []
        if isinstance(node, ast.Set | ast.Tuple | ast.List):
            items = list(node.elts)
        elif isinstance(node, ast.Dict):
            items = list(node.keys)
        names = [i.value for i in items if isinstance(i, ast.Constant)]
        if len(items) >= 2 and len(names) == len(items) and set(names) <= EVENT_NAMES:
            found.append(node.lineno)
    return sorted(found)


def test_the_scan_finds_the_sets_modules_used_to_keep() -> None:
    old = (
        'FAIL_CLOSED_EVENTS = frozenset({"PreToolUse", "UserPromptSubmit"})\n'
        'EVENT_TIMEOUTS = {"UserPromptSubmit": 30.0, "SessionEnd": 1.5}\n'
        'ENV_FILE_EVENTS = ("SessionStart", "Setup")\n'
        'FINE = ("PreToolUse", "allow")\n'
    )
    assert event_name_collections(old) == [1, 2, 3]


def test_no_module_but_events_keeps_a_set_of_event_names() -> None:
    kept = {
        str(path.relative_to(SRC)): lines
        for path in sorted(SRC.rglob("*.py"))
        if SRC / "_events" not in path.parents
        and (lines := event_name_collections(path.read_text(encoding="utf-8")))
    }
    assert kept == {}, "ask the event class (event_class(name).facts) instead"


# -- Notification: a new event is one class ------------------------------------------------------


class Allowing(Approver):
    """Approves every call; notes whether the Notification hook had already run when asked."""

    def __init__(self, written: Path) -> None:
        self.written = written
        self.notified_first: list[bool] = []

    async def approve(self, request: ApprovalRequest) -> Approval | None:
        self.notified_first.append(self.written.exists())
        return Approval.allow(approver="ann")


def notification_project(root: Path) -> None:
    hooks = {
        "Notification": [
            {"matcher": "permission_prompt", "hooks": [_command("cat > notified.json")]},
            {"matcher": "idle_prompt", "hooks": [_command("touch IDLE_SENTINEL")]},
        ]
    }
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))


def _command(code: str) -> dict[str, str]:
    return {"type": "command", "command": f'cd "$CLAUDE_PROJECT_DIR" && {code}'}


def test_notification_hooks_load_from_settings_without_warnings(tmp_path: Path) -> None:
    notification_project(tmp_path)
    project = hookline.load_project(tmp_path)
    assert project.warnings == ()
    assert [(s.event, repr(s.matcher)) for s in project.hooks] == [
        ("Notification", "tool_name('permission_prompt')"),
        ("Notification", "tool_name('idle_prompt')"),
    ]


def test_asking_a_person_fires_notification_with_claude_codes_payload(tmp_path: Path) -> None:
    """The permission_prompt hook reads the payload before the approver is asked; the
    idle_prompt hook does not match (its sentinel stays absent); the approved call runs."""
    notification_project(tmp_path)
    written = tmp_path / "notified.json"
    approver = Allowing(written)
    options = {**hookline.load_project(tmp_path).agent_options(), "approver": approver}
    agent = Agent(ScriptedModel([]), **{**options, "permissions": PermissionPolicy()})
    result = asyncio.run(agent.call_tool("Write", {"file_path": "b.txt", "content": "x"}))
    assert (result.status, approver.notified_first) == ("executed", [True])
    payload = json.loads(written.read_text())
    assert payload == {
        "session_id": agent.session.scope.session_id,
        "transcript_path": agent.session.scope.transcript_path,
        "cwd": str(tmp_path.resolve()),
        "hook_event_name": "Notification",
        "message": "The agent needs your permission to use Write",
        "notification_type": "permission_prompt",
    }
    assert not (tmp_path / "IDLE_SENTINEL").exists()


def test_with_nobody_to_ask_no_notification_fires(tmp_path: Path) -> None:
    notification_project(tmp_path)
    options = {**hookline.load_project(tmp_path).agent_options(), "permissions": PermissionPolicy()}
    result = asyncio.run(Agent(ScriptedModel([]), **options).call_tool("Write", {
        "file_path": "b.txt", "content": "x"}))  # fmt: skip
    assert result.status == "blocked" and "nobody gave it" in result.content
    assert not (tmp_path / "notified.json").exists() and not (tmp_path / "b.txt").exists()


@pytest.mark.parametrize(
    ("code", "failure"), [("echo 'look at me'", None), ("echo stop >&2; exit 2", "exit")]
)
def test_a_notification_hook_cannot_block_or_add_context(
    tmp_path: Path, code: str, failure: str | None
) -> None:
    """Plain stdout is not context; exit 2 is a non-blocking error, not a deny."""
    registry = HookRegistry()
    registry.add("Notification", CommandHook(code, project_dir=str(tmp_path)))
    scope = Scope("s1", str(tmp_path / "t.jsonl"), str(tmp_path))
    event = scope.event(Notification, message="idle", notification_type="idle_prompt")
    done = asyncio.run(HookEngine(registry).dispatch(event))
    (run,) = done.runs
    assert run.failure == failure
    assert done.decision.permission is None and done.decision.additional_context == ()
